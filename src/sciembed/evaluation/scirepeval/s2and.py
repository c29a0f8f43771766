"""S2AND (author name disambiguation) for SciRepEval: the release layout, its block split, B³ F1 over blocks.

`load_s2and` reads the legacy JSON layout ``s2and.data.ANDData`` reads (``<root>/<ds>/<ds>_papers.json``,
``_signatures.json``, ``_clusters.json``; blocks are ``author_info.block``); `split_blocks` and
`b3_precision_recall_fscore` are S2AND's; `write_s2and_embeddings` writes the pickle its pipeline loads.

`evaluate_s2and` is NOT S2AND's pipeline (a LightGBM pairwise model over name, affiliation, co-author, venue,
year and embedding features): each test block is clustered on the embeddings alone (average-linkage on cosine
distance, threshold tuned on the val blocks), labelled ``embedding-only``, never SciRepEval's number
(that is `s2and_official`).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.evaluation.issues import BenchmarkError, IssueLog
from sciembed.ioutil.json_files import read_json_object

RANDOM_SEED = 1111  # S2AND's ANDData default
RATIOS = (0.6, 0.2, 0.2)
BLOCK_SIZE_CLUSTERS = 1  # ANDData.num_clusters_for_block_size default
THRESHOLDS = tuple(round(x, 2) for x in np.arange(0.05, 1.0, 0.05))
# allenai/scirepeval s2and_embeddings.py: the six s2and_mini datasets SciRepEval embeds
DATASETS = ("arnetminer", "inspire", "kisti", "pubmed", "qian", "zbmath")
CLUSTERER = "embedding-only (average-linkage on cosine distance, threshold tuned on val blocks)"


@dataclass
class S2ANDData:
    name: str
    texts: dict[str, str]  # paper_id -> title + abstract
    signature_paper: dict[str, str]  # signature_id -> paper_id
    blocks: dict[str, list[str]]  # block key -> signature ids (file order)
    signature_cluster: dict[str, str]  # signature_id -> true cluster id
    issues: IssueLog = field(default_factory=IssueLog)


def _json(path: Path) -> dict[str, Any]:
    return read_json_object(path, BenchmarkError, shape="a JSON object keyed by id",
                            missing="S2AND release layout: <root>/<ds>/<ds>_papers.json, _signatures.json, "
                                    "_clusters.json")


def load_s2and(root: str | Path, dataset: str, sep: str = " [SEP] ") -> S2ANDData:
    folder = Path(root) / dataset
    issues = IssueLog()
    papers = _json(folder / f"{dataset}_papers.json")
    texts: dict[str, str] = {}
    for pid, paper in papers.items():
        title = str((paper or {}).get("title") or "").strip()
        abstract = str((paper or {}).get("abstract") or "").strip()
        if not title and not abstract:
            issues.add("S2AND paper without title or abstract", "embedded as an empty text",
                       where=f"{dataset}_papers.json", example=str(pid))
        texts[str(pid)] = sep.join(p for p in (title, abstract) if p)
    signature_paper: dict[str, str] = {}
    blocks: dict[str, list[str]] = {}
    for sid, sig in _json(folder / f"{dataset}_signatures.json").items():
        info = (sig or {}).get("author_info") or {}
        pid, block = str((sig or {}).get("paper_id", "")), info.get("block")
        if pid not in texts or not block:
            issues.add("S2AND signature without a known paper or a block", "signature skipped",
                       where=f"{dataset}_signatures.json", example=str(sid))
            continue
        signature_paper[str(sid)] = pid
        blocks.setdefault(str(block), []).append(str(sid))
    signature_cluster: dict[str, str] = {}
    for cid, cluster in _json(folder / f"{dataset}_clusters.json").items():
        for sid in (cluster or {}).get("signature_ids") or []:
            signature_cluster[str(sid)] = str(cid)
    unclustered = [s for s in signature_paper if s not in signature_cluster]
    if unclustered:
        issues.add("S2AND signature in no cluster", "signature skipped", where=f"{dataset}_clusters.json",
                   example=unclustered[0], n=len(unclustered))
        dropped = set(unclustered)
        blocks = {b: [s for s in sigs if s not in dropped] for b, sigs in blocks.items()}
        blocks = {b: sigs for b, sigs in blocks.items() if sigs}
    if not blocks:
        raise BenchmarkError(f"{folder}: no S2AND block with clustered signatures")
    return S2ANDData(dataset, texts, signature_paper, blocks, signature_cluster, issues)


def split_blocks(blocks: Mapping[str, Sequence[str]], seed: int = RANDOM_SEED, ratios: tuple[float, float, float] =
                 RATIOS, n_size_clusters: int = BLOCK_SIZE_CLUSTERS) -> tuple[dict, dict, dict]:
    """train / val / test block dicts as ``ANDData.split_blocks_helper`` makes them (k-means of block sizes, two
    stratified splits; block order as given)."""
    from sklearn.cluster import KMeans
    from sklearn.model_selection import train_test_split

    keys = list(blocks)
    sizes = np.array([len(blocks[k]) for k in keys]).reshape(-1, 1)
    groups = KMeans(n_clusters=n_size_clusters, random_state=seed, n_init=10).fit(sizes).labels_
    _, val_ratio, test_ratio = ratios
    train, rest, _, rest_groups = train_test_split(keys, groups, test_size=val_ratio + test_ratio, stratify=groups,
                                                   random_state=seed)
    val, test = train_test_split(rest, test_size=test_ratio / (val_ratio + test_ratio), stratify=rest_groups,
                                 random_state=seed)
    return ({k: list(blocks[k]) for k in train}, {k: list(blocks[k]) for k in val}, {k: list(blocks[k]) for k in test})


def b3_precision_recall_fscore(true_clusters: Mapping[str, Sequence[str]], pred_clusters: Mapping[str, Sequence[str]]
                               ) -> tuple[float, float, float]:
    """B³ as ``s2and.eval``: for each signature, |pred ∩ true| / |pred| and / |true|; both averaged over the
    signatures; F1 = 2PR / (P + R) of the averages (S2AND then rounds to 3 decimals; this does not)."""
    true_of = {s: c for c, sigs in true_clusters.items() for s in sigs}
    pred_of = {s: c for c, sigs in pred_clusters.items() for s in sigs}
    if set(true_of) != set(pred_of):
        raise ValueError("predictions do not cover exactly the true clusters' signatures")
    if not true_of:
        return 0.0, 0.0, 0.0
    true_sets = {c: frozenset(s) for c, s in true_clusters.items()}
    pred_sets = {c: frozenset(s) for c, s in pred_clusters.items()}
    precision = recall = 0.0
    for s in true_of:
        p, t = pred_sets[pred_of[s]], true_sets[true_of[s]]
        overlap = len(p & t)
        precision += overlap / len(p)
        recall += overlap / len(t)
    precision /= len(true_of)
    recall /= len(true_of)
    f1 = 0.0 if precision == 0 or recall == 0 else 2 * precision * recall / (precision + recall)
    return precision, recall, f1


def true_clusters(data: S2ANDData, blocks: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for sigs in blocks.values():
        for s in sigs:
            out.setdefault(data.signature_cluster[s], []).append(s)
    return out


def cluster_blocks(data: S2ANDData, blocks: Mapping[str, Sequence[str]], vectors: Mapping[str, np.ndarray],
                   threshold: float) -> dict[str, list[str]]:
    """Each block on its own: average-linkage clusters of its signatures' paper vectors (cosine distance
    below `threshold` merges)."""
    from sklearn.cluster import AgglomerativeClustering

    out: dict[str, list[str]] = {}
    for block, sigs in blocks.items():
        if len(sigs) == 1:
            out[f"{block}#0"] = list(sigs)
            continue
        x = np.stack([vectors[data.signature_paper[s]] for s in sigs]).astype(np.float64)
        x /= np.where((n := np.linalg.norm(x, axis=1, keepdims=True)) == 0, 1.0, n)
        labels = AgglomerativeClustering(n_clusters=None, metric="cosine", linkage="average",
                                         distance_threshold=threshold).fit_predict(x)
        for s, label in zip(sigs, labels, strict=True):
            out.setdefault(f"{block}#{label}", []).append(s)
    return out


def score_s2and(data: S2ANDData, vectors: Mapping[str, np.ndarray], thresholds: Sequence[float] = THRESHOLDS,
                seed: int = RANDOM_SEED) -> dict[str, Any]:
    """Embedding-only B³ (P, R, F1) × 100 on the test blocks, the threshold chosen on the val blocks;
    `vectors`: paper id -> vector (every paper of a clustered signature)."""
    train, val, test = split_blocks(data.blocks, seed)
    tune = val or train
    best = max(thresholds, key=lambda t: (b3_precision_recall_fscore(
        true_clusters(data, tune), cluster_blocks(data, tune, vectors, t))[2], -t))
    p, r, f1 = b3_precision_recall_fscore(true_clusters(data, test), cluster_blocks(data, test, vectors, best))
    return {"dataset": data.name, "clusterer": CLUSTERER, "threshold": best,
            "blocks": {"train": len(train), "val": len(val), "test": len(test)},
            "b3_precision": 100 * p, "b3_recall": 100 * r, "b3_f1": 100 * f1}


def clustered_papers(data: S2ANDData) -> list[str]:
    return sorted({data.signature_paper[s] for sigs in data.blocks.values() for s in sigs})


def evaluate_s2and(data: S2ANDData, embed: Callable[[list[str]], np.ndarray],
                   thresholds: Sequence[float] = THRESHOLDS, seed: int = RANDOM_SEED) -> dict[str, Any]:
    """Encode the clustered signatures' papers with `embed` (texts -> rows), then `score_s2and`."""
    papers = clustered_papers(data)
    vectors = dict(zip(papers, np.asarray(embed([data.texts[p] for p in papers])), strict=True))
    return score_s2and(data, vectors, thresholds, seed)


def present_datasets(root: str | Path) -> list[str]:
    """The S2AND mini datasets whose three files are under `root` (SciRepEval's ``<root>/s2and``)."""
    root = Path(root)
    return [ds for ds in DATASETS
            if all((root / ds / f"{ds}_{part}.json").is_file() for part in ("papers", "signatures", "clusters"))]


def suite_task(root: str | Path, sep: str) -> tuple[dict[str, str], Callable[[Mapping[str, Any]], dict[str, float]],
                                                   list[str], IssueLog]:
    """For the SciRepEval suite: the texts (``<dataset>/<paper id>``) of every present dataset, the scoring
    function (``<dataset>_b3_f1`` … per dataset, ``b3_f1`` their mean), notes naming the clusterer and any
    absent dataset, and the datasets' input issues."""
    names = present_datasets(root)
    datasets = [load_s2and(root, ds, sep=f" {sep} " if sep != "." else " ") for ds in names]
    texts = {f"{d.name}/{p}": d.texts[p] for d in datasets for p in clustered_papers(d)}

    def score(vectors: Mapping[str, Any]) -> dict[str, float]:
        out: dict[str, float] = {}
        for d in datasets:
            result = score_s2and(d, {p: vectors[f"{d.name}/{p}"] for p in clustered_papers(d)})
            for key in ("b3_precision", "b3_recall", "b3_f1", "threshold"):
                out[f"{d.name}_{key}"] = float(result[key])
        out["b3_f1"] = float(np.mean([out[f"{d.name}_b3_f1"] for d in datasets]))
        return out

    notes = [f"S2AND scored by the {CLUSTERER} clusterer, not S2AND's LightGBM pipeline: not the published figure, "
             "so reported as 'S2AND (embedding-only)' and left out of the proximity and overall averages "
             "(s2and_results: S2AND's own results for the model count instead); b3_f1 is the mean over the "
             "datasets present"]
    absent = [ds for ds in DATASETS if ds not in names]
    if absent:
        notes.append(f"S2AND datasets absent under {root}: {', '.join(absent)}")
    issues = IssueLog()
    for d in datasets:
        issues.extend(d.issues)
    return texts, score, notes, issues


def write_s2and_embeddings(path: str | Path, vectors: Mapping[str, np.ndarray]) -> Path:
    """``(float32 matrix, [paper ids])`` pickled, the file ``ANDData(specter_embeddings=...)`` reads."""
    path = Path(path)
    keys = list(vectors)
    matrix = np.stack([np.asarray(vectors[k], dtype=np.float32) for k in keys]) if keys else np.zeros((0, 0))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        pickle.dump((matrix, keys), handle, protocol=4)
    return path

"""SPECTER's released training data as CoSAEmb's inter-document triplets (the paper trains on them).

The release layout, matched against allenai/specter ``data/training/README.md`` and its sample files::

    <dir>/data.json       {query_id: {candidate_id: {"count": 5 | 1}, …}, …}  (5: cited, 1: cited by a cited paper)
    <dir>/metadata.json   {paper_id: {"paper_id", "title", "abstract", …}, …}
    <dir>/train.txt       query ids of the split, one per line (val.txt, test.txt alike)

Triplets are drawn by the rule of SPECTER's ``TripletGenerator`` (``specter/data_utils/triplet_sampling.py``),
from numpy's seeded ``default_rng`` (not SPECTER's draws): ``margin = margin_fraction × (max − min count)``
(raised to 1 when the spread is exactly 1); ``ceil(ratio_hard_negatives × samples_per_query)`` hard negatives
(candidates below ``max − margin``, each with a positive more than ``margin`` above it), the rest easy ones (a
random paper the query neither is nor lists, with a positive above ``margin + min``).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.ioutil.json_files import read_json_object
from sciembed.training.sources.triplets import TripletError

SPLITS = ("train", "val", "test")
SAMPLES_PER_QUERY = 5
MARGIN_FRACTION = 0.5
RATIO_HARD_NEGATIVES = 0.5  # specter.data.DataReader's default


class SpecterDataError(TripletError):
    """A SPECTER release folder that cannot be used (missing file, wrong shape)."""


@dataclass
class SpecterRelease:
    candidates: dict[str, list[tuple[str, float]]]  # query -> (candidate, count), sorted by count, descending
    metadata: dict[str, dict[str, Any]]
    splits: dict[str, list[str]]
    counts: Counter = field(default_factory=Counter)

    def ta(self, paper_id: str) -> tuple[str, str]:
        record = self.metadata.get(paper_id) or {}
        return str(record.get("title") or "").strip(), str(record.get("abstract") or "").strip()


def _load_json(path: Path) -> dict[str, Any]:
    return read_json_object(path, SpecterDataError, shape="a JSON object keyed by paper id",
                            missing="a SPECTER release folder holds data.json, metadata.json, train.txt, val.txt, "
                                    "test.txt")


def read_specter_release(folder: str | Path) -> SpecterRelease:
    folder = Path(folder)
    raw = _load_json(folder / "data.json")
    metadata = _load_json(folder / "metadata.json")
    counts: Counter[str] = Counter()
    candidates: dict[str, list[tuple[str, float]]] = {}
    for query, cands in raw.items():
        if not isinstance(cands, dict):
            raise SpecterDataError(f"{folder / 'data.json'}: {query!r} maps to {type(cands).__name__}, expected "
                                   '{candidate_id: {"count": n}}')
        kept = []
        for cand, info in cands.items():
            count = info.get("count") if isinstance(info, dict) else None
            if not isinstance(count, int | float) or isinstance(count, bool):
                raise SpecterDataError(f"{folder / 'data.json'}: {query!r} → {cand!r} has no numeric count")
            if cand in metadata:
                kept.append((str(cand), float(count)))
            else:
                counts["candidates_without_metadata"] += 1
        if query not in metadata:
            counts["queries_without_metadata"] += 1
            continue
        candidates[str(query)] = sorted(kept, key=lambda c: -c[1])  # stable: file order among equal counts
    splits = {}
    for split in SPLITS:
        path = folder / f"{split}.txt"
        lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
        splits[split] = [line.strip() for line in lines if line.strip()]
    if not splits["train"]:
        raise SpecterDataError(f"{folder}/train.txt: missing or empty (query ids of the training split)")
    return SpecterRelease(candidates, {str(k): v for k, v in metadata.items()}, splits, counts)


def specter_triplets(release: SpecterRelease, split: str = "train", *, samples_per_query: int = SAMPLES_PER_QUERY,
                     margin_fraction: float = MARGIN_FRACTION, ratio_hard_negatives: float = RATIO_HARD_NEGATIVES,
                     seed: int = 0) -> tuple[list[tuple[str, str, str]], dict[str, int]]:
    """(query, positive, negative) paper ids for every query of `split`, and counts (queries used/skipped,
    hard and easy triplets)."""
    if split not in release.splits:
        raise SpecterDataError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    rng = np.random.default_rng(seed)
    papers = sorted(release.metadata)
    out: list[tuple[str, str, str]] = []
    stats: Counter[str] = Counter()
    for query in release.splits[split]:
        cands = release.candidates.get(query, [])
        if len(cands) < 2:
            stats["queries_skipped"] += 1
            continue
        spread = cands[0][1] - cands[-1][1]
        margin = margin_fraction * spread
        if float(cands[0][1]).is_integer() and float(cands[-1][1]).is_integer() and spread == 1:
            margin = math.ceil(margin)
        hard = _hard(rng, query, cands, margin, samples_per_query, ratio_hard_negatives)
        easy = _easy(rng, query, cands, margin, samples_per_query - len(hard), papers)
        stats["hard"] += len(hard)
        stats["easy"] += len(easy)
        stats["queries_used" if hard or easy else "queries_skipped"] += 1
        out += hard + easy
    return out, dict(stats)


def _hard(rng, query, cands, margin, samples, ratio) -> list[tuple[str, str, str]]:
    if margin == 0:
        return []
    negs = [c for c in cands if c[1] < cands[0][1] - margin]
    if not negs:
        return []
    n = min(math.ceil(ratio * samples), (len(cands) - len(negs)) * len(negs))
    out = []
    for _ in range(n):
        neg = negs[rng.integers(len(negs))]
        pos_pool = [c for c in cands if c[1] > neg[1] + margin]
        out.append((query, pos_pool[rng.integers(len(pos_pool))][0], neg[0]))
    return out


def _easy(rng, query, cands, margin, n, papers) -> list[tuple[str, str, str]]:
    pos_pool = [c for c in cands if c[1] > margin + cands[-1][1]]
    listed = {c[0] for c in cands} | {query}
    if not pos_pool or n <= 0 or len(papers) <= len(listed):
        return []
    out = []
    for _ in range(n):
        while (neg := papers[rng.integers(len(papers))]) in listed:
            pass
        out.append((query, pos_pool[rng.integers(len(pos_pool))][0], neg))
    return out


def add_specter_inter(data: Any, release: SpecterRelease, triplets: list[tuple[str, str, str]], *,
                      sep: bool = True) -> Any:
    """`data` (a `TripletData` built without corpus inter-document rows) plus one fixed-negative ``inter`` row
    per SPECTER triplet, each paper's ``[TTL] title [SEP] [ABS] abstract`` unit added once (a corpus paper
    with the same id keeps its own unit)."""
    from dataclasses import replace

    from sciembed.ioutil.mapped_rows import ChainedTexts
    from sciembed.training.sources.triplets import KINDS
    from sciembed.views.chunk import ta_unit

    texts = ChainedTexts(data.texts, [])  # the corpus's texts stay where they are (a mapped file)
    unit = {pid: int(data.ta[i]) for i, pid in enumerate(data.papers)}

    def text_id(pid: str) -> int:
        if pid not in unit:
            title, abstract = release.ta(pid)
            unit[pid] = len(texts)
            texts.extra.append(ta_unit(title=title, abstract=abstract, sep=sep))
        return unit[pid]

    inter = KINDS.index("inter")
    new = np.asarray([(inter, text_id(q), text_id(p), -1) for q, p, _ in triplets], dtype=np.int64).reshape(-1, 4)
    negatives = np.asarray([text_id(n) for _, _, n in triplets], dtype=np.int64)
    fixed = data.fixed_negative if data.fixed_negative is not None else np.full(len(data.rows), -1, dtype=np.int64)
    counts = dict(data.counts, inter=int(data.counts.get("inter", 0)) + len(new), specter_triplets=len(new),
                  texts=len(texts))
    return replace(data, texts=texts, rows=np.concatenate([data.rows, new]), counts=counts,
                   fixed_negative=np.concatenate([fixed, negatives]))

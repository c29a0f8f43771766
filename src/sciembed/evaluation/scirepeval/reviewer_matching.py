"""SciRepEval's Paper-Reviewer Matching, scored as its own evaluator scores it.

As allenai/scirepeval ``reviewer_matching.py`` (``ReviewerMatchingEvaluator``): a query paper scores a reviewer
by the mean of the three highest cosines to the reviewer's papers, ranks only the reviewers its qrels name, and
the score is the mean of P@5 and P@10 (pytrec_eval, grade ≥ 1 relevant) on ``test_hard`` and ``test_soft``, × 100.
Reads ``scirepeval/paper_reviewer_matching/evaluation``, ``scirepeval_test/paper_reviewer_matching/test_{hard,soft}``
and ``scirepeval_test/reviewers/metadata`` (or the evaluator's ``*_qrel`` / ``reviewer_metadata`` names).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sciembed.evaluation.contract import TextStyle
from sciembed.evaluation.issues import BenchmarkError, IssueLog
from sciembed.evaluation.scirepeval.records import judgements, paper_texts, read_split, split_files

META = "paper_reviewer_matching"
REVIEWERS = "reviewers"
SPLITS = ("test_hard", "test_soft")
TOP_PAPERS = 3  # a reviewer's score: mean of their 3 most similar papers
METRICS = ("precision@5", "precision@10")
OFFICIAL_NAMES = {"precision@5": "P_5", "precision@10": "P_10"}


@dataclass
class ReviewerMatchingData:
    texts: dict[str, str]  # doc_id -> "title [SEP] abstract"
    reviewers: dict[str, list[str]]  # r_id -> their papers (doc ids with a text)
    qrels: dict[str, dict[str, dict[str, int]]]  # split -> query -> reviewer -> grade
    issues: IssueLog = field(default_factory=IssueLog)


def _split(folder: Path, names: Sequence[str], issues: IssueLog) -> list[tuple[str, dict]]:
    for name in names:
        rows = read_split(folder, name, issues)
        if rows:
            return rows
    return []


def load_reviewer_matching(root: str | Path, style: TextStyle = TextStyle()) -> ReviewerMatchingData:
    root = Path(root)
    issues = IssueLog()
    meta = read_split(root / "scirepeval" / META, "evaluation", issues)
    if not meta:
        raise BenchmarkError(f"{root}/scirepeval/{META}/evaluation.jsonl|parquet not found")
    texts = paper_texts(meta, ("title", "abstract"), style, issues, "reviewer matching")
    test = root / "scirepeval_test"
    reviewer_rows = _split(test / REVIEWERS, ("metadata",), issues) or _split(test / META, ("reviewer_metadata",),
                                                                              issues)
    if not reviewer_rows:
        raise BenchmarkError(f"{test}/{REVIEWERS}/metadata.jsonl (r_id, papers) not found")
    reviewers: dict[str, list[str]] = {}
    for where, row in reviewer_rows:
        rid, papers = row.get("r_id"), row.get("papers")
        if rid in (None, "") or not isinstance(papers, list):
            raise BenchmarkError(f"{where}: expected fields r_id and papers (a list of doc ids)")
        known = [str(p) for p in papers if str(p) in texts]
        if len(known) < len(papers):
            issues.add("reviewer paper missing from the metadata", "paper left out of the reviewer's profile",
                       where=where, example=str(rid), n=len(papers) - len(known))
        if known:
            reviewers[str(rid)] = known
        else:
            issues.add("reviewer without any known paper", "reviewer cannot be ranked", where=where, example=str(rid))
    qrels: dict[str, dict[str, dict[str, int]]] = {}
    for split in SPLITS:
        rows = _split(test / META, (split, f"{split}_qrel"), issues)
        if not rows:
            raise BenchmarkError(f"{test}/{META}/{split}.jsonl (query_id, cand_id, score) not found")
        qrels[split] = judgements(rows, texts, reviewers, issues, "reviewer matching: unknown query paper",
                                  "reviewer matching: unknown reviewer")
    return ReviewerMatchingData(texts, reviewers, qrels, issues)


def reviewer_run(vectors: Mapping[str, np.ndarray], reviewers: Mapping[str, Sequence[str]],
                 candidates: Mapping[str, Sequence[str]], top: int = TOP_PAPERS) -> dict[str, dict[str, float]]:
    """query -> reviewer -> mean of the `top` highest cosine similarities of the query to the reviewer's papers."""
    from sciembed.evaluation.geometry import l2_normalize

    run: dict[str, dict[str, float]] = {}
    for qid, rids in candidates.items():
        query = l2_normalize(np.asarray(vectors[qid])[None])[0]
        run[qid] = {}
        for rid in rids:
            sims = l2_normalize(np.stack([vectors[p] for p in reviewers[rid]])) @ query
            run[qid][rid] = float(np.sort(sims)[::-1][:top].mean())
    return run


def score_reviewer_matching(data: ReviewerMatchingData, vectors: Mapping[str, np.ndarray]) -> dict[str, float]:
    """``hard_P_5``, ``hard_P_10``, ``soft_P_5``, ``soft_P_10`` and their mean ``score`` (× 100). As in the
    evaluator, the run is built over the hard qrels' reviewers and scored against both qrels."""
    from sciembed.evaluation.metrics import ranx_scores

    run = reviewer_run(vectors, data.reviewers, {q: list(r) for q, r in data.qrels["test_hard"].items()})
    out: dict[str, float] = {}
    for split in SPLITS:
        qrels = {q: r for q, r in data.qrels[split].items() if q in run}
        scores = ranx_scores(qrels, {q: run[q] for q in qrels}, METRICS)
        for metric in METRICS:
            mean = float(np.mean(list(scores[metric].values())))
            out[f"{split.split('_')[1]}_{OFFICIAL_NAMES[metric]}"] = 100.0 * mean
    out["score"] = float(np.mean([out[k] for k in ("hard_P_5", "hard_P_10", "soft_P_5", "soft_P_10")]))
    return out


def missing_files(root: str | Path) -> list[str]:
    """The release files the task needs that are not under `root` (empty: it can run)."""
    root = Path(root)
    test = root / "scirepeval_test"
    needs = {f"scirepeval/{META}/evaluation": [(root / "scirepeval" / META, "evaluation")],
             f"scirepeval_test/{REVIEWERS}/metadata": [(test / REVIEWERS, "metadata"),
                                                        (test / META, "reviewer_metadata")]}
    needs.update({f"scirepeval_test/{META}/{split}": [(test / META, split), (test / META, f"{split}_qrel")]
                  for split in SPLITS})
    return [f"{name}.jsonl|parquet" for name, places in needs.items()
            if not any(split_files(folder, split) for folder, split in places)]


def needed_papers(data: ReviewerMatchingData) -> list[str]:
    """Every query paper of either qrels and every reviewer paper: what the evaluator encodes."""
    return sorted({q for split in SPLITS for q in data.qrels[split]}
                  | {p for papers in data.reviewers.values() for p in papers})


def evaluate_reviewer_matching(data: ReviewerMatchingData, embed: Callable[[list[str]], np.ndarray]
                               ) -> dict[str, float]:
    """Encode every query and reviewer paper once with `embed` (texts -> rows), then `score_reviewer_matching`."""
    needed = needed_papers(data)
    matrix = np.asarray(embed([data.texts[d] for d in needed]))
    return score_reviewer_matching(data, dict(zip(needed, matrix, strict=True)))

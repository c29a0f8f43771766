"""TREC run and qrels files: the one writer every report uses.

``<task>.run`` (``qid Q0 docid rank score tag``) and ``<task>.qrels`` (``qid 0 docid grade``); ids with whitespace
are refused (they would forge columns).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from sciembed.evaluation.fields import trec_id

Ranking = Sequence[tuple[str, float]]


def write_run(path: Path, rankings: Mapping[str, Ranking], tag: str, depth: int | None = None) -> Path:
    """Each query's ranking, best first, cut at `depth` (None: whole)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for qid in sorted(rankings):
            for rank, (did, score) in enumerate(rankings[qid][:depth], 1):
                f.write(f"{trec_id(qid)} Q0 {trec_id(did)} {rank} {score:.6f} {tag}\n")
    return path


def write_qrels(path: Path, qrels: Mapping[str, Mapping[str, int]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for qid in sorted(qrels):
            for did, rel in sorted(qrels[qid].items()):
                f.write(f"{trec_id(qid)}\t0\t{trec_id(did)}\t{rel}\n")
    return path

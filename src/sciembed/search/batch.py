"""Batch search (``sciembed index search``): many query papers or texts against one or more index directories.

Each index directory (dense or BM25, any view; a served collection as it stands; a full-text index as its three
parts, searched with ``--method late``) is a run of one `PaperSearch`; several are fused by a tuned
``fusion.json``, the fusion measured on real papers where the runs are its runs, or RRF. Query papers are never
retrieved for themselves, by id or by normalised title.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sciembed.index.fulltext_index import expand_index_dirs
from sciembed.papers.titles import TitleTwins
from sciembed.retrieval.multivector import paper_method
from sciembed.search.learned_fusion import FusionSpec, measured_default
from sciembed.search.open import open_run, query_encoder
from sciembed.search.paper_lookup import index_lookup, resolve_all
from sciembed.search.paper_search import PaperSearch
from sciembed.search.runs import Query, Ranking, Run


def search_batch(index_dirs: list[str | Path], *, papers: list[str] | None = None,
                 texts: list[tuple[str, str]] | None = None, k: int = 10, method: str | None = None,
                 aggregate: str | None = None, rrf_k: int = 60, fusion: FusionSpec | None = None,
                 notes: list[str] | None = None) -> tuple[list[tuple[str, Ranking]], dict[str, str]]:
    """(query id, ranking) per query paper or text, and paper titles. Exactly one of `papers` / `texts`.

    Several indexes are fused by `fusion` (its run names matched by `runs.run_name`), else query papers by the
    measured fusion where the runs are its runs (`measured_default`), anything else by RRF; what was chosen is
    appended to `notes`.
    """
    if (papers is None) == (texts is None):
        raise ValueError("give exactly one of papers or texts")
    index_dirs, fulltext = expand_index_dirs(index_dirs)
    if fulltext and method is None and papers is not None:
        method = "late"  # the full-text index's pieces answer `late`, the run the measured fusion fuses
    method = paper_method(method) if method is not None else None
    runs = [open_run(p, method, aggregate) for p in index_dirs]
    bm25 = [str(run.path) for run in runs if run.kind == "bm25"]
    if method is not None and len(bm25) == len(runs):  # with a dense index too, it applies to that one
        raise ValueError(f"--method {method} compares a paper's views in a dense index; {', '.join(bm25)} "
                         f"{'is a BM25 index' if len(bm25) == 1 else 'are BM25 indexes'} (it ranks by one text)")
    if fusion is None and len(runs) > 1:
        fusion = measured_default([run.name for run in runs]) if papers is not None else None
        if notes is not None:
            notes.append(_fusion_note(fusion, rrf_k, papers is not None))
    if fusion is None:
        _unique_names(runs)
    search = PaperSearch(runs, fusion, rrf_k)
    titles: dict[str, str] = {}
    for run in runs:
        titles.update(run.titles)
    if papers is not None:
        papers = resolve_all(papers, index_lookup(titles, [(run.path, run.manifest) for run in runs]))  # ids, DOIs…
        twins = TitleTwins(titles.items())
        queries = [Query(p, {run.name: x for run in runs if (x := run.stored(p)) is not None}, twins.excluded(p))
                   for p in papers]
    else:
        inputs = _text_inputs(runs, [t for _, t in texts])
        queries = [Query(q, x) for (q, _), x in zip(texts, inputs, strict=True)]
    return list(zip([q.id for q in queries], search.rank(queries, k), strict=True)), titles


def _unique_names(runs: list[Run]) -> None:
    """Number repeated run names (two TA indexes of two models are ``a2a`` and ``a2a#2``): a query's inputs and
    RRF's lists are kept by name."""
    seen: dict[str, int] = {}
    for run in runs:
        seen[run.name] = seen.get(run.name, 0) + 1
        if seen[run.name] > 1:
            run.name = f"{run.name}#{seen[run.name]}"


def _text_inputs(runs: list[Run], texts: list[str]) -> list[dict[str, Any]]:
    """Each query text as each run's input: the text for BM25, its vector for a dense run (one encoding per
    encoder: a full-text index's two dense parts share it)."""
    encoded: dict[str, Any] = {}
    vectors: dict[str, Any] = {}
    for run in runs:
        if run.kind != "bm25":
            spec = json.dumps(run.manifest.get("encoder"), sort_keys=True)
            if spec not in encoded:
                encoded[spec] = query_encoder(run).encode(texts, show_progress=False)
            vectors[run.name] = encoded[spec]
    return [{run.name: text if run.kind == "bm25" else vectors[run.name][i : i + 1] for run in runs}
            for i, text in enumerate(texts)]


def _fusion_note(fusion: FusionSpec | None, rrf_k: int, papers: bool) -> str:
    if fusion is not None:
        return (f"fused by {fusion.label}, the fusion measured best on real papers (ACL val split, MiniLM; "
                "docs/p2p.md); tune one for your collection with `sciembed eval run --kind paper_to_paper --set "
                "tune_fusion=true` and save it as fusion.json in an index directory")
    why = ("no fusion.json in the index directories" if papers else
           "text queries; the measured fusion ranks query papers")
    return f"fused by RRF (k={rrf_k}): {why}"

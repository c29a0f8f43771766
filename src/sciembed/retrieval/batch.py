"""Batch search: many query papers or query texts against one or more index directories, in one process.

Every index directory written by `sciembed index build` works (dense or BM25, any view). With several
index directories, each one ranks on its own and the lists are fused by RRF (k = 60, a paper counted
once per list, each list 100 deep), or by a learned fusion (`FusionSpec`, ``fusion.json`` from
`sciembed eval run --kind paper_to_paper --set tune_fusion=true`): a BM25 full-text index, a dense TA index and a dense
``ta+section`` index searched with ``--method late`` give the tuned full-text method in one command.
A collection `sciembed index serve` has updated is searched as it stands (its live adds and deletes included).

A full-text index (`sciembed index build` without ``--view``: `retrieval.fulltext_index`) is its three
parts, searched as those three directories with ``--method late`` for query papers.

Query papers are never retrieved for themselves, by id or by normalised title; with a paper method
(`late`, `max_sim`, `naive_sum`, `max_sim_prism_code`) a dense index compares all of the query paper's views with all
of every candidate's views (`MultiVectorIndex.search_views`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.retrieval.bm25_paper import open_bm25_index
from sciembed.retrieval.catalog import CATALOG, Catalog
from sciembed.retrieval.fulltext_index import expand_index_dirs
from sciembed.retrieval.fusion import rrf_scores
from sciembed.retrieval.learned_fusion import FusionError, FusionSpec, fuse_one, measured_default
from sciembed.retrieval.multivector import paper_method
from sciembed.retrieval.paper_index import open_paper_index, read_manifest
from sciembed.retrieval.paper_lookup import index_lookup, resolve_all
from sciembed.retrieval.query_files import QueryFileError, read_paper_ids, read_query_texts  # noqa: F401 (re-exported)
from sciembed.retrieval.titles import TitleTwins
from sciembed.views.kinds import MULTI_SECTION, IndexView

Ranking = list[tuple[str, float]]
FUSION_DEPTH = 100  # each index's list depth when several are fused (then cut to k)


@dataclass
class _Loaded:
    path: Path
    kind: str
    index: Any
    titles: dict[str, str]
    manifest: dict[str, Any]
    encoder: Any = field(default=None)


def _open(path: Path, aggregate: str | None) -> _Loaded:
    if (path / CATALOG).is_file():
        return _open_served(path, aggregate)
    manifest = read_manifest(path)
    if manifest.get("kind") == "bm25":
        index, manifest, titles = open_bm25_index(path)
        return _Loaded(path, "bm25", index, titles, manifest)
    loaded = open_paper_index(path, aggregate=aggregate)
    return _Loaded(path, "dense", loaded.index, loaded.titles, manifest)


def _open_served(path: Path, aggregate: str | None) -> _Loaded:
    """A collection `sciembed index serve` has updated, as it stands: base index + live adds, without deleted papers.

    Opening takes the collection lock (shared), which first settles a compaction a killed process left.
    """
    from sciembed.retrieval.collection_lock import open_lock
    from sciembed.retrieval.live_index import load_live_index

    lock_fd = open_lock(path)
    try:
        manifest = read_manifest(path)
        index = load_live_index(path, aggregate=aggregate, manifest=manifest)
        catalog = Catalog(path / CATALOG)
        try:
            titles = catalog.titles()
        finally:
            catalog.close()
    finally:
        os.close(lock_fd)
    return _Loaded(path, "dense", index, titles, manifest)


def _encoder(loaded: _Loaded) -> Any:
    """The index's query encoder: ONNX Runtime alone for an ONNX-built index where it applies (no
    sentence-transformers import: `models.onnx_query`), else the full encoder the manifest names."""
    from sciembed.models.onnx_query import onnx_query_encoder

    cache = loaded.manifest.get("cache_dir")
    light = onnx_query_encoder(loaded.manifest.get("encoder") or {}, Path(cache) if cache else None)
    if light is not None and light.fingerprint == loaded.index.fingerprint:
        return light
    from sciembed.retrieval.live_index import encoder_from_manifest

    encoder = encoder_from_manifest(loaded.manifest)
    if encoder.fingerprint != loaded.index.fingerprint:
        from sciembed.retrieval.dense import IndexLoadError

        raise IndexLoadError(f"{loaded.path}: built with encoder fingerprint {loaded.index.fingerprint}, the "
                             f"encoder its manifest names has {encoder.fingerprint}; rebuild the index")
    return encoder


def search_batch(
    index_dirs: list[str | Path],
    *,
    papers: list[str] | None = None,
    texts: list[tuple[str, str]] | None = None,
    k: int = 10,
    method: str | None = None,
    aggregate: str | None = None,
    rrf_k: int = 60,
    fusion: FusionSpec | None = None,
    notes: list[str] | None = None,
) -> tuple[list[tuple[str, Ranking]], dict[str, str]]:
    """(query id, ranking) per query paper or text, and paper titles. Exactly one of `papers` / `texts`.

    Several indexes are fused by `fusion` (a `FusionSpec` tuned on validation queries), whose run names
    are matched to the indexes by `run_name`; without one, query papers over exactly a BM25 full-text, a
    dense TA and a dense late-interaction index use the fusion measured on real papers
    (`measured_default`), and anything else RRF. What was chosen is appended to `notes`.
    """
    if (papers is None) == (texts is None):
        raise ValueError("give exactly one of papers or texts")
    index_dirs, fulltext = expand_index_dirs(index_dirs)
    if fulltext and method is None and papers is not None:
        method = "late"  # the full-text index's pieces answer `late`, the run the measured fusion fuses
    method = paper_method(method) if method is not None else None
    loaded = [_open(Path(p), aggregate) for p in index_dirs]
    bm25 = [str(p) for p, one in zip(index_dirs, loaded, strict=True) if one.kind == "bm25"]
    if method is not None and len(bm25) == len(loaded):  # with a dense index too, it applies to that one
        raise ValueError(f"--method {method} compares a paper's views in a dense index; {', '.join(bm25)} "
                         f"{'is a BM25 index' if len(bm25) == 1 else 'are BM25 indexes'} (it ranks by one text)")
    names = [run_name(one, method) for one in loaded]
    if fusion is None and len(loaded) > 1:
        fusion = measured_default(names) if papers is not None else None
        if notes is not None:
            rrf_why = "no fusion.json in the index directories" if papers is not None else \
                "text queries; the measured fusion ranks query papers"
            notes.append(f"fused by RRF (k={rrf_k}): {rrf_why}" if fusion is None else
                         f"fused by {fusion.label}, the fusion measured best on real papers (ACL val split, "
                         "MiniLM; docs/p2p.md); tune one for your collection with `sciembed eval run --kind "
                         "paper_to_paper --set tune_fusion=true` and save it as fusion.json in an index directory")
    if fusion is not None:
        missing = [r for r in fusion.runs if r not in names]
        if missing or len(set(names)) != len(names):
            raise FusionError(f"the fusion {fusion.label} fuses runs {fusion.runs}; the indexes given are "
                              f"{', '.join(f'{p} ({n})' for p, n in zip(index_dirs, names, strict=True))}")
        fusion.check_model([getattr(one.index, "fingerprint", None) for one in loaded if one.kind != "bm25"])
    depth = k if len(loaded) == 1 else max(k, FUSION_DEPTH)  # fused lists are deeper than what is shown
    titles: dict[str, str] = {}
    for one in loaded:
        titles.update(one.titles)
    per_index: list[list[Ranking]] = []
    if papers is not None:
        papers = resolve_all(papers, index_lookup(titles, [(one.path, one.manifest) for one in loaded]))  # ids, DOIs…
        twins = TitleTwins(titles.items())
        excluded = [twins.excluded(p) for p in papers]
        for one in loaded:
            per_index.append(_papers(one, papers, excluded, depth, method))
        qids = list(papers)
    else:
        qids = [q for q, _ in texts]
        encoded: dict[str, Any] = {}  # one encoding per encoder (a full-text index's two dense parts share it)
        for one in loaded:
            if one.kind == "bm25":
                per_index.append(one.index.search_texts([t for _, t in texts], depth))
            else:
                key = json.dumps(one.manifest.get("encoder"), sort_keys=True)
                if key not in encoded:
                    encoded[key] = _encoder(one).encode([t for _, t in texts], show_progress=False)
                per_index.append(one.index.search(encoded[key], depth))
    if len(loaded) == 1:
        return list(zip(qids, per_index[0], strict=True)), titles
    fused = []
    for i, q in enumerate(qids):
        if fusion is not None:
            fused.append((q, fuse_one(fusion, {n: per_index[j][i] for j, n in enumerate(names)}, depth=k)))
            continue
        lists = {str(one.path): [pid for pid, _ in per_index[j][i]] for j, one in enumerate(loaded)}
        fused.append((q, rrf_scores(lists, rrf_k, dedupe=True, depth=k)))
    return fused, titles


def run_name(one: _Loaded, method: str | None) -> str:
    """The paper-to-paper method an index answers (the names of `sciembed eval run --kind paper_to_paper`):
    BM25 over ``fulltext`` is ``bm25``, a dense ``ta`` index ``a2a``, a dense multi-view index with
    ``--method late`` ``late``; any other is named by its kind, view and method."""
    view = one.manifest.get("view", "?")
    if one.kind == "bm25":
        return "bm25" if view == IndexView.FULLTEXT else f"bm25:{view}"
    if view == IndexView.TA:
        return "a2a"
    if method == "late" and view in MULTI_SECTION:
        return "late"
    return f"dense:{view}:{method or 'max_sim'}"


def _papers(one: _Loaded, papers: list[str], excluded: list[list[str]], k: int, method: str | None) -> list[Ranking]:
    out: list[Ranking] = []
    if one.kind == "bm25":
        known = [p for p in papers if p in one.titles]
        hits = iter(one.index.search_texts([one.index.paper_text(p) for p in known], k,
                                           [ex for p, ex in zip(papers, excluded, strict=True) if p in one.titles]))
        return [next(hits) if p in one.titles else [] for p in papers]
    for pid, ex in zip(papers, excluded, strict=True):
        if pid not in one.titles:
            out.append([])
        elif method is not None:
            out.append(one.index.search_paper_views(pid, k, method, exclude=ex))
        else:
            hits = one.index.search_paper(pid, k + len(ex))
            out.append([(d, s) for d, s in hits if d not in ex][:k])
    return out

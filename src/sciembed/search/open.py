"""Index directories as runs: a BM25 or dense index written by `sciembed index build`, or a collection
`sciembed index serve` has updated (as it stands: its live adds and deletes included)."""

from __future__ import annotations

import os
from contextlib import closing
from pathlib import Path
from typing import Any

from sciembed.index.bm25_paper import open_bm25_index
from sciembed.index.catalog import CATALOG
from sciembed.index.fulltext_index import expand_index_dirs
from sciembed.index.paper_index import open_paper_index, read_manifest
from sciembed.search.learned_fusion import FUSION_FILE, FusionSpec
from sciembed.search.runs import Run, run_name


def open_run(path: str | Path, method: str | None = None, aggregate: str | None = None) -> Run:
    """The run an index directory answers; `method` applies to a dense index (a BM25 one ranks by its text)."""
    path = Path(path)
    if (path / CATALOG).is_file():
        return _open_served(path, method, aggregate)
    manifest = read_manifest(path)
    if manifest.get("kind") == "bm25":
        index, manifest, titles = open_bm25_index(path)
        return Run(run_name("bm25", manifest.get("view", "?"), None), index, None, titles, manifest, path)
    loaded = open_paper_index(path, aggregate=aggregate)
    return Run(run_name("dense", manifest.get("view", "?"), method), loaded.index, method, loaded.titles, manifest,
               path)


def _open_served(path: Path, method: str | None, aggregate: str | None) -> Run:
    """A served collection as it stands: base index + live adds, without deleted papers. Opening takes the
    collection lock (shared), which first settles a compaction a killed process left."""
    from sciembed.index.compaction import open_lock
    from sciembed.index.live_index import open_live_catalog
    from sciembed.retrieval.multivector import MultiVectorIndex

    lock_fd = open_lock(path)
    try:
        manifest = read_manifest(path)
        index = MultiVectorIndex.load(path / "index", aggregate=aggregate)
        with closing(open_live_catalog(path, index, manifest)) as catalog:
            titles = catalog.titles()
    finally:
        os.close(lock_fd)
    return Run(run_name("dense", manifest.get("view", "?"), method), index, method, titles, manifest, path)


def query_encoder(run: Run) -> Any:
    """A dense run's query encoder: ONNX Runtime alone for an ONNX-built index where it applies (no
    sentence-transformers import: `models.onnx_query`), else the full encoder the manifest names."""
    from sciembed.models.onnx_query import onnx_query_encoder

    cache = run.manifest.get("cache_dir")
    light = onnx_query_encoder(run.manifest.get("encoder") or {}, Path(cache) if cache else None)
    if light is not None and light.fingerprint == run.fingerprint:
        return light
    from sciembed.index.live_index import encoder_from_manifest

    encoder = encoder_from_manifest(run.manifest)
    if encoder.fingerprint != run.fingerprint:
        from sciembed.retrieval.dense import IndexLoadError

        raise IndexLoadError(f"{run.path}: built with encoder fingerprint {run.fingerprint}, the "
                             f"encoder its manifest names has {encoder.fingerprint}; rebuild the index")
    return encoder


def saved_fusion(index_dirs: list[str | Path]) -> FusionSpec | None:
    """The fusion saved with the indexes (a ``fusion.json`` in one of several index directories), else None."""
    parts, _ = expand_index_dirs(index_dirs)
    if len(parts) < 2:
        return None
    found = [d / FUSION_FILE for d in dict.fromkeys([*map(Path, index_dirs), *parts]) if (d / FUSION_FILE).is_file()]
    return FusionSpec.load(found[0]) if found else None

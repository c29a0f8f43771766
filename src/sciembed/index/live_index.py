"""A served index directory as it stands: its encoder, its catalog, and the live updates replayed on the base index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sciembed.index.catalog import CATALOG, Catalog, write_base_catalog
from sciembed.index.indexed_views import index_views, piece_limits
from sciembed.index.paper_index import read_manifest
from sciembed.papers.model import Paper
from sciembed.retrieval.dense import IndexLoadError
from sciembed.retrieval.multivector import MultiVectorIndex
from sciembed.views import View


def encoder_from_manifest(manifest: dict[str, Any], trust_remote_code: bool | None = None) -> Any:
    """The encoder an index was built with, loaded from the `EncoderSpec` its manifest stores.

    Whether the model's own code may run is never read from the manifest (a file an attacker with write
    access can edit): it is `trust_remote_code` when given, else the run's choice (`run_time_trust`).
    """
    from sciembed.models.spec import EncoderSpec
    from sciembed.models.trust import run_time_trust

    return EncoderSpec.from_described(manifest["encoder"]).load(
        cache_dir=Path(manifest["cache_dir"]) if manifest.get("cache_dir") else None,
        trust_remote_code=run_time_trust() if trust_remote_code is None else trust_remote_code)


def open_live_catalog(path: Path, index: MultiVectorIndex, manifest: dict[str, Any]) -> Catalog:
    """The directory's catalog (written the first time), with the live updates it holds replayed on the loaded
    base `index`: the live rows' vectors added, removed rows hidden. Closed again if that fails."""
    catalog = Catalog(ensure_catalog(path, index, manifest))
    try:
        if catalog.base_rows != index.num_views:
            raise IndexLoadError(f"{path}: catalog expects {catalog.base_rows} base rows, index has {index.num_views}")
        rows, ids, vectors = catalog.added_vectors(index.dim)
        if rows and rows != list(range(index.num_views, index.num_views + len(rows))):
            raise IndexLoadError(f"{path / CATALOG}: live rows are not contiguous after the base index")
        if rows:
            index.add(ids, vectors)
        index.remove_rows(catalog.removed_rows())
    except BaseException:
        catalog.close()
        raise
    return catalog


def load_live_index(path: Path, fingerprint: str | None = None, aggregate: str | None = None,
                    manifest: dict[str, Any] | None = None) -> MultiVectorIndex:
    """The index of a served collection as it stands (base index + live updates), without an encoder;
    `manifest`: the directory's manifest when the caller has read it already."""
    manifest = manifest if manifest is not None else read_manifest(path)
    index = MultiVectorIndex.load(path / "index", expected_fingerprint=fingerprint, aggregate=aggregate)
    open_live_catalog(path, index, manifest).close()
    return index


def ensure_catalog(path: Path, index: MultiVectorIndex, manifest: dict[str, Any]) -> Path:
    """The index directory's catalog, written from its corpus the first time (rows checked against the index)."""
    catalog = path / CATALOG
    if catalog.is_file():
        return catalog
    from sciembed.corpus.layout import CorpusDir

    kind, target = manifest["view"], manifest.get("target_words") or 0
    ids = index.dense.ids

    def indexed() -> Iterator[tuple[Paper, list[View]]]:
        row = 0
        for paper in CorpusDir(manifest["corpus"]).iter_papers():
            views, _ = index_views(paper, kind, target, piece_tokens=manifest.get("piece_tokens"),
                                   **piece_limits(manifest))
            if not views:
                continue
            if ids[row : row + len(views)] != [v.paper_id for v in views]:
                raise IndexLoadError(f"{path}: the corpus {manifest['corpus']} no longer matches the index at row "
                                     f"{row} (paper {paper.id!r}); rebuild the index")
            row += len(views)
            yield paper, views

    rows = write_base_catalog(catalog, indexed())
    if rows != len(ids):
        catalog.unlink()
        raise IndexLoadError(f"{path}: the corpus gives {rows} views but the index holds {len(ids)}; rebuild the index")
    return catalog

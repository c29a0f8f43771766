"""A searchable index of a corpus directory: views → encoder → `MultiVectorIndex` on disk.

Layout of an index directory::

    index/          the MultiVectorIndex (faiss file, ids, checksummed meta.json)
    papers.json     paper id -> title, for showing results
    manifest.json   encoder settings (to load the same encoder for queries), view kind, counts

Every paper read is accounted for: indexed by the requested view, indexed by
title+abstract because it has no body (``ta_fallback``), or rejected because
it has no text at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.corpus.layout import CorpusDir
from sciembed.papers.model import Paper
from sciembed.retrieval.dense import IndexLoadError
from sciembed.retrieval.multivector import MultiVectorIndex
from sciembed.views import View, section_view, ta_text, ta_view, target_words, window_at
from sciembed.views.body import body_words
from sciembed.views.window import eligible_sections

VIEW_KINDS = ("ta", "window", "section")
MANIFEST = "manifest.json"


def paper_views(paper: Paper, kind: str, target: int) -> list[View]:
    """The views of one paper: its TA, a window at every section header, or every non-empty section."""
    if kind == "ta":
        return [ta_view(paper)] if ta_text(paper).strip() else []
    if kind == "window":
        body = body_words(paper)
        return [window_at(paper, i, target, body) for i in eligible_sections(paper, body)]
    if kind == "section":
        return [section_view(paper, i) for i, s in enumerate(paper.sections) if s.text.strip()]
    raise ValueError(f"unknown view {kind!r}; expected one of {', '.join(VIEW_KINDS)}")


@dataclass
class IndexCounts:
    """read = indexed + ta_fallback + rejected."""

    read: int = 0
    indexed: int = 0
    ta_fallback: int = 0
    rejected: int = 0
    views: int = 0


def index_views(paper: Paper, kind: str, target: int) -> tuple[list[View], str]:
    """The views a paper is indexed by, and how: "indexed", "ta_fallback" (no body) or "rejected" (no text)."""
    own = paper_views(paper, kind, target)
    if own:
        return own, "indexed"
    if kind != "ta" and ta_text(paper).strip():
        return [ta_view(paper)], "ta_fallback"
    return [], "rejected"


def collect_views(papers: Iterable[Paper], kind: str, target: int) -> tuple[list[View], dict[str, str], IndexCounts]:
    views: list[View] = []
    titles: dict[str, str] = {}
    counts = IndexCounts()
    for paper in papers:
        counts.read += 1
        own, how = index_views(paper, kind, target)
        setattr(counts, how, getattr(counts, how) + 1)
        if not own:
            continue
        views.extend(own)
        titles[paper.id] = paper.title
    counts.views = len(views)
    return views, titles, counts


def build_paper_index(
    corpus: str | Path,
    encoder: Any,
    kind: str,
    out: str | Path,
    *,
    target: int | None = None,
    batch_size: int = 32,
    aggregate: str = "max",
    show_progress: bool = True,
    extra: dict[str, Any] | None = None,
    index_kind: str = "flat",
    ann: dict[str, Any] | None = None,
    shard_papers: int | None = None,
    seed: int = 0,
) -> IndexCounts:
    """Encode the corpus' views with `encoder` (an `Encoder`) and write an index directory to `out`.

    `index_kind` is flat (exact), hnsw, ivf-pq or auto (from the number of views), with `ann` overriding
    `default_params`. With `shard_papers`, encoding is out of core (`retrieval/shards.py`): vectors go to
    ``out/shards/`` as they are computed, a killed run resumes, and the index is filled from the shards.
    """
    from sciembed.retrieval.ann import INDEX_KINDS, default_params

    if kind not in VIEW_KINDS:
        raise ValueError(f"unknown view {kind!r}; expected one of {', '.join(VIEW_KINDS)}")
    if index_kind not in (*INDEX_KINDS, "auto"):
        raise ValueError(f"unknown index kind {index_kind!r}; expected auto or one of {', '.join(INDEX_KINDS)}")
    target = target or target_words(encoder.max_seq_length)
    out = Path(out)
    if shard_papers:
        from sciembed.retrieval.shards import encode_to_shards, index_from_shards

        run = encode_to_shards(corpus, encoder, kind, target, out / "shards", shard_papers=shard_papers,
                               batch_size=batch_size, show_progress=show_progress)
        counts = run.counts
        if not counts.views:
            raise ValueError(f"{corpus}: none of {counts.read} papers has text to index")
        params = default_params(index_kind, counts.views, encoder.dim, **(ann or {}))
        index = index_from_shards(out / "shards", encoder.dim, encoder.metric, params, aggregate, seed)
        titles = {p.id: p.title for p in CorpusDir(corpus).iter_papers() if index.dense.rows_of(p.id)}
    else:
        views, titles, counts = collect_views(CorpusDir(corpus).iter_papers(), kind, target)
        if not views:
            raise ValueError(f"{corpus}: none of {counts.read} papers has text to index")
        vectors = encoder.encode([v.text for v in views], batch_size=batch_size, show_progress=show_progress)
        params = default_params(index_kind, len(vectors), encoder.dim, **(ann or {}))
        index = MultiVectorIndex(encoder.dim, encoder.metric, aggregate, params)
        if not index.dense.is_trained:
            size = min(len(vectors), params.train_size or len(vectors))
            sample = np.random.default_rng(seed).choice(len(vectors), size, replace=False)
            index.dense.train(vectors[np.sort(sample)])
        index.add([v.paper_id for v in views], vectors)
    index.save(out / "index", encoder.fingerprint)
    (out / "papers.json").write_text(json.dumps(titles, ensure_ascii=False))
    describe = getattr(encoder, "describe", None)
    manifest = {
        "corpus": str(Path(corpus).resolve()),
        "view": kind,
        "target_words": target if kind == "window" else None,
        "encoder": describe() if callable(describe) else {"name": encoder.name, "fingerprint": encoder.fingerprint},
        "counts": asdict(counts),
        **(extra or {}),
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2))
    return counts


@dataclass
class PaperIndex:
    index: MultiVectorIndex
    manifest: dict[str, Any]
    titles: dict[str, str]


def read_manifest(path: str | Path) -> dict[str, Any]:
    """The settings an index directory was built with (encoder, view, counts)."""
    path = Path(path)
    if not (path / MANIFEST).is_file():
        raise IndexLoadError(f"{path}: no {MANIFEST} (not a directory written by `sciembed index`)")
    try:
        return json.loads((path / MANIFEST).read_text())
    except json.JSONDecodeError as exc:
        raise IndexLoadError(f"{path / MANIFEST}:{exc.lineno}: not valid JSON ({exc.msg})") from exc


def open_paper_index(
    path: str | Path, *, expected_fingerprint: str | None = None, aggregate: str | None = None
) -> PaperIndex:
    """Load an index directory; with `expected_fingerprint`, refuse one built by another encoder."""
    path = Path(path)
    manifest = read_manifest(path)
    index = MultiVectorIndex.load(path / "index", expected_fingerprint, aggregate)
    titles = json.loads((path / "papers.json").read_text())
    return PaperIndex(index, manifest, titles)

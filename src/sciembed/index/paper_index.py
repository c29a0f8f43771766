"""A searchable index of a corpus directory: views → encoder → `MultiVectorIndex` on disk.

Layout of an index directory::

    index/          the MultiVectorIndex (faiss file, ids, checksummed meta.json)
    papers.json     paper id -> title, for showing results
    manifest.json   encoder settings (to load the same encoder for queries), view kind, counts

Every paper read is accounted for (`indexed_views.IndexCounts`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.corpus.layout import CorpusDir
from sciembed.index.indexed_views import IndexCounts, collect_views
from sciembed.ioutil.atomic import check_writable, refuse_links, write_text_atomic
from sciembed.ioutil.checksums import files_problem, seal, seal_problem, sha256_file
from sciembed.retrieval.ann import INDEX_KINDS, default_params
from sciembed.retrieval.dense import IndexLoadError
from sciembed.retrieval.multivector import MultiVectorIndex
from sciembed.views import target_words
from sciembed.views.fit import encoder_budget, truncation_row
from sciembed.views.kinds import MULTI_SECTION, IndexView, index_view
from sciembed.views.segment import DEFAULT_SEGMENT_TOKENS

MANIFEST = "manifest.json"


def build_paper_index(corpus: str | Path, encoder: Any, kind: str, out: str | Path, *, target: int | None = None,
                      batch_size: int | None = None, aggregate: str = "max", show_progress: bool = True,
                      extra: dict[str, Any] | None = None, segment_tokens: int = DEFAULT_SEGMENT_TOKENS,
                      index_kind: str = "flat", ann: dict[str, Any] | None = None, shard_papers: int | None = None,
                      seed: int = 0) -> IndexCounts:
    """Encode the corpus' views with `encoder` (an `Encoder`) and write an index directory to `out`.

    `index_kind` is flat (exact), hnsw, ivf-pq or auto (from the number of views), with `ann` overriding
    `default_params`. With `shard_papers`, encoding is out of core: `sciembed encode`'s resumable store
    (`encode/`) under ``out/shards/``, a killed run resumes, and the index is filled from it shard by shard.
    """
    kind = index_view(kind)
    if index_kind not in (*INDEX_KINDS, "auto"):
        raise ValueError(f"unknown index kind {index_kind!r}; expected auto or one of {', '.join(INDEX_KINDS)}")
    check_writable(Path(out))  # before any encoding: a read-only or missing parent fails now, not at the end
    refuse_links(Path(out))
    target = target or target_words(encoder.max_seq_length)
    out = Path(out)
    piece_tokens = encoder_budget(encoder.max_seq_length) if kind in MULTI_SECTION else None
    sizes = {"chunk_tokens": encoder.max_seq_length, "segment_tokens": segment_tokens, "piece_tokens": piece_tokens}
    truncation = None
    if shard_papers:  # `sciembed encode`'s store under out/shards, then the index from it
        from sciembed.index.encode.run import encode_corpus
        from sciembed.index.from_vectors import index_from_vectors

        encode_corpus(corpus, out / "shards", kinds=[kind], encoder=encoder, target=target,
                      segment_tokens=segment_tokens, piece_tokens=piece_tokens, ta_fallback=kind != IndexView.TA,
                      batch_size=batch_size or 32, shard_papers=shard_papers, show_progress=show_progress)
        index, counts, titles = index_from_vectors(out / "shards", kind, index_kind=index_kind, ann=ann,
                                                   aggregate=aggregate, metric=encoder.metric, seed=seed)
    else:
        views, titles, counts = collect_views(CorpusDir(corpus).iter_papers(), kind, target, **sizes)
        if not views:
            raise ValueError(f"{corpus}: none of {counts.read} papers has text to index")
        truncation = _truncation(encoder, kind, [v.text for v in views])
        vectors = encoder.encode([v.text for v in views], batch_size=batch_size, show_progress=show_progress)
        index = filled_index(encoder, [v.paper_id for v in views], vectors, index_kind, ann, aggregate, seed)
    save_paper_index(out, index, encoder.fingerprint, titles, {
        "corpus": str(Path(corpus).resolve()), "view": kind,
        "target_words": target if kind == IndexView.WINDOW else None,
        "segment_tokens": segment_tokens if kind == IndexView.SEGMENT else None,
        "piece_tokens": piece_tokens, "truncation": truncation, "encoder": describe_encoder(encoder),
        "counts": asdict(counts), **(extra or {})})
    return counts


def filled_index(encoder: Any, ids: list[str], vectors: np.ndarray, index_kind: str, ann: dict[str, Any] | None,
                 aggregate: str = "max", seed: int = 0) -> MultiVectorIndex:
    """A `MultiVectorIndex` of `index_kind` (`ann`: `default_params` overrides) holding `vectors`, rows of papers
    `ids`; one that learns from its vectors (IVF-PQ, SQ8 storage) is first trained on a seeded sample of
    `train_size` rows (all when 0)."""
    params = default_params(index_kind, len(vectors), encoder.dim, **(ann or {}))
    index = MultiVectorIndex(encoder.dim, encoder.metric, aggregate, params)
    if not index.dense.is_trained:
        size = min(len(vectors), params.train_size or len(vectors))
        sample = np.random.default_rng(seed).choice(len(vectors), size, replace=False)
        index.dense.train(vectors[np.sort(sample)])
    index.add(ids, vectors)
    return index


def describe_encoder(encoder: Any) -> dict[str, Any]:
    """What a manifest records of the encoder: its `describe()`, else its name and fingerprint."""
    describe = getattr(encoder, "describe", None)
    return describe() if callable(describe) else {"name": encoder.name, "fingerprint": encoder.fingerprint}


def build_index_from_vectors(vectors: str | Path, out: str | Path, *, view: str | None = None,
                             index_kind: str = "flat", ann: dict[str, Any] | None = None, aggregate: str = "max",
                             metric: str | None = None, seed: int = 0) -> IndexCounts:
    """Write an index directory (as `build_paper_index` does) from the shards of a vectors directory."""
    from sciembed.index.encode.store import read_vectors_manifest
    from sciembed.index.from_vectors import choose_view, index_from_vectors

    vectors, out = Path(vectors), Path(out)
    manifest = read_vectors_manifest(vectors)
    view = choose_view(manifest, view)
    check_writable(out)
    index, counts, titles = index_from_vectors(vectors, view, index_kind=index_kind, ann=ann, aggregate=aggregate,
                                               metric=metric, seed=seed)
    out.mkdir(parents=True, exist_ok=True)
    save_paper_index(out, index, manifest["fingerprint"], titles, {
        "corpus": manifest["corpus"], "vectors": str(vectors.resolve()), "view": view,
        "target_words": manifest["target_words"] if view == IndexView.WINDOW else None,
        "segment_tokens": manifest["segment_tokens"] if view == IndexView.SEGMENT else None,
        "encoder": manifest["encoder"], "counts": asdict(counts), "seed": seed})
    return counts


def save_paper_index(out: Path, index: MultiVectorIndex, fingerprint: str, titles: dict[str, str],
                     fields: dict[str, Any]) -> None:
    """Write an index directory: the index, papers.json, then the sealed manifest (`fields` + checksums) last."""
    (out / MANIFEST).unlink(missing_ok=True)  # written last: a rebuild killed halfway is never taken as finished
    index.save(out / "index", fingerprint)
    (out / "papers.json").write_text(json.dumps(titles, ensure_ascii=False))
    manifest = {**fields, "sha256": {name: sha256_file(out / name) for name in ("papers.json", "index/meta.json")}}
    write_text_atomic(out / MANIFEST, json.dumps(seal(manifest), indent=2))


def _truncation(encoder: Any, kind: str, texts: list[str]) -> dict[str, Any] | None:
    """Views over the encoder's budget and the tokens it never reads (None without a tokenizer)."""
    tokenizer = getattr(getattr(encoder, "model", None), "tokenizer", None)
    if tokenizer is None or not texts:
        return None
    from sciembed.views.tokens import tokenizer_counter

    return truncation_row(kind, texts, encoder_budget(encoder.max_seq_length), tokenizer_counter(tokenizer)).to_dict()


@dataclass
class PaperIndex:
    index: MultiVectorIndex
    manifest: dict[str, Any]
    titles: dict[str, str]


def read_manifest(path: str | Path) -> dict[str, Any]:
    """The settings an index directory was built with (encoder, view, counts)."""
    path = Path(path)
    if not (path / MANIFEST).is_file():
        raise IndexLoadError(f"{path}: no {MANIFEST} (not a directory written by `sciembed index build`)")
    try:
        manifest = json.loads((path / MANIFEST).read_text())
    except json.JSONDecodeError as exc:
        raise IndexLoadError(f"{path / MANIFEST}:{exc.lineno}: not valid JSON ({exc.msg})") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise IndexLoadError(f"{path / MANIFEST}: unreadable ({exc})") from exc
    if not isinstance(manifest, dict):
        raise IndexLoadError(f"{path / MANIFEST}: not a JSON object")
    if problem := seal_problem(manifest, str(path / MANIFEST)) or files_problem(path, manifest.get("sha256") or {}):
        raise IndexLoadError(problem)
    return manifest


def open_paper_index(path: str | Path, *, expected_fingerprint: str | None = None,
                     aggregate: str | None = None) -> PaperIndex:
    """Load an index directory; with `expected_fingerprint`, refuse one built by another encoder."""
    path = Path(path)
    manifest = read_manifest(path)
    index = MultiVectorIndex.load(path / "index", expected_fingerprint, aggregate)
    if not (path / "papers.json").is_file():
        raise IndexLoadError(f"{path / 'papers.json'}: missing (index directory incomplete)")
    try:
        titles = json.loads((path / "papers.json").read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise IndexLoadError(f"{path / 'papers.json'}: unreadable ({exc})") from exc
    return PaperIndex(index, manifest, titles)

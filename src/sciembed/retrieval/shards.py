"""Out-of-core encoding for large collections: view vectors written in shards as they are computed.

``shards/`` inside an index directory holds ``shard-00000.npy`` (float32
vectors) + ``shard-00000.json`` (the views' paper ids, the papers' counts) per
`shard_papers` papers of the corpus, and ``shards.json`` listing the finished
shards with the encoder fingerprint. Every file is written to a temporary name,
fsynced and renamed, and a shard is listed only after its files are in place,
so a killed run resumes at the first unlisted shard: no paper is encoded
twice, and memory holds one shard at a time.

The index is then trained on a seeded sample of rows drawn from the shards
(memory-mapped) and filled shard by shard.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.corpus.layout import CorpusDir
from sciembed.ioutil.atomic import atomic_file, fsync_dir
from sciembed.papers.model import Paper
from sciembed.retrieval.ann import AnnParams
from sciembed.retrieval.indexed_views import IndexCounts, index_views
from sciembed.retrieval.multivector import MultiVectorIndex

LISTING = "shards.json"


def _atomic_write(path: Path, write) -> None:
    with atomic_file(path, binary=True) as handle:
        write(handle)


def _listing(shard_dir: Path, settings: dict[str, Any]) -> dict[str, Any]:
    path = shard_dir / LISTING
    if not path.is_file():
        return {**settings, "shards": []}
    listing = json.loads(path.read_text())
    changed = {k: (listing.get(k), v) for k, v in settings.items() if listing.get(k) != v}
    if changed:
        raise ValueError(
            f"{shard_dir}: shards were encoded with other settings ({changed}); remove the folder to start over"
        )
    return listing


@dataclass
class ShardRun:
    counts: IndexCounts
    shards: int
    resumed: int  # shards found finished and not encoded again


def _chunks(papers: Iterator[Paper], size: int) -> Iterator[list[Paper]]:
    while chunk := list(islice(papers, size)):
        yield chunk


def encode_to_shards(
    corpus: str | Path,
    encoder: Any,
    kind: str,
    target: int,
    shard_dir: str | Path,
    *,
    shard_papers: int = 5000,
    batch_size: int | None = None,
    show_progress: bool = True,
    piece_tokens: int | None = None,
) -> ShardRun:
    """Encode a corpus' views shard by shard into `shard_dir`, skipping shards a previous run finished."""
    shard_dir = Path(shard_dir)
    shard_dir.mkdir(parents=True, exist_ok=True)
    settings = {"fingerprint": encoder.fingerprint, "view": kind, "target": target, "shard_papers": shard_papers}
    if piece_tokens is not None:  # only when set, so listings of earlier runs still match
        settings["piece_tokens"] = piece_tokens
    listing = _listing(shard_dir, settings)
    done = {s["name"]: s for s in listing["shards"]}
    counts, resumed = IndexCounts(), 0
    import pyarrow.parquet as pq

    from sciembed.models.progress import progress_bar

    source = CorpusDir(corpus)
    papers = source.iter_papers()
    total = pq.ParquetFile(source.papers_path).metadata.num_rows
    with progress_bar("encode shards", total, enabled=show_progress) as advance:
        for number, chunk in enumerate(_chunks(papers, shard_papers)):
            name = f"shard-{number:05d}"
            if name in done:
                entry = done[name]
                resumed += 1
            else:
                views, kept = [], 0
                local = IndexCounts()
                for paper in chunk:
                    local.read += 1
                    own, how = index_views(paper, kind, target, piece_tokens=piece_tokens)
                    setattr(local, how, getattr(local, how) + 1)
                    views += own
                    kept += bool(own)
                vectors = (encoder.encode([v.text for v in views], batch_size=batch_size, show_progress=False)
                           if views else np.zeros((0, encoder.dim), np.float32))
                _atomic_write(shard_dir / f"{name}.npy", lambda h, v=vectors: np.save(h, v.astype(np.float32)))
                record = {"ids": [v.paper_id for v in views], "counts": vars(local)}
                _atomic_write(shard_dir / f"{name}.json", lambda h, r=record: h.write(json.dumps(r).encode()))
                entry = {"name": name, "papers": len(chunk), "views": len(views), "counts": vars(local)}
                listing["shards"].append(entry)
                _atomic_write(shard_dir / LISTING, lambda h: h.write(json.dumps(listing, indent=1).encode()))
                fsync_dir(shard_dir)
            for key, value in entry["counts"].items():
                setattr(counts, key, getattr(counts, key) + value)
            counts.views += entry["views"]
            advance(len(chunk))
    return ShardRun(counts, len(listing["shards"]), resumed)


def iter_shards(shard_dir: str | Path) -> Iterator[tuple[list[str], np.ndarray]]:
    """(view paper ids, memory-mapped vectors) of every finished shard, in order."""
    shard_dir = Path(shard_dir)
    for entry in json.loads((shard_dir / LISTING).read_text())["shards"]:
        ids = json.loads((shard_dir / f"{entry['name']}.json").read_text())["ids"]
        vectors = np.load(shard_dir / f"{entry['name']}.npy", mmap_mode="r")
        if len(ids) != len(vectors):
            raise ValueError(f"{shard_dir / entry['name']}: {len(ids)} ids but {len(vectors)} vectors")
        yield ids, vectors


def training_sample(shard_dir: str | Path, size: int, seed: int = 0) -> np.ndarray:
    """`size` rows drawn uniformly (seeded) across all shards, read through memory maps."""
    sizes = [len(ids) for ids, _ in iter_shards(shard_dir)]
    total = sum(sizes)
    picks = np.sort(np.random.default_rng(seed).choice(total, min(size, total), replace=False))
    parts, start = [], 0
    for (_, vectors), n in zip(iter_shards(shard_dir), sizes, strict=True):
        local = picks[(picks >= start) & (picks < start + n)] - start
        parts.append(np.asarray(vectors[local]))
        start += n
    return np.concatenate(parts) if parts else np.zeros((0, 0), np.float32)


def index_from_shards(
    shard_dir: str | Path, dim: int, metric: str, params: AnnParams, aggregate: str = "max", seed: int = 0
) -> MultiVectorIndex:
    """A `MultiVectorIndex` of `params.kind`: trained on a sample (IVF-PQ), filled shard by shard."""
    index = MultiVectorIndex(dim, metric, aggregate, params)
    if not index.dense.is_trained:
        index.dense.train(training_sample(shard_dir, params.train_size or 50_000, seed))
    for ids, vectors in iter_shards(shard_dir):
        if ids:
            index.add(ids, np.asarray(vectors))
    return index

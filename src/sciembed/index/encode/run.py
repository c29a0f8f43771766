"""`encode_corpus`: a corpus directory in, a finished vectors directory (`store.py`) out."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from sciembed.corpus.layout import CorpusDir
from sciembed.index.encode.batches import ViewSpec, check_kinds, encode_batch, plan_shards, shard_batches
from sciembed.index.encode.store import VectorsError, finished_info, start_store, write_manifest, write_shard
from sciembed.ioutil.atomic import output_lock
from sciembed.papers.io import PAPERS_FILE
from sciembed.views.segment import DEFAULT_SEGMENT_TOKENS
from sciembed.views.window import target_words

DEFAULT_SHARD_PAPERS = 1000


@dataclass
class EncodeResult:
    out: Path
    shards: int
    resumed: int  # shards found finished and not encoded again
    papers: int = 0
    papers_with_views: int = 0
    views: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    runner: dict[str, Any] = field(default_factory=dict)

    @property
    def encoded(self) -> int:
        return self.shards - self.resumed


def encode_corpus(corpus: str | Path, out: str | Path, *, kinds: list[str] | tuple[str, ...] = ("ta",),
                  load: dict[str, Any] | None = None, target: int | None = None,
                  segment_tokens: int = DEFAULT_SEGMENT_TOKENS, batch_size: int = 32,
                  shard_papers: int = DEFAULT_SHARD_PAPERS, ray: str | None = None, actors: int = 0,
                  cpus_per_actor: float = 1.0, show_progress: bool = True, crash: Any = None,
                  piece_tokens: int | None = None, ta_fallback: bool = False, encoder: Any = None) -> EncodeResult:
    """Encode every `kinds` view of every paper of `corpus` into shards under `out` (resuming a killed run).

    `load`: keyword arguments of `sciembed.models.load_encoder` (name, backend, max_seq_length, …); every
    Ray actor loads the same. `encoder`: an encoder already loaded, for a run in this process (`index build
    --shard-papers`); `load` is then not read. `ray`: None encodes in this process; an address (or "auto",
    "local") runs the Ray Data pipeline of `on_ray.py` with `actors` actors (0: one per GPU, else one per
    `cpus_per_actor` CPUs of the cluster). `piece_tokens` cuts sections into pieces of that many tokens;
    `ta_fallback` gives a paper with none of the views its title+abstract (`ViewSpec`).
    """
    from sciembed.models import load_encoder
    from sciembed.models.progress import progress_bar

    began = time.perf_counter()
    kinds = check_kinds(list(kinds))
    source = CorpusDir(corpus)
    source.require(PAPERS_FILE)
    if batch_size <= 0:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    if encoder is not None and ray is not None:
        raise ValueError("a loaded encoder encodes in this process only; give `load` for a run on Ray")
    if encoder is None:
        load = {"name": "minilm", **(load or {})}
        encoder = load_encoder(**load)
    else:
        load = {"name": encoder.name}
    spec = ViewSpec(kinds, target or target_words(encoder.max_seq_length), segment_tokens,
                    chunk_tokens=encoder.max_seq_length, piece_tokens=piece_tokens, ta_fallback=ta_fallback)
    papers_path = source.papers_path.resolve()
    total = pq.ParquetFile(papers_path).metadata.num_rows
    shards = plan_shards(total, shard_papers)
    settings = {"papers_rows": total, "papers_bytes": papers_path.stat().st_size, "fingerprint": encoder.fingerprint,
                "dim": encoder.dim, "views": list(kinds), "target_words": spec.target,
                "segment_tokens": segment_tokens, "shard_papers": shard_papers,
                # only when used, so the settings of vectors encoded before they existed still match
                **({"piece_tokens": piece_tokens} if piece_tokens is not None else {}),
                **({"chunk_tokens": spec.chunk_tokens} if "chunk" in kinds else {}),
                **({"ta_fallback": True} if ta_fallback else {})}
    out = Path(out)
    base = {"fingerprint": encoder.fingerprint, "dim": encoder.dim}
    with output_lock(out):
        start_store(out, settings)
        todo = [s for s in shards if finished_info(out, s, encoder.fingerprint) is None]
        result = EncodeResult(out, len(shards), len(shards) - len(todo))
        with progress_bar("encode", sum(s.end - s.start for s in todo), enabled=show_progress) as advance:
            if ray is None:
                for shard in todo:
                    batches, info = shard_batches(papers_path, shard, spec, batch_size)
                    vectors = np.concatenate([encode_batch(encoder, batch) for batch in batches])
                    write_shard(out, shard, [r for batch in batches for r in batch], vectors, {**base, **info})
                    advance(shard.end - shard.start)
                result.runner = {"process": "local"}
            else:
                from sciembed.index.encode.on_ray import run_on_ray

                result.runner = run_on_ray(ray, papers_path, out, todo, spec, load, encoder.fingerprint, encoder.dim,
                                           batch_size, base, advance, actors=actors, cpus_per_actor=cpus_per_actor,
                                           crash=crash)
        for shard in shards:
            info = finished_info(out, shard, encoder.fingerprint)
            if info is None:
                raise VectorsError(f"{out}: {shard.name} is missing after the run; run the command again")
            result.papers += info["papers"]
            result.papers_with_views += info["papers_with_views"]
            result.views.update(info["by_kind"])
        result.seconds = time.perf_counter() - began
        write_manifest(out, {
            **settings, "corpus": str(source.root.resolve()),
            "encoder": encoder.describe() if hasattr(encoder, "describe") else {"name": encoder.name},
            "load": {k: v for k, v in load.items() if k != "device"},
            "counts": {"papers": result.papers, "papers_with_views": result.papers_with_views,
                       "views": dict(result.views), "shards": len(shards)},
            "shards": [s.name for s in shards]})
    return result


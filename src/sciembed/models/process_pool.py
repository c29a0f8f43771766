"""Encoding on the CPU in several processes of fewer threads each: the same vectors, sooner.

A small model on a CPU does not keep two threads busy in one process; on the 2-core box two one-thread
processes encoded the full-text build's pieces 8% faster than one two-thread process
(``benchmarks/results/encode_throughput.json``). Each worker loads the encoder again from its `EncoderSpec`
and the parent checks the workers' fingerprint. Texts are sorted by length and cut into chunks of whole
batches; vectors come back in input order, equal to one process's up to the last bits
(tests/models/test_process_pool.py).
"""

from __future__ import annotations

import math
import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.models.encoder import EncoderWrapper

PROCESSES = 2  # measured on 2 cores (encode_throughput.json); more cores give each process more threads
MIN_TEXTS = 2_000  # below this a worker's start (~10 s: imports, loading the model) costs more than it gives
CHUNK_BATCHES = 4  # batches per chunk sent to a worker: the unit of progress and of load balancing
START_TIMEOUT_S = 600.0

_ENCODER: Any = None  # the worker process's encoder (set by `_start_worker`)


def parallel_processes(encoder: Any, texts: int) -> int:
    """How many processes `parallel_encoding` should use for `texts` texts: `PROCESSES` for a local ONNX
    encoder on a CPU with at least that many cores and `MIN_TEXTS` texts, else 1 (encode in this process)."""
    inner = getattr(encoder, "encoder", encoder)  # a `CachedEncoder` wraps the model's encoder
    if getattr(inner, "backend", None) != "onnx" or texts < MIN_TEXTS:
        return 1
    device = str(getattr(getattr(inner, "model", None), "device", "cpu"))
    return PROCESSES if device.startswith("cpu") and (os.cpu_count() or 1) >= PROCESSES else 1


def _start_worker(spec: dict[str, Any], cache_root: str | None, trust_remote_code: bool, threads: int,
                  started: Any) -> None:
    """Process initializer: `threads` threads, the encoder loaded from `spec`, then wait for the others."""
    global _ENCODER
    import torch

    from sciembed.models.spec import EncoderSpec

    torch.set_num_threads(threads)  # ONNX Runtime's intra-op threads follow torch's (models/onnx_backend.py)
    encoder = EncoderSpec.model_validate(spec).load(cache_dir=Path(cache_root) if cache_root else None,
                                                    trust_remote_code=trust_remote_code)
    _ENCODER = getattr(encoder, "encoder", encoder)  # the parent keeps the vector cache, not the workers
    started.wait(START_TIMEOUT_S)


def _fingerprint() -> str:
    return str(_ENCODER.fingerprint)


def _encode_chunk(texts: list[str], batch_size: int | None) -> np.ndarray:
    return _ENCODER.encode(texts, batch_size=batch_size, show_progress=False)


class ProcessPoolEncoder(EncoderWrapper):
    """An encoder whose `encode` spreads length-sorted chunks over worker processes (module docstring).

    Use it through `parallel_encoding`, which starts the workers and always stops them.
    """

    def __init__(self, encoder: Any, processes: int, *, cache_root: Path | None = None) -> None:
        import torch

        from sciembed.models.spec import spec_of

        self.encoder = encoder
        self.processes = processes
        self.batch_size = 32
        threads = max(1, torch.get_num_threads() // processes)
        context = multiprocessing.get_context("spawn")  # never fork a process holding ONNX Runtime threads
        started = context.Barrier(processes)
        self._pool = ProcessPoolExecutor(
            processes, mp_context=context, initializer=_start_worker,
            initargs=(spec_of(encoder).to_dict(), str(cache_root) if cache_root else None,
                      bool(getattr(encoder, "trust_remote_code", False)), threads, started))
        self._ready: list[Future] = [self._pool.submit(_fingerprint) for _ in range(processes)]  # starts them now

    def wait_ready(self) -> None:
        """Block until every worker has loaded the encoder; refuse workers whose encoder is not this one."""
        theirs = {future.result() for future in self._ready}
        if theirs != {self.encoder.fingerprint}:
            raise RuntimeError(f"worker processes loaded another encoder (fingerprints {sorted(theirs)}, this "
                               f"process {self.encoder.fingerprint}); encode in one process instead")

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None, show_progress: bool = True) -> np.ndarray:
        """Vectors of `texts` in input order, encoded by the workers (a progress bar with ETA unless turned off)."""
        from sciembed.models.progress import progress_bar

        self.wait_ready()
        texts = list(texts)
        batch = batch_size or self.batch_size
        order = np.argsort([-len(t) for t in texts], kind="stable")
        per_chunk = min(batch * CHUNK_BATCHES, max(batch, math.ceil(len(texts) / (2 * self.processes))))
        chunks = [order[i : i + per_chunk] for i in range(0, len(order), per_chunk)]
        vectors = np.empty((len(texts), self.encoder.dim), dtype=np.float32)
        with progress_bar(f"encoding ({self.processes} processes)", len(texts), enabled=show_progress) as advance:
            futures = {self._pool.submit(_encode_chunk, [texts[i] for i in rows], batch): rows for rows in chunks}
            for future in as_completed(futures):
                rows = futures[future]
                vectors[rows] = future.result()
                advance(len(rows))
        return vectors

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def parallel_encoding(encoder: Any, processes: int) -> Iterator[Any]:
    """`encoder` itself when `processes` ≤ 1, else a `ProcessPoolEncoder` over it (behind the same vector cache
    when `encoder` is a `CachedEncoder`), its workers started now and stopped on leaving."""
    if processes <= 1:
        yield encoder
        return
    from sciembed.models.cache import CachedEncoder

    cached = isinstance(encoder, CachedEncoder)
    inner = encoder.encoder if cached else encoder
    cache_root = encoder.cache.root.parent if cached else None  # where the ONNX exports are, too
    pool = ProcessPoolEncoder(inner, processes, cache_root=cache_root)
    try:
        yield CachedEncoder(pool, cache_root) if cached else pool
    finally:
        pool.close()

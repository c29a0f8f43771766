"""Where a one-paper add spends its time inside a running server (installed by `serve_writes.py --profile`).

Loaded in the server process through a `sitecustomize` (never imported by sciembed itself): it wraps
`Collection.add_papers` and, within an add, the encode (`MicroBatcher.encode`: queue wait + forward
pass), the catalog commit (`Catalog.add`) and the index write lock (waited for, held), and records
every write turn the micro-batcher takes (chunks, texts, write chunks still queued). One JSON line per
add or write turn goes to the file named by ``SCIEMBED_WRITE_TIMING``.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from typing import Any


def install(path: str) -> None:
    from sciembed.ioutil import locks
    from sciembed.models import batching
    from sciembed.retrieval import catalog, collection

    log = open(path, "a", buffering=1)  # noqa: SIM115 - open for the server's life
    local = threading.local()
    lock = threading.Lock()

    def write(record: dict[str, Any]) -> None:
        with lock:
            log.write(json.dumps(record) + "\n")

    def timed(owner: Any, name: str, tag: str) -> None:
        inner = getattr(owner, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                if getattr(local, "parts", None) is not None:
                    local.parts[tag] = local.parts.get(tag, 0.0) + (time.perf_counter() - started) * 1000

        setattr(owner, name, wrapper)

    add_papers = collection.Collection.add_papers

    def timed_add(self: Any, papers: Any) -> Any:
        local.parts, started = {}, time.perf_counter()
        try:
            return add_papers(self, papers)
        finally:
            parts, local.parts = local.parts, None
            write({"add_ms": round((time.perf_counter() - started) * 1000, 1),
                   **{k: round(v, 1) for k, v in parts.items()}})

    collection.Collection.add_papers = timed_add
    timed(batching.MicroBatcher, "encode", "encode_ms")
    timed(catalog.Catalog, "add", "catalog_commit_ms")
    lock_write = locks.ReadWriteLock.write

    @contextlib.contextmanager
    def timed_write(self: Any):
        started = time.perf_counter()
        with lock_write(self):
            got = time.perf_counter()
            yield
            if getattr(local, "parts", None) is not None:
                local.parts["write_lock_wait_ms"] = (got - started) * 1000
                local.parts["write_lock_held_ms"] = (time.perf_counter() - got) * 1000

    locks.ReadWriteLock.write = timed_write
    take = batching.MicroBatcher._take

    def timed_take(self: Any) -> Any:
        jobs = take(self)
        if jobs and not self._write_turn:  # a write turn (a search turn sets the flag for the next one)
            write({"write_turn_chunks": len(jobs), "texts": sum(len(j.texts) for j in jobs),
                   "write_chunks_left_queued": len(self._writes)})
        return jobs

    batching.MicroBatcher._take = timed_take


if os.environ.get("SCIEMBED_WRITE_TIMING"):
    install(os.environ["SCIEMBED_WRITE_TIMING"])

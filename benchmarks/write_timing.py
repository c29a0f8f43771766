"""Where a one-paper add spends its time inside a running server (installed by `serve_writes.py --profile`).

Loaded in the server process through a `sitecustomize` (never imported by sciembed itself): it wraps
`Collection.add_papers` and, within an add, the encode (`MicroBatcher.encode`: queue wait + forward
pass), the catalog commit (`Catalog.add`) and the index write lock (waited for, held), and records
every write turn the micro-batcher takes (chunks, texts, write chunks still queued) and every forward
pass (write or search, texts, ms). One JSON line per add, write turn or pass goes to the file named by
``SCIEMBED_WRITE_TIMING``.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from typing import Any


def install(path: str) -> None:
    from sciembed.index import catalog, collection
    from sciembed.ioutil import locks
    from sciembed.models import batching

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
    worker = threading.local()  # the batcher's worker thread: the kind of the pass it is about to run

    def timed_take(self: Any) -> Any:
        jobs = take(self)
        # jobs that say whether they are a write's; before: a search turn sets the flag for the next one
        writing = bool(jobs[0].write) if jobs and hasattr(jobs[0], "write") else bool(jobs) and not self._write_turn
        worker.kind = "write" if writing else "search"
        if writing:
            write({"write_turn_chunks": len(jobs), "texts": sum(len(j.texts) for j in jobs),
                   "write_chunks_left_queued": len(self._writes)})
        return jobs

    batching.MicroBatcher._take = timed_take
    init = batching.MicroBatcher.__init__

    def timed_init(self: Any, encoder: Any, **kwargs: Any) -> None:
        class Timed:
            def __getattr__(self, item: str) -> Any:
                return getattr(encoder, item)

            def encode(self, texts: Any, **kw: Any) -> Any:
                started = time.perf_counter()
                try:
                    return encoder.encode(texts, **kw)
                finally:
                    write({"pass": getattr(worker, "kind", "?"), "pass_texts": len(texts),
                           "pass_ms": round((time.perf_counter() - started) * 1000, 1)})

        init(self, Timed(), **kwargs)

    batching.MicroBatcher.__init__ = timed_init


if os.environ.get("SCIEMBED_WRITE_TIMING"):
    install(os.environ["SCIEMBED_WRITE_TIMING"])

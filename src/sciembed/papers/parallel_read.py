"""`sciembed corpus ingest --ray`: input files read in parallel Ray tasks, their records handed back in file order.

Each task streams one file's records back in chunks; the driver feeds them, file after file, to the loop that
ingests in one process, so the corpus is the same byte for byte. Up to `ahead` files are read at once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

from sciembed.ioutil.ray_cluster import cluster_cpus, connect, import_ray
from sciembed.papers.readers import Record, read_papers
from sciembed.papers.readers.limits import ReadLimits, using_limits

CHUNK = 500  # records per object sent back by a reading task


def read_file_chunks(path: str, fmt: str, keep_untitled: bool, limits: ReadLimits | None) -> Iterator[list[Record]]:
    """One file's records, in order, in chunks of `CHUNK` (the body of the Ray task)."""
    chunk: list[Record] = []
    with using_limits(limits):
        for record in read_papers(Path(path), fmt, name=path, keep_untitled=keep_untitled):
            chunk.append(record)
            if len(chunk) >= CHUNK:
                yield chunk
                chunk = []
    yield chunk


class RayFileReader:
    """Reads `files` ((path, format) in ingest order) in Ray tasks, `ahead` at a time; `records` returns them
    in that order."""

    def __init__(self, address: str, files: list[tuple[Path, str]], keep_untitled: bool,
                 limits: ReadLimits | None, ahead: int = 0) -> None:
        self.address, self.files, self.keep_untitled, self.limits = address, files, keep_untitled, limits
        self.ahead = ahead
        self._queue: deque[tuple[Path, Any]] = deque()
        self._next = 0
        self._started = False
        self._task: Any = None

    def __enter__(self) -> RayFileReader:
        ray = import_ray()
        self._started = connect(self.address)
        self._task = ray.remote(num_returns="streaming", num_cpus=1)(read_file_chunks)
        self.ahead = self.ahead or 2 * cluster_cpus()
        self._fill()
        return self

    def _fill(self) -> None:
        while len(self._queue) < self.ahead and self._next < len(self.files):
            path, fmt = self.files[self._next]
            self._queue.append((path, self._task.remote(str(path), fmt, self.keep_untitled, self.limits)))
            self._next += 1

    def records(self, path: Path, fmt: str) -> Iterator[Record]:
        """The records of `path`, which must be the next file of `files`."""
        ray = import_ray()
        expected, chunks = self._queue.popleft()
        if expected != path:
            raise RuntimeError(f"files read out of order: asked for {path}, next is {expected}")
        self._fill()
        for ref in chunks:
            yield from ray.get(ref)

    def __exit__(self, *exc: object) -> None:
        ray = import_ray()
        for _, chunks in self._queue:
            with suppress(Exception):  # best effort: the run is ending anyway
                ray.cancel(chunks)
        self._queue.clear()
        if self._started:
            ray.shutdown()

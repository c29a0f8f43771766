"""Rows of an uncompressed Arrow IPC file, memory-mapped: random reads by row number at page cost.

The paper store and CoSAEmb's chunk texts are read through it. A row is a zero-copy slice of the map:
pages come from the shared page cache, and every `RELEASE_ROWS` rows the map is told ``MADV_DONTNEED`` so
resident memory stays flat however long a run reads. Objects pickle as their path (a dataloader worker or
forked child maps the file itself on first use).
"""

from __future__ import annotations

import mmap
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc

from sciembed.ioutil.pids import left_by_dead_process

BATCH_ROWS = 1024  # rows per record batch written: a read finds its batch by binary search over the offsets
STALE_AFTER_S = 300.0  # a partial file of a dead pid untouched this long is a killed run's leftover
RELEASE_ROWS = 2048  # rows read between two MADV_DONTNEED of the map (~40 MB of 20 KB papers)


def partial_of(path: Path) -> Path:
    """The hidden file this process writes `path` into before renaming it: ``.NAME.<pid>.partial`` (killed runs'
    are removed first, `remove_stale_partials`)."""
    remove_stale_partials(path)
    return path.with_name(f".{path.name}.{os.getpid()}.partial")


def remove_stale_partials(path: Path, idle_s: float = STALE_AFTER_S) -> list[Path]:
    """Delete the ``.NAME.<pid>.partial`` files next to `path` whose process no longer runs; the removed. Only
    files untouched for `idle_s` go: on a shared directory a pid may be another host's live writer."""
    removed = []
    for partial in Path(path).parent.glob(f".{Path(path).name}.*.partial"):
        pid = partial.name[len(Path(path).name) + 2:-len(".partial")]
        if not left_by_dead_process(pid):
            continue
        try:
            if time.time() - partial.stat().st_mtime < idle_s:
                continue
            partial.unlink()
        except FileNotFoundError:  # another writer removed it first
            continue
        removed.append(partial)
    return removed


def write_rows(path: Path, schema: pa.Schema, batches: Iterable[pa.RecordBatch]) -> Path:
    """Stream `batches` into `path` (uncompressed IPC file), atomically (a hidden partial, then rename)."""
    partial = partial_of(path)
    with pa.OSFile(str(partial), "wb") as sink, ipc.new_file(sink, schema) as writer:
        for batch in batches:
            writer.write_batch(batch)
    os.replace(partial, path)
    return path


class MappedRows:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._reader: ipc.RecordBatchFileReader | None = None
        self._map: mmap.mmap | None = None
        self._pid: int | None = None
        self._offsets = np.zeros(1, dtype=np.int64)
        self._since_release = 0

    def __getstate__(self) -> dict:
        return {"path": self.path}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["path"])

    def reader(self) -> ipc.RecordBatchFileReader:
        if self._reader is None or self._pid != os.getpid():
            with open(self.path, "rb") as f:
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            self._reader = ipc.open_file(pa.BufferReader(pa.py_buffer(self._map)))
            self._pid = os.getpid()
            self._since_release = 0
            sizes = [self._reader.get_batch(i).num_rows for i in range(self._reader.num_record_batches)]
            self._offsets = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])
        return self._reader

    def __len__(self) -> int:
        self.reader()
        return int(self._offsets[-1])

    def column(self, name: str) -> pa.ChunkedArray:
        """One whole column, zero-copy from the map."""
        reader = self.reader()
        index = reader.schema.get_field_index(name)
        return pa.chunked_array([reader.get_batch(i).column(index) for i in range(reader.num_record_batches)],
                                type=reader.schema.field(index).type)

    def records(self, rows: Sequence[int] | np.ndarray, columns: Sequence[str] | None = None) -> list[dict]:
        """The rows as dicts, in the order asked (rows of one record batch are taken together)."""
        reader = self.reader()
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) and (rows.min() < 0 or rows.max() >= self._offsets[-1]):
            raise IndexError(f"row out of range 0..{int(self._offsets[-1]) - 1} in {self.path}")
        out: list[dict | None] = [None] * len(rows)
        batch_of = np.searchsorted(self._offsets, rows, side="right") - 1
        for b in np.unique(batch_of):
            where = np.flatnonzero(batch_of == b)
            batch = reader.get_batch(int(b))
            if columns is not None:
                batch = batch.select(list(columns))
            for slot, record in zip(where, batch.take(pa.array(rows[where] - self._offsets[b])).to_pylist(),
                                    strict=True):
                out[slot] = record
        self._since_release += len(rows)
        if self._since_release >= RELEASE_ROWS:
            self.release()
        return out  # type: ignore[return-value]

    def release(self) -> None:
        """Unmap the pages read so far from this process (they stay in the page cache; reads still work)."""
        if self._map is not None and self._pid == os.getpid():
            self._map.madvise(mmap.MADV_DONTNEED)
        self._since_release = 0


class MappedTexts(Sequence[str]):
    """A one-column (``text``) mapped file as a sequence of strings; item ``i`` is read when asked for."""

    def __init__(self, path: str | Path) -> None:
        self.rows = MappedRows(path)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [r["text"] for r in self.rows.records(np.arange(len(self))[i])]
        return self.rows.records([int(i)])[0]["text"]

    def __iter__(self) -> Iterator[str]:
        for start in range(0, len(self), BATCH_ROWS):
            yield from (r["text"] for r in self.rows.records(np.arange(start, min(start + BATCH_ROWS, len(self)))))


class TextWriter:
    """Appends texts to a mapped-texts file as they are made; `finish` closes it and maps it back.

    Drop-in for the ``list[str]`` a builder appends to: ``len`` is the next text's id."""

    SCHEMA = pa.schema([("text", pa.large_string())])

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._partial = partial_of(self.path)
        self._sink = pa.OSFile(str(self._partial), "wb")
        self._writer = ipc.new_file(self._sink, self.SCHEMA)
        self._buffer: list[str] = []
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def append(self, text: str) -> None:
        self._buffer.append(text)
        self._count += 1
        if len(self._buffer) >= BATCH_ROWS:
            self._flush()

    def extend(self, texts: Iterable[str]) -> None:
        for text in texts:
            self.append(text)

    def _flush(self) -> None:
        if self._buffer:
            self._writer.write_batch(pa.record_batch([pa.array(self._buffer, pa.large_string())], schema=self.SCHEMA))
            self._buffer = []

    def finish(self) -> MappedTexts:
        self._flush()
        self._writer.close()
        self._sink.close()
        os.replace(self._partial, self.path)
        return MappedTexts(self.path)


class ChainedTexts(Sequence[str]):
    """`base` followed by `extra`: texts appended to a mapped file without copying it into memory."""

    def __init__(self, base: Sequence[str], extra: list[str]) -> None:
        self.base, self.extra = base, extra

    def __len__(self) -> int:
        return len(self.base) + len(self.extra)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[j] for j in range(len(self))[i]]
        i = int(i)
        return self.base[i] if i < len(self.base) else self.extra[i - len(self.base)]

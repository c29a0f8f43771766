"""Papers by row number from a memory-mapped Arrow file: what training reads texts through.

Reading one paper from ``papers.parquet`` decompresses a whole row group, and training needs random papers, so
the store columns are written once as an *uncompressed* Arrow IPC file read through `sciembed.ioutil.mapped_rows`
(zero-copy, shared by workers and ranks); plans hold row numbers, never `Paper`s. The price is disk (~20 KB a
synthetic paper, ~3x the Parquet file). It lives in ``<corpus>/.cache`` when writable, else under
``$SCIEMBED_CACHE_DIR``; a sidecar stamp makes a changed corpus rebuild it, under a file lock.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sciembed.ioutil.mapped_rows import BATCH_ROWS, MappedRows, partial_of, remove_stale_partials, write_rows
from sciembed.papers.io import reading_corpus
from sciembed.papers.model import Paper

STORE_COLUMNS = ("id", "title", "abstract", "sections")
STORE_FILE = "papers.arrow"
STORE_BATCH_ROWS = BATCH_ROWS
CACHE_ENV = "SCIEMBED_CACHE_DIR"


def _stamp(parquet: Path) -> dict[str, int | str]:
    stat = parquet.stat()
    return {"source": str(parquet.resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
            "columns": ",".join(STORE_COLUMNS)}


def store_dir(corpus_root: Path) -> Path:
    """``<corpus>/.cache`` when writable, else a per-corpus folder under the user cache."""
    local = corpus_root / ".cache"
    try:
        local.mkdir(exist_ok=True)
        if os.access(local, os.W_OK):
            return local
    except OSError:
        pass
    base = Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "sciembed")
    key = hashlib.sha1(str(corpus_root.resolve()).encode()).hexdigest()[:16]
    folder = base / "paper-stores" / key
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def build_store(parquet: Path, target: Path) -> Path:
    """Stream `parquet`'s store columns into `target` (uncompressed Arrow IPC), atomically; a damaged Parquet
    file is a `DamagedCorpusError` naming it and the fix, and the partial store is removed."""
    # pre_buffer=False: pyarrow's read coalescing keeps buffered row groups while iter_batches walks them
    # (a first store build of 930,730 papers peaked at 2.7 GB with it, 354 MB without, same speed)
    with reading_corpus(parquet, partial=partial_of(target)):
        source = pq.ParquetFile(parquet, pre_buffer=False)
        schema = pa.schema([source.schema_arrow.field(c) for c in STORE_COLUMNS])
        return write_rows(target, schema, source.iter_batches(batch_size=STORE_BATCH_ROWS, columns=list(STORE_COLUMNS)))


def _store_stamp(target: Path) -> dict[str, int]:
    stat = target.stat()
    return {"store_size": stat.st_size, "store_mtime_ns": stat.st_mtime_ns, "store_ctime_ns": stat.st_ctime_ns,
            "store_inode": stat.st_ino}


def _usable(target: Path, sidecar: Path, stamp: dict[str, int | str]) -> bool:
    """Whether the store on disk is the one built for `stamp`, unchanged since (size, mtime, inode: a checksum
    would read it all at every start), and opens whole (the Arrow footer a file cut short lacks)."""
    try:
        recorded = json.loads(sidecar.read_text())
        if recorded != {**stamp, **_store_stamp(target)}:
            return False
        return len(PaperStore(target)) == recorded.get("rows", -1)
    except (OSError, ValueError, pa.ArrowException):
        return False


def open_store(corpus_root: Path, papers_file: str = "papers.parquet") -> PaperStore:
    """The corpus's store, (re)built when missing, older than its ``papers.parquet``, changed or damaged (partial
    files of killed builds are removed first)."""
    parquet = corpus_root / papers_file
    folder = store_dir(corpus_root)
    target = folder / STORE_FILE
    sidecar = folder / (STORE_FILE + ".json")
    stamp = {**_stamp(parquet), "rows": _rows(parquet)}
    with open(folder / (STORE_FILE + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second rank waits here, then finds the file made
        remove_stale_partials(target)
        if not (target.exists() and sidecar.exists() and _usable(target, sidecar, stamp)):
            sidecar.unlink(missing_ok=True)
            build_store(parquet, target)
            sidecar.write_text(json.dumps({**stamp, **_store_stamp(target)}))
    return PaperStore(target)


def _rows(parquet: Path) -> int:
    """Rows of `parquet` from its footer; a file without a readable footer is a `DamagedCorpusError`."""
    with reading_corpus(parquet):
        return pq.ParquetFile(parquet).metadata.num_rows


class PaperStore(MappedRows):
    """Rows of a store file as `Paper`s (id, title, abstract, sections; other fields empty)."""

    def ids(self) -> pa.ChunkedArray:
        """Every row's id (zero-copy from the map)."""
        return self.column("id")

    def rows_of(self, ids: pa.Array | pa.ChunkedArray | Sequence[str]) -> np.ndarray:
        """Row of each id (−1 where the store has no such id)."""
        found = pc.index_in(ids, value_set=self.ids().combine_chunks())
        return np.asarray(found.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)

    def ids_at(self, rows: np.ndarray) -> list[str]:
        """The ids of `rows` (read from the id column alone)."""
        return self.ids().take(pa.array(np.asarray(rows, dtype=np.int64))).to_pylist()

    def papers(self, rows: Sequence[int] | np.ndarray) -> list[Paper]:
        return [Paper.from_dict(r) for r in self.records(rows)]

    def paper(self, row: int) -> Paper:
        return self.papers([row])[0]

    def iter_papers(self, rows: np.ndarray, chunk: int = STORE_BATCH_ROWS) -> Iterator[Paper]:
        """`rows` in order, read `chunk` at a time (bounded memory for a pass over a split)."""
        for start in range(0, len(rows), chunk):
            yield from self.papers(rows[start:start + chunk])
        self.release()


class StoredPapers(Sequence[Paper]):
    """A split's papers as a sequence: item ``i`` is read from the store at ``rows[i]`` when asked for."""

    def __init__(self, store: PaperStore, rows: np.ndarray) -> None:
        self.store = store
        self.rows = np.asarray(rows, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return StoredPapers(self.store, self.rows[index])
        return self.store.paper(int(self.rows[index]))

    def __iter__(self) -> Iterator[Paper]:
        return self.store.iter_papers(self.rows)

    def take(self, indices: np.ndarray) -> list[Paper]:
        """Several papers with one read per record batch."""
        return self.store.papers(self.rows[np.asarray(indices, dtype=np.int64)])

    def subset(self, indices: np.ndarray) -> StoredPapers:
        return StoredPapers(self.store, self.rows[np.asarray(indices, dtype=np.int64)])

    def ids(self) -> list[str]:
        return self.store.ids_at(self.rows)

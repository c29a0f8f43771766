"""Compaction of a served collection: drop the rows that deletes and replacements left behind.

Live updates never rewrite the faiss index (removed views stay hidden by a selector, added ones are replayed
from the catalog on every start). Compaction writes the live state afresh — an index of the live rows only
(renumbered in order, same kind and training) and a catalog whose rows all live in it — and swaps it in.

The new files are written and fsynced beside the old ones (``*.compact``), then the journal
(``compact.journal``): the commit point. `recover` (run by every `Collection.open`) redoes the renames from a
journal, or removes ``.compact`` leftovers without one: never a mix. Every open `Collection` holds
``collection.lock`` shared, compaction exclusive; a writable one also holds ``writer.lock``.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import asdict, dataclass
from pathlib import Path

from sciembed.index.catalog import CATALOG, SCHEMA, Catalog
from sciembed.index.paper_index import MANIFEST, read_manifest
from sciembed.ioutil.atomic import fsync_dir, fsync_file, write_text_atomic
from sciembed.ioutil.checksums import SEAL, seal, sha256_file
from sciembed.retrieval.dense import IndexLoadError
from sciembed.retrieval.multivector import MultiVectorIndex

JOURNAL = "compact.journal"
LOCK = "collection.lock"
WRITER_LOCK = "writer.lock"
NEW = ".compact"
OLD_INDEX = "index.old"
SWAPPED_FILES = (CATALOG, "papers.json", MANIFEST)
Step = Callable[[str], None]  # called at each step (tests kill the process there)


@dataclass
class CompactionResult:
    rows_before: int
    rows_after: int
    papers: int
    seconds: float

    def to_dict(self) -> dict:
        return asdict(self)


class CollectionBusy(ValueError):
    """Another process has the collection open (a server): compact through it (POST /compact)."""


def _flock(path: Path, name: str, mode: int) -> int:
    """`path / name` opened and locked with `mode` without waiting; BlockingIOError (the file closed) if taken."""
    fd = os.open(path / name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise
    return fd


def lock_collection(path: Path, exclusive: bool) -> int:
    """Take the collection lock (shared for an open collection, exclusive for compaction); returns the fd."""
    try:
        return _flock(Path(path), LOCK, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
    except BlockingIOError as err:
        raise CollectionBusy(f"{path}: the collection is open in another process (a running `sciembed index "
                             "serve`?); compact it through that server (POST /compact) or stop it first") from err


def open_writer_lock(path: Path) -> int:
    """The collection's writer lock, held exclusively for as long as it is open for writing."""
    try:
        return _flock(path, WRITER_LOCK, fcntl.LOCK_EX)
    except BlockingIOError as err:
        raise IndexLoadError(f"{path}: another process (a running `sciembed index serve`?) has this collection open "
                             "for writing; one writer per collection — stop it, or open read-only") from err


def open_lock(path: Path) -> int:
    """The collection lock, held shared while open; an interrupted compaction is settled first (exclusively)."""
    if not path.is_dir():
        raise IndexLoadError(f"{path}: not a directory")
    try:
        fd = _flock(path, LOCK, fcntl.LOCK_EX)
    except BlockingIOError:
        try:
            return _flock(path, LOCK, fcntl.LOCK_SH)  # others have it open (they settled it already)
        except BlockingIOError as err:
            raise IndexLoadError(f"{path}: being compacted by another process; try again when it is done") from err
    recover(path)  # no one else has it open: settle a compaction a killed process left
    fcntl.flock(fd, fcntl.LOCK_SH)
    return fd


def recover(path: str | Path) -> str:
    """Finish or undo an interrupted compaction; returns "none", "rolled_forward" or "rolled_back"."""
    path = Path(path)
    if (path / JOURNAL).is_file():
        _swap(path)
        return "rolled_forward"
    leftovers = [path / f"index{NEW}", path / OLD_INDEX, *(path / f"{name}{NEW}" for name in SWAPPED_FILES)]
    found = [p for p in leftovers if p.exists()]
    for item in found:
        shutil.rmtree(item) if item.is_dir() else item.unlink()
    if found:
        fsync_dir(path)
    return "rolled_back" if found else "none"


def _swap(path: Path, step: Step | None = None) -> None:
    """The renames the journal commits to; each is skipped when already done, so a redo is safe."""
    new_index, index, old_index = path / f"index{NEW}", path / "index", path / OLD_INDEX
    if new_index.is_dir():
        if index.exists() and not old_index.exists():
            index.rename(old_index)
        new_index.rename(index)
        fsync_dir(path)
    if step:
        step("index_swapped")
    for name in SWAPPED_FILES:
        if (path / f"{name}{NEW}").is_file():
            if name == CATALOG:  # the old catalog's WAL was checkpointed before the journal: nothing in it
                for suffix in ("-wal", "-shm"):
                    (path / f"{CATALOG}{suffix}").unlink(missing_ok=True)
            os.replace(path / f"{name}{NEW}", path / name)
    fsync_dir(path)
    if step:
        step("files_swapped")
    (path / JOURNAL).unlink()
    fsync_dir(path)
    if old_index.exists():
        shutil.rmtree(old_index)


def _checkpoint(catalog: Path) -> None:
    """Fold the catalog's WAL into the file and empty it (no other connection may be open)."""
    con = sqlite3.connect(catalog)
    try:
        busy, _, _ = con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            raise CollectionBusy(f"{catalog}: another connection holds the catalog; cannot compact now")
    finally:
        con.close()


def _write_catalog(old: Path, new: Path, live_rows: int) -> int:
    """The compacted catalog: every paper, the live views renumbered in row order, no vectors (all in faiss)."""
    new.unlink(missing_ok=True)
    con = sqlite3.connect(new)
    try:
        con.executescript(SCHEMA)
        con.execute("ATTACH DATABASE ? AS old", (str(old),))
        with con:
            con.execute("INSERT INTO papers SELECT * FROM old.papers")
            con.execute("INSERT INTO live_papers SELECT * FROM old.live_papers")  # still live for the companions
            con.execute("INSERT INTO pending SELECT * FROM old.pending")  # queued adds stay queued
            con.execute("INSERT INTO views (row, paper_id, kind, section, text, vector, removed) "
                        "SELECT ROW_NUMBER() OVER (ORDER BY row) - 1, paper_id, kind, section, text, NULL, 0 "
                        "FROM old.views WHERE removed = 0")
            rows = int(con.execute("SELECT count(*) FROM views").fetchone()[0])
            if rows != live_rows:
                raise IndexLoadError(f"{old}: catalog has {rows} live views, the index {live_rows}; not compacting")
            con.execute("INSERT INTO meta VALUES ('base_rows', ?)", (str(rows),))
        con.execute("DETACH DATABASE old")
    finally:
        con.close()
    fsync_file(new)
    return rows


def compact_collection(path: str | Path, index: MultiVectorIndex, *, step: Step | None = None
                       ) -> tuple[MultiVectorIndex, CompactionResult]:
    """The compacted index (rows renumbered) of the collection at `path` whose live index is `index`, and what
    changed. The caller holds the collection lock exclusively and has closed every catalog connection."""
    path = Path(path)
    started = time.perf_counter()
    recover(path)
    manifest = read_manifest(path)
    catalog = path / CATALOG
    _checkpoint(catalog)
    compacted = index.compacted()
    new_index = path / f"index{NEW}"
    if new_index.exists():
        shutil.rmtree(new_index)
    compacted.save(new_index, index.fingerprint or manifest["encoder"]["fingerprint"])
    for item in new_index.iterdir():
        if item.is_file():
            fsync_file(item)
    fsync_dir(new_index)
    if step:
        step("index_written")
    _write_catalog(catalog, path / f"{CATALOG}{NEW}", compacted.num_views)
    with closing(Catalog(path / f"{CATALOG}{NEW}")) as check:
        titles = check.titles()
    _checkpoint(path / f"{CATALOG}{NEW}")
    for suffix in ("-wal", "-shm"):
        (path / f"{CATALOG}{NEW}{suffix}").unlink(missing_ok=True)
    write_text_atomic(path / f"papers.json{NEW}", json.dumps(titles, ensure_ascii=False))
    if step:
        step("catalog_written")
    result = CompactionResult(index.num_views, compacted.num_views, len(compacted), 0.0)
    record = {k: v for k, v in manifest.items() if k != SEAL}
    record["compactions"] = [*record.get("compactions", []),
                             {"rows_before": result.rows_before, "rows_after": result.rows_after,
                              "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}]
    record["sha256"] = {"papers.json": sha256_file(path / f"papers.json{NEW}"),
                        "index/meta.json": sha256_file(new_index / "meta.json")}
    write_text_atomic(path / f"{MANIFEST}{NEW}", json.dumps(seal(record), indent=2))
    write_text_atomic(path / JOURNAL, json.dumps({"swap": ["index", *SWAPPED_FILES]}))  # the commit point
    fsync_dir(path)
    if step:
        step("journal_written")
    _swap(path, step)
    result.seconds = round(time.perf_counter() - started, 3)
    return compacted, result


def compact_dir(path: str | Path, step: Step | None = None) -> CompactionResult:
    """Compact a collection no process has open (`sciembed index compact DIR`)."""
    from sciembed.index.live_index import load_live_index

    path = Path(path)
    fd = lock_collection(path, exclusive=True)
    try:
        recover(path)
        return compact_collection(path, load_live_index(path), step=step)[1]
    finally:
        os.close(fd)

"""The collection's file locks: shared while it is open, exclusive for its one writer."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from sciembed.retrieval.dense import IndexLoadError

WRITER_LOCK = "writer.lock"


def open_writer_lock(path: Path) -> int:
    """The collection's writer lock, held exclusively for as long as it is open for writing."""
    fd = os.open(path / WRITER_LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as err:
        os.close(fd)
        raise IndexLoadError(f"{path}: another process (a running `sciembed index serve`?) has this collection open "
                             "for writing; one writer per collection — stop it, or open read-only") from err
    return fd


def open_lock(path: Path) -> int:
    """The collection lock, held shared while open; an interrupted compaction is settled first (exclusively)."""
    from sciembed.index.compaction import LOCK, recover

    if not path.is_dir():
        raise IndexLoadError(f"{path}: not a directory")
    fd = os.open(path / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        recover(path)  # no one else has it open: settle a compaction a killed process left
        fcntl.flock(fd, fcntl.LOCK_SH)
    except BlockingIOError:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # others have it open (they settled it already)
        except BlockingIOError as err:
            os.close(fd)
            raise IndexLoadError(f"{path}: being compacted by another process; try again when it is done") from err
    return fd

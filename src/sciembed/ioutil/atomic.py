"""Outputs that appear whole or not at all, one writer at a time.

A command builds its output under a hidden ``.NAME.partial-XXXX`` beside the target and renames it into
place when everything, manifest last, is written: a killed run leaves the previous output or a partial no
stage reads. A lock file (``.NAME.lock``, `fcntl.flock`, released even on SIGKILL) makes a second run on
the same output fail at once.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from sciembed.errors import SciembedInputError

_UMASK = os.umask(0o022)  # read once (os.umask can only be read by setting it) and put back
os.umask(_UMASK)

MARKER = "manifest.json"  # written last by every stage: its presence means "finished"


class OutputError(SciembedInputError, ValueError):
    """The output location cannot be used (locked, exists, not writable); the message says why."""


def lock_path(out: Path) -> Path:
    return out.parent / f".{out.name}.lock"


@contextmanager
def output_lock(out: Path) -> Iterator[None]:
    """Hold an exclusive lock on `out` for the duration; fail at once if another run holds it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        handle = os.open(lock_path(out), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as err:
        raise OutputError(f"{out}: cannot create the lock file {lock_path(out)} ({err.strerror})") from err
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as err:
            raise OutputError(f"{out}: another sciembed run is writing here (lock {lock_path(out)} is held)") from err
        yield
    finally:
        os.close(handle)  # closing releases the lock


def check_writable(directory: Path) -> None:
    """Fail before long work when `directory` (or the parent it would be created in) cannot be written."""
    probe_dir = directory
    while not probe_dir.exists() and probe_dir != probe_dir.parent:
        probe_dir = probe_dir.parent
    if not probe_dir.is_dir():
        raise OutputError(f"{directory}: {probe_dir} is not a directory")
    try:
        with tempfile.TemporaryFile(dir=probe_dir):
            pass
    except OSError as err:
        raise OutputError(f"{directory}: cannot write in {probe_dir} ({err.strerror})") from err


def refuse_links(directory: Path, limit: int = 100_000) -> None:
    """Refuse an existing output directory holding symbolic links: writing its usual file names would follow them
    (a planted ``out/papers.json`` link made `index --out` write outside it). For commands writing in place; at
    most `limit` entries are looked at."""
    directory = Path(directory)
    if not directory.is_dir():
        return
    seen = 0
    for root, dirs, names in os.walk(directory):  # os.walk does not descend into linked directories
        for name in dirs + names:
            path = Path(root) / name
            if path.is_symlink():
                raise OutputError(f"{directory}: holds the symbolic link {path} -> {os.readlink(path)}; "
                                  "refusing to write through it (remove it or choose another directory)")
            seen += 1
            if seen >= limit:
                return


def _is_sciembed_output(path: Path) -> bool:
    return (path / MARKER).is_file() or not any(path.iterdir())


@contextmanager
def staged_dir(out: Path, overwrite: bool = False,
               replaceable: Callable[[Path], bool] = _is_sciembed_output) -> Iterator[Path]:
    """Yield a fresh temporary directory that replaces `out` when the block ends without an error.

    Refuses an existing non-empty `out` unless `overwrite`, and even then one `replaceable` rejects (by default
    one without a manifest: a home directory, a dataset). On an error `out` is untouched."""
    out = Path(out)
    check_writable(out.parent)
    with output_lock(out):
        if out.exists() and not out.is_dir():
            raise OutputError(f"{out}: exists and is not a directory")
        if out.exists() and any(out.iterdir()):
            if not overwrite:
                raise OutputError(f"{out}: already exists; pass --overwrite to replace it")
            if not replaceable(out):
                raise OutputError(f"{out}: holds files but no {MARKER}; not replacing what sciembed did not write")
        _remove_stale(out)
        temp = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
        try:
            yield temp
        except BaseException:
            shutil.rmtree(temp, ignore_errors=True)
            raise
        publish(temp, out)


def publish(temp: Path, out: Path) -> None:
    """Move a finished temporary directory to `out` (renames only; the old output goes last)."""
    fsync_dir(temp)
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.rename(out, old / out.name)
        os.rename(temp, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(temp, out)
    fsync_dir(out.parent)


def _remove_stale(out: Path) -> None:
    """Remove killed runs' partial / old directories (the lock says none runs now); a previous output left under
    ``.NAME.old-*`` by a run killed between its two renames is put back first."""
    for old in sorted(out.parent.glob(f".{out.name}.old-*")):
        if not out.exists() and (old / out.name).is_dir():
            os.rename(old / out.name, out)
    for pattern in (f".{out.name}.partial-*", f".{out.name}.old-*"):
        for stale in out.parent.glob(pattern):
            shutil.rmtree(stale, ignore_errors=True)


def fsync_dir(path: Path) -> None:
    """Make a rename inside `path` durable (best effort: some filesystems refuse a directory fsync)."""
    try:
        handle = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def fsync_file(path: Path) -> None:
    """Make a file's written bytes durable (before a rename or a journal step that relies on them)."""
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


@contextmanager
def atomic_file(path: Path, binary: bool = False) -> Iterator[IO[Any]]:
    """A handle on a temporary sibling that replaces `path` (fsync, then `os.replace`) when the block ends: readers
    see the old file or the new one, never half; on an error `path` is untouched."""
    path = Path(path)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.fchmod(fd, 0o666 & ~_UMASK)  # mkstemp makes 0600; the output gets the usual permissions
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_jsonl_atomic(path: Path, records: Iterable[dict[str, Any]]) -> int:
    """One JSON object per line (UTF-8, not ASCII-escaped), streamed, replacing `path` whole; returns the count."""
    n = 0
    with atomic_file(path) as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            n += 1
    return n


def write_text_atomic(path: Path, text: str) -> None:
    """Write a file through a temporary sibling and `os.replace`, so readers see old or new, never half."""
    with atomic_file(path) as handle:
        handle.write(text)

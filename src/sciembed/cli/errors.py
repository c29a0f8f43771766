"""The last line of defence of the `sciembed` command: bad input, damaged files and full disks exit 2 with one line.

Commands turn the input problems they expect into messages themselves; what remains (sciembed's input
errors a command did not catch, damaged files deep in a stage, a full disk or read-only directory) must
not end in a traceback or exit 1 either. The guard sits in the root click group's `invoke`
(`GuardedGroup`), so the script, ``python -m sciembed.cli.main`` and `CliRunner` all pass through it.
"""

from __future__ import annotations

import errno
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import typer
from typer.core import TyperGroup

from sciembed.errors import SciembedInputError

DISK_ERRORS = {errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EDQUOT, errno.EPERM, errno.EIO}
PATH_ERRORS = {errno.ENOENT, errno.EEXIST, errno.ENOTDIR, errno.EISDIR, errno.ENAMETOOLONG, errno.ELOOP}


def fail(message: str) -> NoReturn:
    """The one way a command reports bad input: ``error: <message>`` on stderr (markup escaped, no emoji codes:
    ``file:100:`` stays text), exit code 2."""
    from rich.console import Console
    from rich.markup import escape

    Console(stderr=True, soft_wrap=True, emoji=False).print(f"[red]error:[/red] {escape(message)}", highlight=False)
    raise typer.Exit(2)


def known_errors() -> tuple[type[Exception], ...]:
    """What a search or serving command turns into one `fail` line: sciembed's input errors and bad values."""
    return SciembedInputError, ValueError


@contextmanager
def failing(*errors: type[Exception]) -> Iterator[None]:
    """One of `errors` (default: `known_errors()`) raised in the block is one `fail` line (a KeyError: its key)."""
    caught = errors or known_errors()
    try:
        yield
    except caught as err:
        fail(str(err.args[0]) if isinstance(err, KeyError) and err.args else str(err))


def is_input_error(err: BaseException) -> bool:
    """Whether `err` is one of sciembed's own input errors (any `SciembedInputError`)."""
    return isinstance(err, SciembedInputError)


def data_error_message(err: BaseException) -> str | None:
    """A one-line message for bad input, a damaged file or a failing disk; None for anything else (a real bug).

    An Arrow or DuckDB error can only come from a process that imported them: they are not imported here
    (a `fail` exit of a light command, `index search --server`, passes through this too)."""
    pa, duckdb = sys.modules.get("pyarrow"), sys.modules.get("duckdb")
    if is_input_error(err):
        return str(err).strip().replace("\n", " ") or type(err).__name__
    if isinstance(err, OSError) and err.errno in DISK_ERRORS | PATH_ERRORS:
        where = f" ({err.filename})" if err.filename else ""
        return f"cannot write or read a file{where}: {err.strerror}"
    if isinstance(err, UnicodeDecodeError):
        return f"a file is not valid UTF-8 (byte {err.start}): {err.reason}"
    if (pa is not None and isinstance(err, pa.ArrowException)) or (isinstance(err, OSError) and err.errno is None
                                                                    and _raised_in_pyarrow(err)):
        return f"a Parquet / Arrow file is damaged or not what it should be: {' '.join(str(err).split())}"
    if duckdb is not None and isinstance(err, duckdb.Error):
        return f"DuckDB could not read its input (a damaged or unexpected file?): {str(err).splitlines()[0]}"
    if isinstance(err, sqlite3.DatabaseError):
        return f"an SQLite file (embedding or LLM cache) is damaged: {err}"
    return None


def _raised_in_pyarrow(err: BaseException) -> bool:
    """Whether the innermost frame of `err` is pyarrow's: its damaged-file errors are plain OSErrors
    ("Couldn't deserialize thrift", "Unexpected end of stream") without an errno."""
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and "pyarrow" in tb.tb_frame.f_code.co_filename


class GuardedGroup(TyperGroup):
    """The root click group: an input or disk error escaping a command prints one line and exits 2."""

    def invoke(self, ctx: Any) -> Any:  # typer >= 0.29 vendors click: its Context, not click's
        try:
            return super().invoke(ctx)
        except Exception as err:  # typer.Exit and click's UsageError get None: re-raised
            message = data_error_message(err)
            if message is None:
                raise
            typer.echo(f"error: {message}", err=True)
            raise typer.Exit(2) from err


class GuardedTyper(typer.Typer):
    """A Typer app whose root group is `GuardedGroup`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("cls", GuardedGroup)
        super().__init__(*args, **kwargs)

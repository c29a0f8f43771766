"""One rich progress bar for long loops (encoding, indexing), drawn on stderr (plain lines when redirected)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from sciembed.ioutil.progress import make_progress


@contextmanager
def progress_bar(description: str, total: int, *, enabled: bool = True) -> Iterator[Callable[[int], None]]:
    """Yields `advance(n)`; draws nothing when disabled or when there is nothing to do."""
    if not enabled or total <= 0:
        yield lambda n: None
        return
    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TimeRemainingColumn())
    with make_progress(*columns, console=Console(stderr=True), transient=False) as progress:  # plain lines in logs
        task = progress.add_task(description, total=total)
        yield lambda n: progress.advance(task, n)

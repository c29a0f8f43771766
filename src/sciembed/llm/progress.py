"""A rich progress bar for LLM calls that also shows the tokens used so far (stderr)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from sciembed.ioutil.progress import make_progress


@contextmanager
def token_progress(description: str, total: int, *, enabled: bool = True) -> Iterator[Callable[[int, int], None]]:
    """Yields ``advance(requests, tokens)``; draws nothing when disabled or when there is nothing to do."""
    if not enabled or total <= 0:
        yield lambda n, tokens: None
        return
    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[tokens]:,} tokens"), TimeElapsedColumn(), TimeRemainingColumn())
    with make_progress(*columns, console=Console(stderr=True), transient=False) as progress:
        task = progress.add_task(description, total=total, tokens=0)
        tokens = 0
        lock = threading.Lock()  # advanced from the client's worker threads

        def advance(n: int, used: int) -> None:
            nonlocal tokens
            with lock:
                tokens += used
                progress.update(task, advance=n, tokens=tokens)

        yield advance

"""Progress for logs: when output is not a terminal, rich bars print nothing, so print plain lines.

`make_progress` is rich's `Progress` on a terminal, else `LogProgress` (the same calls), which prints
``"<task>: 1,200/5,000 (24%) … elapsed 31 s, ETA 1 min 38 s"`` on stderr when a task starts, at most every
`PLAIN_EVERY_S` seconds ($SCIEMBED_PROGRESS_EVERY_S, default 10) and when it ends.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any


def _every_s() -> float:
    try:
        return max(0.0, float(os.environ.get("SCIEMBED_PROGRESS_EVERY_S", "10")))
    except ValueError:
        return 10.0


PLAIN_EVERY_S = _every_s()


def is_terminal() -> bool:
    return sys.stderr.isatty() or sys.stdout.isatty()


class PlainProgress:
    """Prints `"<stage>: <status>"` at most every `every_s` seconds, and once at the end."""

    def __init__(self, stage: str, every_s: float | None = None) -> None:
        self.stage = stage
        self.every_s = PLAIN_EVERY_S if every_s is None else every_s
        self._last = time.monotonic()
        self._status = ""

    def tick(self, status: str) -> None:
        self._status = status
        now = time.monotonic()
        if now - self._last >= self.every_s:
            self._last = now
            print(f"{self.stage}: {status}", flush=True)

    def done(self) -> None:
        if self._status:
            print(f"{self.stage}: done, {self._status}", flush=True)


class _Task:
    def __init__(self, description: str, total: float | None, completed: float, fields: dict[str, Any]) -> None:
        self.description, self.total, self.completed, self.fields = description, total, completed, fields
        self.start = time.monotonic()
        self.last_line = 0.0
        self.finished = False


class LogProgress:
    """rich.progress.Progress's calls, printed as plain periodic lines on stderr (for logs and pipes)."""

    def __init__(self, *columns: Any, every_s: float | None = None, **kwargs: Any) -> None:
        self.every_s = PLAIN_EVERY_S if every_s is None else every_s
        self._tasks: dict[int, _Task] = {}
        # The first text column names the task ("[bold]corpus build[/] {task.description}").
        self._name_format = next((c.text_format for c in columns if isinstance(getattr(c, "text_format", None), str)),
                                 "{task.description}")

    def __enter__(self) -> LogProgress:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        pass

    def stop(self) -> None:
        for task in self._tasks.values():
            if not task.finished:
                complete = task.total is None or task.completed >= task.total
                self._line(task, "done, " if complete else "stopped, ")  # an error ends a stage early
                task.finished = True

    def add_task(self, description: str, total: float | None = None, completed: float = 0, **fields: Any) -> int:
        task_id = len(self._tasks)
        task = self._tasks[task_id] = _Task(description, total, completed, fields)
        self._line(task, "started, ")
        return task_id

    def update(self, task_id: int, *, completed: float | None = None, advance: float | None = None,
               description: str | None = None, total: float | None = None, **fields: Any) -> None:
        task = self._tasks[task_id]
        if description is not None:
            task.description = description
        if total is not None:
            task.total = total
        if completed is not None:
            task.completed = completed
        if advance:
            task.completed += advance
        task.fields.update({k: v for k, v in fields.items() if k not in ("visible", "refresh")})
        if time.monotonic() - task.last_line >= self.every_s:
            self._line(task)

    def advance(self, task_id: int, advance: float = 1) -> None:
        self.update(task_id, advance=advance)

    def _line(self, task: _Task, prefix: str = "") -> None:
        task.last_line = time.monotonic()
        done = f"{task.completed:,.0f}"
        if task.total:
            done += f"/{task.total:,.0f} ({100 * task.completed / task.total:.0f}%)"
        fields = "".join(f", {k} {v}" for k, v in task.fields.items() if v not in ("", None))
        name = self._name(task)
        elapsed = task.last_line - task.start
        print(f"{name}: {prefix}{done}{fields}, elapsed {elapsed:.0f} s{eta(task, elapsed)}", file=sys.stderr,
              flush=True)

    def _name(self, task: _Task) -> str:
        from types import SimpleNamespace

        from rich.text import Text

        try:
            markup = self._name_format.format(task=SimpleNamespace(description=task.description, fields=task.fields))
            return Text.from_markup(markup).plain.strip() or "progress"
        except (KeyError, AttributeError, IndexError, ValueError):
            return task.description or "progress"


def eta(task: _Task, elapsed: float) -> str:
    """", ETA 2 min 05 s" from the rate so far (empty before any progress, without a total, or when done)."""
    if not task.total or task.completed <= 0 or task.completed >= task.total or elapsed <= 0:
        return ""
    left = round(elapsed * (task.total - task.completed) / task.completed)
    return f", ETA {left // 60} min {left % 60:02d} s" if left >= 60 else f", ETA {left} s"


def make_progress(*columns: Any, **kwargs: Any) -> Any:
    """A rich Progress on a terminal, a LogProgress (same calls, plain lines) when output is redirected."""
    if is_terminal():
        from rich.progress import Progress

        return Progress(*columns, **kwargs)
    return LogProgress(*columns, **kwargs)

"""Progress for logs: when output is not a terminal, rich bars print nothing, so print plain lines."""

from __future__ import annotations

import sys
import time


def is_terminal() -> bool:
    return sys.stderr.isatty() or sys.stdout.isatty()


class PlainProgress:
    """Prints `"<stage>: <status>"` at most every `every_s` seconds, and once at the end."""

    def __init__(self, stage: str, every_s: float = 10.0) -> None:
        self.stage = stage
        self.every_s = every_s
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

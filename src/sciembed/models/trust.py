"""Whether a model's own Python code may run: the user's choice at run time, never a file's.

A manifest's recorded `trust_remote_code` is editable by anyone who can write the index, so loading asks
the person running the command: ``--trust-remote-code`` (held in `trusting_code`) or
``SCIEMBED_TRUST_REMOTE_CODE=1``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

TRUST_ENV = "SCIEMBED_TRUST_REMOTE_CODE"
_TRUE = {"1", "true", "yes", "on"}
_given: ContextVar[bool] = ContextVar("sciembed_trust_remote_code", default=False)


def run_time_trust() -> bool:
    """Whether the user trusts model code in this run: `trusting_code(True)` or $SCIEMBED_TRUST_REMOTE_CODE."""
    return _given.get() or os.environ.get(TRUST_ENV, "").strip().lower() in _TRUE


@contextmanager
def trusting_code(trusted: bool) -> Iterator[None]:
    """Hold a command's ``--trust-remote-code`` choice while it runs (False leaves the environment's say)."""
    token = _given.set(bool(trusted) or _given.get())
    try:
        yield
    finally:
        _given.reset(token)

"""Whether a model's own Python code may run: the user's choice at run time, never a file's.

An index manifest records the `trust_remote_code` its builder chose, but a
manifest is a file anyone with write access to the index can edit (and its seal
is an unkeyed checksum that can be recomputed or deleted). Loading the encoder
an index names therefore asks the person running the command: the
``--trust-remote-code`` flag (held in `trusting_code` for the command's
duration) or ``SCIEMBED_TRUST_REMOTE_CODE=1`` in the environment.
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

"""kind ``scirepeval``: SciRepEval's tasks (a subset with ``tasks``)."""

from __future__ import annotations

from typing import Any


def load(entry: Any, context: Any) -> Any:
    from sciembed.evaluation.scirepeval import load_scirepeval

    return load_scirepeval(entry.resolved_path(), entry.tasks)

"""kind ``scirepeval``: SciRepEval's tasks (a subset with ``tasks``); ``s2and_results``: S2AND's own pipeline's
experiment folder for the model, whose B³ F1 replaces the embedding-only S2AND figure in the averages."""

from __future__ import annotations

from typing import Any


def load(entry: Any, context: Any) -> Any:
    from sciembed.evaluation.scirepeval import load_scirepeval

    return load_scirepeval(entry.resolved_path(), entry.tasks, s2and_results=entry.s2and_results)

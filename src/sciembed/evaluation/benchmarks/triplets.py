"""kind ``triplets``: (query, positive, negative) triplets."""

from __future__ import annotations

from typing import Any


def load(entry: Any, context: Any) -> Any:
    from sciembed.evaluation.triplets import load_triplets

    return load_triplets(entry.resolved_path(), seed=entry.seed)

"""kind ``csfcube``: CSFCube, queries as whole abstracts or as facets (``query_mode``)."""

from __future__ import annotations

from typing import Any


def load(entry: Any, context: Any) -> Any:
    from sciembed.evaluation.csfcube import QUERY_MODES, load_csfcube
    from sciembed.evaluation.issues import BenchmarkError

    mode = entry.query_mode or "abstract"
    if mode not in QUERY_MODES:
        raise BenchmarkError(f"benchmark {entry.name}: query_mode {mode!r}; csfcube takes {', '.join(QUERY_MODES)}")
    return load_csfcube(entry.resolved_path(), mode)

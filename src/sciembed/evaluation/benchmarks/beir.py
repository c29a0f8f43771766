"""kind ``beir``: a BEIR folder as one full-collection retrieval task."""

from __future__ import annotations

from typing import Any

from sciembed.evaluation.benchmarks.adapters import BeirAdapter


def load(entry: Any, context: Any) -> BeirAdapter:
    from sciembed.evaluation.beir import load_beir

    path = entry.resolved_path()
    return BeirAdapter({path.name: load_beir(path, entry.split)}, entry.name, relevant_min=entry.relevant_min)

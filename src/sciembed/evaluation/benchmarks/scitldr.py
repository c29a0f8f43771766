"""kind ``scitldr``: SciTLDR's three real-text tasks, written once as BEIR folders under the work directory."""

from __future__ import annotations

from typing import Any

from sciembed.evaluation.benchmarks.adapters import BeirAdapter, scitldr_adapter


def load(entry: Any, context: Any) -> BeirAdapter:
    from sciembed.ioutil.names import slug

    return scitldr_adapter(entry.resolved_path(), context.workdir / "data" / slug(entry.name), entry.name)

"""kind ``scitldr``: SciTLDR's three real-text tasks, written once as BEIR folders under the work directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sciembed.evaluation.benchmarks.beir import BeirAdapter


def scitldr_adapter(source: Path, workdir: Path, name: str) -> BeirAdapter:
    """SciTLDR's real-text tasks (`sciembed.evaluation.scitldr`), written once under `workdir`."""
    from sciembed.evaluation.beir import load_beir
    from sciembed.evaluation.scitldr import TASKS, write_scitldr_beir

    manifest_path = workdir / "manifest.json"
    written = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
    if written.get("source") != str(source.resolve()) or set(written.get("tasks", {})) != set(TASKS):
        write_scitldr_beir(source, workdir)
    manifest = json.loads(manifest_path.read_text())
    folders = {task: load_beir(workdir / task) for task in TASKS}
    return BeirAdapter(folders, name, kind="scitldr",
                       extra={"source": str(source), "read": manifest["read"], "accepted": manifest["accepted"],
                              "rejected": manifest["rejected"]})


def load(entry: Any, context: Any) -> BeirAdapter:
    from sciembed.ioutil.names import slug

    return scitldr_adapter(entry.resolved_path(), context.workdir / "data" / slug(entry.name), entry.name)

"""Experiments above evaluation and training: studies and the demo (nothing below imports them)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def run_suite_file(path: Path, suite: dict[str, Any], say: Callable[[str], None], *, keep_going: bool = True,
                   allow_unicode: bool = False) -> Any:
    """Write `suite` as YAML at `path` (`sciembed eval suite` re-reports it), run it and write its report."""
    import yaml

    from sciembed.evaluation.bench import load_suite, run_suite, write_suite_report

    path.write_text(yaml.safe_dump(suite, sort_keys=False, allow_unicode=allow_unicode))
    run = run_suite(load_suite(path), say=say, keep_going=keep_going)
    write_suite_report(run)
    return run

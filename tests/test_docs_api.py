"""docs/api.md's "Load an index and search it" block runs as written (issue 31, item 8)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def block(heading: str) -> str:
    """The first ```python block after `heading` in docs/api.md."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index(heading):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.mark.slow
def test_load_an_index_and_search_it(shared_data, tmp_path, monkeypatch, capsys):
    code = block("## Load an index and search it").replace("../shared/data", str(shared_data))
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(code, str(DOC), "exec"), scope)  # the documentation's own example
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 5 and all(re.match(r"^\d\.\d{3}  \S+  \S", line) for line in printed)
    assert "Exoplanet" in printed[0] or "exoplanet" in " ".join(printed).lower()  # on topic
    assert len(scope["similar"]) == 3 and "2212.11816" not in [pid for pid, _ in scope["similar"]]
    assert (tmp_path / "runs" / "ux-index" / "manifest.json").is_file()

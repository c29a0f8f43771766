from __future__ import annotations

from pathlib import Path

import pytest

from sciembed.llm import PromptError, available_prompts, load_prompt


def test_bundled_templates_load_and_render() -> None:
    assert {"semcse_continuation.v1", "semantic_query.v1"} <= set(available_prompts())
    template = load_prompt("semcse_continuation")
    assert template.kind == "completion" and template.variables == {"title", "abstract", "stem"}
    assert template.render_prompt({"title": "T", "abstract": "A {json} $5.", "stem": "In summary,"}) == \
        "T\nA {json} $5.\n\nIn summary,"
    assert len(template.sha256) == 64


def test_missing_variable_and_wrong_kind() -> None:
    template = load_prompt("semcse_continuation")
    with pytest.raises(PromptError, match="no value for stem"):
        template.render_prompt({"title": "T", "abstract": "A"})
    with pytest.raises(PromptError, match="not a chat one"):
        template.render_messages({})


def test_unknown_prompt_and_bad_file(tmp_path: Path) -> None:
    with pytest.raises(PromptError, match="no prompt template 'nope'"):
        load_prompt("nope")
    with pytest.raises(PromptError, match="has no version 9"):
        load_prompt("semcse_continuation", version=9)
    bad = tmp_path / "mine.v2.yaml"
    bad.write_text("kind: chat\nsystem: only a system\n")
    with pytest.raises(PromptError, match=r"mine\.v2\.yaml: a chat template needs a 'user' string"):
        load_prompt(str(bad))

"""Paper-to-paper config: defaults run offline (prism_llm only with LLM queries, issue 25); choice fields checked."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from sciembed.evaluation.p2p_run import METHODS, load_p2p_config


def test_default_methods_leave_out_prism_llm_without_queries(tmp_path) -> None:
    assert "prism_llm" not in load_p2p_config(None).methods
    queries = tmp_path / "queries.jsonl"
    queries.write_text("")
    assert load_p2p_config(None, queries_file=queries).methods == list(METHODS)
    assert load_p2p_config(None, methods=["a2a", "prism_llm"]).methods == ["a2a", "prism_llm"]  # asked for: kept


def test_choice_fields_name_the_field_and_its_choices() -> None:
    with pytest.raises(ValidationError, match=r"unknown prism_views 'x'; expected one of pieces, segments"):
        load_p2p_config(None, prism_views="x")
    with pytest.raises(ValidationError, match=r"unknown fusion 'x'; expected one of rrf, naive, max_sim"):
        load_p2p_config(None, fusion="x")
    config = load_p2p_config(None, prism_views="segments", fusion="max_sim")
    assert (config.prism_views, config.fusion) == ("segments", "max_sim")

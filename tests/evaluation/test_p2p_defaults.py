"""Paper-to-paper defaults run offline: prism_llm only when LLM queries are given (issue 25)."""

from __future__ import annotations

from sciembed.evaluation.p2p_run import METHODS, load_p2p_config


def test_default_methods_leave_out_prism_llm_without_queries(tmp_path) -> None:
    assert "prism_llm" not in load_p2p_config(None).methods
    queries = tmp_path / "queries.jsonl"
    queries.write_text("")
    assert load_p2p_config(None, queries_file=queries).methods == list(METHODS)
    assert load_p2p_config(None, methods=["a2a", "prism_llm"]).methods == ["a2a", "prism_llm"]  # asked for: kept

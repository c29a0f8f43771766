"""The demo's stages with a tiny model on a synthetic corpus; its real-corpus slice and refusals."""

from __future__ import annotations

import json

import pytest

from sciembed.experiments.demo import (
    ACL_TEI,
    DemoConfig,
    DemoError,
    real_text_lines,
    run_demo,
    significance_lines,
    source_files,
)


def test_demo_trains_and_tests_the_trained_model_against_the_base(tmp_path, tiny_bert):
    overrides = {"model.base": str(tiny_bert), "training.max_steps": 2, "model.max_seq_length": 32,
                 "training.gradient_checkpointing": False}
    words = ["alpha", "beta", "gamma", "delta"]  # a SciTLDR-shaped dev file for the real-text check
    scitldr = tmp_path / "dev.jsonl"
    scitldr.write_text("".join(json.dumps({"paper_id": f"p{i}", "title": f"{w} title", "source": [f"{w} one.",
                                           f"{w} two."], "target": [f"{w} tldr"]}) + "\n" for i, w in enumerate(words)))
    result = run_demo(DemoConfig(out=tmp_path / "demo", synthetic=150, base_model=str(tiny_bert),
                                 eval_max_seq_length=64, train_overrides=overrides, real_text=scitldr),
                      say=lambda _: None)
    assert [r.model.split(" (")[0] for r in result.cells][-1] == "bm25"
    assert len(result.cells) == 3 and result.synthetic
    columns = [row["column"] for row in result.significance]
    assert columns == ["TA→TA", "Body→TA (windowed)", "Body→Body (windowed)"]
    assert all(row["n"] > 0 and 0 <= row["p"] <= 1 for row in result.significance)
    lines = significance_lines(result.significance)
    assert lines[0].startswith("trained vs base") and len(lines) == 4
    assert "64 tokens" in result.cells[1].model  # the trained model is read at the base's budget
    # the evaluation report is the suite writer's, the base first: what the console table shows, ×100
    assert result.report == result.paths["eval"] / "report.md"
    saved = json.loads((result.paths["eval"] / "results.json").read_text())
    citation = [c for c in saved["cells"] if c["benchmark"] == "citation"]
    assert [c["model"] for c in citation] == [r.model for r in result.cells]
    assert {s["baseline"] for s in saved["significance"]} == {result.cells[0].model}
    [ta_ta] = [r for r in citation[1]["results"] if r["task"] == "ta_ta"]
    assert ta_ta["metrics"]["ndcg@10"] == pytest.approx(result.cells[1].result("ta_ta").metrics["ndcg@10"])
    assert result.significance[0]["trained"] == pytest.approx(ta_ta["metrics"]["ndcg@10"])  # the same scale
    assert (result.paths["eval"] / "benchmarks" / "citation" / "ndcg_by_domain.png").is_file()
    assert (result.paths["eval"] / "runs" / "bm25" / "citation" / "ta_ta.run").is_file()
    # the real-text check is the same suite's scitldr benchmark, base and trained
    assert set(result.real_text) == {"tldr2paper", "tldr2paper_author", "title2abstract", "half2half"}
    [cell] = [c for c in saved["cells"] if c["benchmark"] == "scitldr" and c["model"] == result.cells[1].model]
    assert result.real_text["half2half"]["trained"] == next(
        r["metrics"]["ndcg@10"] for r in cell["results"] if r["task"] == "half2half")
    lines = real_text_lines(result.real_text)
    assert lines[0].startswith("real text (SciTLDR dev") and "→" in lines[1] and len(lines) == 5


def test_real_source_slice_is_seeded(tmp_path):
    if not ACL_TEI.is_dir():
        pytest.fail(f"shared data not found at {ACL_TEI}")
    a = source_files(DemoConfig(out=tmp_path, papers=60, seed=1))
    assert len(a) == 60 and a == source_files(DemoConfig(out=tmp_path, papers=60, seed=1))
    assert a != source_files(DemoConfig(out=tmp_path, papers=60, seed=2))


def test_missing_source_names_the_way_out(tmp_path):
    with pytest.raises(DemoError, match="--synthetic"):
        source_files(DemoConfig(out=tmp_path, source=tmp_path / "nope"))

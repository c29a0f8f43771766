"""`sciembed study s2full`: arms that may differ only by strategy, one report, resumable (tiny random BERT)."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.experiments.study import StudyError, load_study, run_study


def _study(tmp_path, bert, arms=None, name="study.yaml", **extra):
    train = {"recipe": "window", "model": {"base": str(bert), "max_seq_length": 64, "projection": None},
             "training": {"batch_size": 10, "mini_batch_size": 10, "max_steps": 2, "loss": "mnrl",
                          "learning_rate": 1e-3, "log_every_steps": 1},
             "checkpoint": {"every_steps": 2}, "data": {"prefixes": None}}
    data = {"train": train, "arms": arms or {"ta_ta": {"data.strategy": "ta_ta"},
                                             "both_random": {"data.strategy": "both_random"}},
            "baselines": ["base", "bm25", "specter2"], "evaluation": {"queries": "linked"}, **extra}
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_arms_must_agree_on_everything_but_the_strategy(tmp_path, tiny_bert):
    bad = _study(tmp_path, tiny_bert, arms={"ta_ta": {"data.strategy": "ta_ta", "training.max_steps": 5},
                                            "both_random": {"data.strategy": "both_random"}})
    with pytest.raises(StudyError, match=r"disagree on more than the strategy.*training.max_steps: 5 -> 2"):
        load_study(bad)
    twice = _study(tmp_path, tiny_bert, arms={"a": {"data.strategy": "ta_ta"}, "b": {"data.strategy": "ta_ta"}},
                   name="twice.yaml")
    with pytest.raises(StudyError, match="two arms train the same strategy"):
        load_study(twice)
    code = CliRunner().invoke(app, ["study", "s2full", str(tmp_path), "--config", str(bad), "--out",
                                    str(tmp_path / "o")])
    assert code.exit_code == 2 and "disagree" in code.output


def test_a_plain_window_config_gives_the_four_strategies():
    plan = load_study(None)
    assert [a.name for a in plan.arms] == ["both_random", "ta_ta", "anchor_random_pos_ta", "no_ta_ta"]
    assert {a.config.data.strategy for a in plan.arms} == {a.name for a in plan.arms}


def test_study_trains_evaluates_and_resumes(tmp_path, tiny_corpus, tiny_bert):
    plan = load_study(_study(tmp_path, tiny_bert))
    out = tmp_path / "study"
    lines: list[str] = []
    first = run_study(plan, tiny_corpus, out, log=lines.append, show_progress=False)
    assert first.trained == ["ta_ta", "both_random"] and first.reused == []
    assert "specter2" in first.skipped  # offline: the hub model cannot be loaded; named, not fatal
    text = first.report.read_text()
    assert "## Windowed body text" in text and "## Full-section body text" in text
    assert "## Against ta_ta" in text and "## Batch composition" in text and "## Verdict" in text
    models = {r["model"] for r in first.table}
    assert {"ta_ta", "both_random", "bm25"} <= models and any(m.startswith("base") for m in models)
    comp = json.loads((out / "arms" / "ta_ta" / "composition.json").read_text())
    assert comp["citation"]["shares"]["ta-ta"] == 1.0
    figure = out / "report" / "benchmarks" / "citation" / "ndcg_by_domain.png"  # the suite writer's citation page
    assert figure.exists() and str(figure) in text and str(out / "report" / "report.md") in text
    results = json.loads((out / "report" / "results.json").read_text())
    assert {s["baseline"] for s in results["significance"]} == {"ta_ta"}
    assert results["details"]["citation"]["domain_baseline"] == "ta_ta"
    [cell] = [c for c in results["cells"] if c["model"] == "ta_ta"]
    [scored] = [r["metrics"]["ndcg@10"] for r in cell["results"] if r["task"] == "ta_ta"]
    [row] = [r for r in first.table if r["model"] == "ta_ta" and r["body_mode"] == "windowed"]
    assert row["ta_ta_ndcg@10"] == pytest.approx(scored)  # study.md and the report show one number (×100)
    again = run_study(plan, tiny_corpus, out, log=lines.append, show_progress=False)
    assert again.trained == [] and again.reused == ["ta_ta", "both_random"]  # a finished arm is not re-trained
    assert [r for r in again.table if r["model"] == "ta_ta"] == [r for r in first.table if r["model"] == "ta_ta"]

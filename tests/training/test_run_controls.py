"""What a run saves and when it stops: inference token budget, best weights, time budget, schedule."""

from __future__ import annotations

import json

import pytest
from transformers import TrainerCallback

from sciembed.training import WindowConfig, load_config, train
from sciembed.training.schedule_report import RunLength, schedule


def config(bert, **overrides) -> WindowConfig:
    values = {
        "model.base": str(bert),
        "model.max_seq_length": 32,
        "model.projection": None,
        "training.batch_size": 10,
        "training.mini_batch_size": 10,
        "training.loss": "mnrl",
        "training.max_steps": 4,
        "training.learning_rate": 1e-3,
        "training.log_every_steps": 1,
        "checkpoint.every_steps": 100,
    }
    values.update(overrides)
    return load_config(WindowConfig, None, values)


def test_configured_inference_budget_is_saved(tiny_bert, tiny_corpus, tmp_path):
    from sentence_transformers import SentenceTransformer

    cfg = config(tiny_bert, **{"training.max_steps": 1, "model.inference_max_seq_length": 48})
    model = SentenceTransformer(str(train("window", cfg, tiny_corpus, tmp_path / "run")), device="cpu")
    assert model.max_seq_length == 48


def test_best_model_is_written_at_each_improving_validation(tiny_bert, tiny_corpus, tmp_path):
    cfg = config(tiny_bert, **{"validation.every_steps": 1})
    train("window", cfg, tiny_corpus, tmp_path / "run")
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    best = summary["best_model"]
    rows = (tmp_path / "run" / "curves" / "validation.csv").read_text().splitlines()[1:]
    values = {int(r.split(",")[0]): float(r.split(",")[2]) for r in rows}
    assert best["metric"] == "eval_val_body_ta_ndcg@10"
    assert best["value"] == pytest.approx(max(values.values()))
    assert best["step"] == min(step for step, v in values.items() if v == max(values.values()))
    assert (tmp_path / "run" / "best-model" / "modules.json").is_file()


class SlowSteps(TrainerCallback):
    def on_step_end(self, args, state, control, **kwargs):
        import time

        time.sleep(0.7)


def test_time_budget_stops_and_saves(tiny_bert, tiny_corpus, tmp_path):
    cfg = config(tiny_bert, **{"training.max_steps": 50, "training.max_time_minutes": 0.01})  # 0.6 s
    model_dir = train("window", cfg, tiny_corpus, tmp_path / "run", callbacks=[SlowSteps()])
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    stopped = summary["time_budget"]["stopped_at_step"]
    assert stopped in (1, 2)  # the first step past 0.6 s (each step sleeps 0.7 s after the budget check)
    assert summary["global_step"] == stopped and not summary["completed"]
    assert (model_dir / "modules.json").is_file()
    # the next session resumes it with its own budget (none here) and finishes the same schedule
    resumed = cfg.model_copy(update={"training": cfg.training.model_copy(update={"max_time_minutes": None})})
    train("window", resumed, tiny_corpus, tmp_path / "run", resume=True)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["completed"] and summary["global_step"] == 50


def test_schedule_counts_steps_epochs_and_warmup(tiny_corpus):
    cfg = load_config(WindowConfig, None, {"training.max_steps": 30, "training.warmup_ratio": 0.1,
                                          "training.learning_rate": 3e-5})
    plan = schedule(cfg, RunLength(steps=120, steps_per_epoch=40, examples_per_step=32))
    assert (plan.steps, plan.epochs, plan.examples_seen, plan.warmup_steps) == (30, 0.75, 960, 3)
    assert "3e-05" in plan.lines()[1] and "0.75 epochs" in plan.lines()[0]
    assert schedule(cfg, RunLength(10, None, 8)).epochs is None


def test_window_default_learning_rate_is_the_papers():
    assert load_config(WindowConfig).training.learning_rate == 5e-5


def test_dry_run_prints_the_schedule_and_bad_budget_exits_2(tiny_corpus):
    from typer.testing import CliRunner

    from sciembed.cli.main import app

    runner = CliRunner()
    result = runner.invoke(app, ["train", "window", "--corpus", str(tiny_corpus), "--dry-run",
                                 "--set", "training.batch_size=10", "--max-time", "2h"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # the console wraps at the test terminal's width
    assert "optimizer steps" in text and "stops after 120 min" in text
    assert "learning rate: peak 5e-05" in text
    bad = runner.invoke(app, ["train", "window", "--corpus", str(tiny_corpus), "--dry-run", "--max-time", "-5m"])
    assert bad.exit_code == 2

"""`sciembed train window`: dry run, and one clear message + exit 2 for each kind of bad input."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app

SMALL = ["--set", "training.batch_size=10", "--set", "training.mini_batch_size=5"]


def invoke(*args: str):
    result = CliRunner().invoke(app, ["train", "window", *args])
    return result.exit_code, " ".join(result.output.split())  # rich wraps long lines


def test_dry_run_prints_counts_and_composition(tiny_corpus, tmp_path):
    code, out = invoke("--corpus", str(tiny_corpus), "--dry-run", *SMALL, "--epochs", "2")
    assert code == 0, out
    assert "48 papers" in out and "TA-only" in out
    assert "Batch composition" in out and "citation" in out and "self" in out
    assert "2 of 10 pairs per batch are self-alignment (20.0%)" in out
    assert not (tmp_path / "out").exists()


def test_dry_run_ta_ta_strategy_shows_only_ta_ta_citations(tiny_corpus):
    code, out = invoke("--corpus", str(tiny_corpus), "--dry-run", *SMALL, "--strategy", "ta_ta")
    assert code == 0, out
    assert "citation" in out and "100.0%" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--set", "training.batch_sise=3"], "training.batch_sise: unknown key"),
        (["--set", "training.epochs=lots"], "training.epochs"),
        (["--strategy", "random"], "data.strategy"),
        (["--set", "training.batch_size"], "expected key=value"),
    ],
)
def test_bad_config_input_exits_2_with_one_message(tiny_corpus, extra, message):
    code, out = invoke("--corpus", str(tiny_corpus), "--dry-run", *extra)
    assert code == 2
    assert "error:" in out and message in out


def test_bad_config_file(tiny_corpus, tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("recipe: window\nmodel:\n  max_seq_length: -3\n  pooling: cls\n")
    code, out = invoke("--config", str(path), "--corpus", str(tiny_corpus), "--dry-run")
    assert code == 2
    assert f"{path}: 2 problems" in out and "model.pooling: unknown key" in out


def test_corpus_without_train_split(tmp_path, kit):
    from sciembed.papers.io import write_parquet

    write_parquet(kit.make_papers(10), tmp_path / "papers.parquet")
    code, out = invoke("--corpus", str(tmp_path), "--out", str(tmp_path / "run"))
    assert code == 2 and "no training split" in out


def test_too_large_batch_for_corpus(tiny_corpus):
    code, out = invoke("--corpus", str(tiny_corpus), "--dry-run", "--batch-size", "40")
    assert code == 2 and "distinct papers; the split has 48" in out


def test_resume_of_another_recipe_and_missing_out(tiny_corpus, tmp_path):
    run = tmp_path / "run"
    (run / "checkpoints" / "checkpoint-3").mkdir(parents=True)
    (run / "checkpoints" / "checkpoint-3" / "trainer_state.json").write_text("{}")
    (run / "recipe.json").write_text(json.dumps({"recipe": "jepa"}))
    code, out = invoke("--corpus", str(tiny_corpus), "--out", str(run), "--resume", *SMALL)
    assert code == 2 and "was trained with recipe 'jepa', not 'window'" in out
    code, out = invoke("--corpus", str(tiny_corpus), *SMALL)
    assert code == 2 and "--out is required" in out

"""`sciembed train jepa|infonce`: dry run with funnel and task shares; one message + exit 2 for bad input."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app

from .test_jepa_source import section_papers, write_ingested


def invoke(recipe: str, *args: str):
    result = CliRunner().invoke(app, ["train", recipe, *args])
    return result.exit_code, " ".join(result.output.split())


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    return write_ingested(tmp_path_factory.mktemp("cli-ingested"), section_papers())


@pytest.mark.parametrize("recipe", ["jepa", "infonce"])
def test_dry_run_prints_funnel_and_task_shares(recipe, ingested, tmp_path):
    excluded = tmp_path / "held-out.txt"
    excluded.write_text("s001\ns002\n")
    code, out = invoke(recipe, "--corpus", str(ingested), "--dry-run", "--exclude", str(excluded),
                       "--set", "data.examples=1000", "--batch-size", "10", "--set", "training.gradient_accumulation=2")
    assert code == 0, out
    assert "Section-pair funnel" in out and "excluded │ 2 │ 28" in out
    assert "kept 22 papers" in out and "1,000 examples (budget 1,000) = 50 optimizer steps of 20" in out
    assert "task shares: ta_to_method" in out


@pytest.mark.parametrize(
    ("recipe", "extra", "message"),
    [
        ("jepa", ["--set", "sigreg.weight=-0.5"], "sigreg.weight: Input should be greater than or equal to 0"),
        ("jepa", ["--set", "predictor.hidden=0"], "predictor.hidden: Input should be greater than 0"),
        ("infonce", ["--set", "sigreg.weight=0.1"], "sigreg: unknown key"),
        ("jepa", ["--exclude", "/nonexistent/ids.txt"], "/nonexistent/ids.txt: exclude file not found"),
        ("jepa", ["--set", "data.examples=5"], "data.examples 5 is less than one optimizer step"),
        ("jepa", ["--max-steps", "999999"], "training.max_steps 999999 needs"),
    ],
)
def test_bad_input_is_one_message_and_exit_2(recipe, extra, message, ingested):
    code, out = invoke(recipe, "--corpus", str(ingested), "--dry-run", *extra)
    assert code == 2, out
    assert message in out and out.count("error:") == 1


def test_corpus_where_nothing_passes(tmp_path):
    root = write_ingested(tmp_path / "bad", [p for p in section_papers() if p.id.startswith("bad-")])
    code, out = invoke("jepa", "--corpus", str(root), "--dry-run")
    assert code == 2 and "has a method section" in out

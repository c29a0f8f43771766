"""`sciembed bench`: a suite over every benchmark kind, a recipe run directory, resume, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from fakes.models import build_tiny_bert
from sciembed.cli.main import app
from sciembed.evaluation.bench import SuiteError, load_suite
from sciembed.evaluation.bench.models import resolve_model
from sciembed.models.card import ModelCard, write_model_card

runner = CliRunner()
WORDS = ["alpha", "beta", "gamma", "delta", "parsing", "graphs", "tagging", "paper", "query", "about", "abstract",
         "title", "study", "words", "therapy"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A finished run of some recipe: recipe.json + model/ with a card that asks for Euclidean distance."""
    root = tmp_path_factory.mktemp("run")
    (root / "recipe.json").write_text(json.dumps({"recipe": "future-recipe", "config": {}}))
    build_tiny_bert(root / "model", WORDS)
    write_model_card(root / "model", ModelCard(recipe="future-recipe", metric="l2"))
    return root


def _suite(tmp_path: Path, fixtures: Path, run_dir: Path) -> Path:
    scitldr = tmp_path / "scitldr.jsonl"
    scitldr.write_text("".join(json.dumps({"paper_id": f"p{i}", "title": f"{w} title", "source": [f"{w} one.",
                                           f"{w} two."], "target": [f"{w} tldr"]}) + "\n"
                               for i, w in enumerate(["alpha", "beta", "gamma", "delta"])))
    suite = {
        "out": str(tmp_path / "out"), "cache": str(tmp_path / "cache"), "baseline": "bm25",
        "models": [{"name": "bm25", "model": "bm25"}, {"name": "tiny-run", "model": str(run_dir)}],
        "benchmarks": [
            {"name": "scitldr", "kind": "scitldr", "path": str(scitldr)},
            {"name": "csfcube", "kind": "csfcube", "path": str(fixtures / "csfcube")},
            {"name": "scirepeval", "kind": "scirepeval", "path": str(fixtures / "scirepeval"),
             "tasks": ["RELISH", "SciDocs Cite", "Citation Count", "DRSM", "Paper-Reviewer Matching", "S2AND"]},
            {"name": "triplets", "kind": "triplets", "path": str(fixtures / "triplets")},
            {"name": "absent", "kind": "beir", "path": str(tmp_path / "nope"), "optional": True},
        ],
    }
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump(suite))
    return path


def test_suite_runs_reports_and_resumes(tmp_path, fixtures, run_dir):
    suite = _suite(tmp_path, fixtures, run_dir)
    first = runner.invoke(app, ["eval", "suite", str(suite)])
    assert first.exit_code == 0, first.output
    assert "cells computed 8, reused 0" in first.output
    assert "missing benchmark absent" in first.output
    out = tmp_path / "out"
    report = (out / "report.md").read_text()
    assert "| tiny-run | `" in report and "| l2 |" in report  # the card's distance, named in the report
    assert "scirepeval: overall" in report and "csfcube: all/ndcg%20" in report
    assert "tiny-run × scirepeval: task DRSM" not in report  # the dense model runs the probes
    assert "bm25 × scirepeval: task DRSM skipped (a linear probe needs vectors; BM25 has none)" in report
    assert "bm25 × scirepeval: task S2AND skipped (its official evaluator scores vectors" in report
    assert "tiny-run × scirepeval: task S2AND" not in report  # run by the dense model, cached with the rest
    assert "Paired significance against bm25" in report
    assert (out / "heatmap.png").stat().st_size > 0
    assert (out / "benchmarks" / "csfcube.md").is_file()
    results = json.loads((out / "results.json").read_text())
    assert results["missing_benchmarks"].keys() == {"absent"}
    second = runner.invoke(app, ["eval", "suite", str(suite)])
    assert second.exit_code == 0, second.output
    assert "cells computed 0, reused 8" in second.output
    assert json.loads((out / "results.json").read_text())["table"] == results["table"]


def test_run_directory_resolves_to_its_model(tmp_path, run_dir):
    assert resolve_model(str(run_dir)) == str((run_dir / "model").resolve())
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    (unfinished / "recipe.json").write_text(json.dumps({"recipe": "jepa"}))
    with pytest.raises(SuiteError, match="jepa run directory without a saved model"):
        resolve_model(str(unfinished))


def test_bad_suite_is_one_message_and_exit_2(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"models": [{"name": "m", "model": "bm25", "distance": "manhattan"}],
                                   "benchmarks": []}))
    with pytest.raises(SuiteError, match=r"2 problem\(s\): models.0.distance"):
        load_suite(bad)
    result = runner.invoke(app, ["eval", "suite", str(bad)])
    assert result.exit_code == 2 and "models.0.distance" in result.output
    required = tmp_path / "required.yaml"
    required.write_text(yaml.safe_dump({"models": [{"name": "m", "model": "bm25"}],
                                        "benchmarks": [{"name": "x", "kind": "beir", "path": str(tmp_path / "no")}]}))
    result = runner.invoke(app, ["eval", "suite", str(required), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "benchmark x cannot be loaded" in result.output

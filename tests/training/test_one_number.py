"""One model on one benchmark gives one number by every path (issue 34): ``eval run``, ``eval suite``, the demo
and a study. The demo and the studies write a suite YAML and run it with `eval suite`'s executor, so every
per-query NDCG@10 agrees to the last digit."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.evaluation.bench import load_suite, run_suite, write_suite_report
from sciembed.experiments import real_study
from sciembed.experiments.demo import DemoConfig, run_demo

SCENARIOS = ("ta_ta", "body_ta/windowed", "body_body/windowed")
BUDGET = 64  # every path reads this many tokens (and body windows of this budget)


def _ndcg(results_json, model: str) -> dict[str, dict[str, float]]:
    """task -> query -> NDCG@10 (×100) of a suite's results.json: ``bm25``'s cell, or that of the dense model
    (`model` names it, or ``dense`` for the one that is not BM25: `eval run` names it by its path)."""
    cells = json.loads(results_json.read_text())["cells"]
    [cell] = [c for c in cells if c["model"] == model or (model == "dense" and c["model"] != "bm25")]
    return {r["task"]: r["per_query"]["ndcg@10"] for r in cell["results"] if r["task"] in SCENARIOS}


def test_eval_run_eval_suite_the_demo_and_a_study_give_one_number(tmp_path, tiny_bert) -> None:
    demo = run_demo(DemoConfig(out=tmp_path / "demo", synthetic=150, base_model=str(tiny_bert),
                               eval_max_seq_length=BUDGET, train=False), say=lambda _: None)
    corpus = demo.paths["corpus"]
    base = demo.cells[0].model
    by_demo = {"dense": _ndcg(demo.paths["eval"] / "results.json", base),
               "bm25": _ndcg(demo.paths["eval"] / "results.json", "bm25")}
    assert set(by_demo["dense"]) == set(SCENARIOS) and all(by_demo["dense"].values())

    out = tmp_path / "run"
    ran = CliRunner().invoke(app, ["eval", "run", str(corpus), "-m", str(tiny_bert), "-m", "bm25", "--max-seq-length",
                                   str(BUDGET), "--set", "query_mode=linked", "-o", str(out)])
    assert ran.exit_code == 0, ran.output
    by_run = {m: _ndcg(out / "results.json", m) for m in ("dense", "bm25")}

    suite = tmp_path / "suite.yaml"
    suite.write_text(json.dumps({
        "out": str(tmp_path / "suite"), "models": [{"name": "dense", "model": str(tiny_bert), "max_seq_length": BUDGET},
                                                   {"name": "bm25", "model": "bm25"}],
        "benchmarks": [{"name": "acl", "kind": "citation", "path": str(corpus), "query_mode": "linked"}]}))
    write_suite_report(run_suite(load_suite(suite), say=lambda _: None))
    by_suite = {m: _ndcg(tmp_path / "suite" / "results.json", m) for m in ("dense", "bm25")}

    config = real_study.RealStudyConfig(source=tmp_path, base=str(tiny_bert), max_seq_length=BUDGET)
    paths = real_study.StudyPaths(demo.out)  # the study's corpus folder is the demo's
    run = real_study.evaluate_study(config, paths, {}, say=lambda _: None)  # a study of no arms: base and bm25
    by_study = {"dense": _ndcg(run.out / "results.json", "base"), "bm25": _ndcg(run.out / "results.json", "bm25")}

    for model in ("dense", "bm25"):
        assert by_run[model] == by_demo[model], model
        assert by_suite[model] == by_demo[model], model
        assert by_study[model] == by_demo[model], model

"""In-process cells (`evaluation.evaluate`) reported by the suite writer: the files, the numbers as scored, the
citation detail page (per domain, geometry), the runner's numbers, comparisons; old harness results still read."""

from __future__ import annotations

import json

import pytest

from sciembed.evaluation import (
    BenchmarkError,
    build_citation_benchmark,
    compare_runs,
    evaluate,
    scenario_benchmark,
    write_cells_report,
)
from sciembed.evaluation.bench import load_suite, run_suite, write_suite_report
from sciembed.evaluation.significance import paired_test


@pytest.fixture
def bench(citation_corpus):
    return scenario_benchmark(build_citation_benchmark(citation_corpus), geometry=True)


@pytest.fixture
def runs(bench, fake_encoder, angle_encoder):
    shuffled = angle_encoder({"ta-A": 0, "ta-C": 90, "ta-E": 180, "body-A": 0, "body-C": 3}, name="other")
    return [evaluate(m, bench, show_progress=False) for m in (fake_encoder, shuffled, "bm25")]


def _scenarios(cell) -> list[str]:
    return [r.task for r in cell.results if r.kind != "geometry"]


def _cells(out) -> dict[str, dict]:
    return {c["model"]: c for c in json.loads((out / "results.json").read_text())["cells"]}


def test_report_files_and_numbers_as_scored(bench, runs, tmp_path) -> None:
    report = write_cells_report(runs, bench, tmp_path / "eval", run_depth=10)
    out = report.parent
    assert report == out / "report.md"
    for name in ("results.json", "heatmap.png", "benchmarks/citation.md", "benchmarks/citation/ndcg_by_domain.png",
                 "benchmarks/citation/spectrum.png", "benchmarks/citation/paper_log.jsonl",
                 "qrels/citation/ta_ta.qrels", "runs/fake/citation/body_ta-windowed.run",
                 "runs/bm25/citation/ta_ta.run"):
        assert (out / name).is_file(), name
    cells = _cells(out)
    assert list(cells) == ["fake", "other", "bm25"]
    for run in runs:  # every metric and per-query score is the cell's own
        tasks = {r["task"]: r for r in cells[run.model]["results"]}
        for result in run.results:
            task = tasks[result.task]
            assert task["metrics"] == pytest.approx(result.metrics, nan_ok=True)
            for metric, scores in result.per_query.items():
                assert task["per_query"][metric] == pytest.approx(scores, nan_ok=True)
    assert "geometry" in {r["task"] for r in cells["fake"]["results"]}  # dense models: geometry as one more task
    assert "geometry" not in cells["fake"]["summary"]  # ... not averaged with NDCG@10
    results = json.loads((out / "results.json").read_text())
    sig = results["significance"]
    assert {(s["model"], s["task"]) for s in sig} == {(m, t) for m in ("other", "bm25") for t in _scenarios(runs[0])}
    first = next(s for s in sig if (s["model"], s["task"]) == ("other", "ta_ta"))
    expected = paired_test("ndcg@10", runs[0].result("ta_ta").per_query["ndcg@10"],
                           runs[1].result("ta_ta").per_query["ndcg@10"])
    assert first["delta"] == pytest.approx(expected.delta) and first["p_value"] == pytest.approx(expected.p_value)
    text = report.read_text()
    assert f"| fake | {runs[0].result('ta_ta').metrics['ndcg@10']:.1f} |" in text
    assert "## Paired significance against fake" in text and "![ndcg_by_domain](benchmarks/citation/" in text
    detail = (out / "benchmarks" / "citation.md").read_text()
    assert "papers_without_body: 1" in detail and "query paper has no body: 1" in detail
    assert "## Per domain" in detail and "## Geometry" in detail and "paper_log.jsonl" in detail
    assert results["details"]["citation"]["domain_baseline"] == "fake"
    trec = (out / "runs/fake/citation/ta_ta.run").read_text().splitlines()
    assert trec[0].split()[:4] == ["A", "Q0", "B", "1"]
    first_log = (out / "benchmarks/citation/paper_log.jsonl").read_text().splitlines()[0]
    assert json.loads(first_log)["paper_id"] == "A"


def test_the_baseline_is_tested_against_and_sorts_the_domains(bench, runs, tmp_path) -> None:
    write_cells_report(runs, bench, tmp_path / "r", baseline="bm25")
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert {s["baseline"] for s in results["significance"]} == {"bm25"}
    assert results["details"]["citation"]["domain_baseline"] == "bm25"
    with pytest.raises(ValueError, match="baseline 'nobody' is not one of the models"):
        write_cells_report(runs, bench, tmp_path / "x", baseline="nobody")
    assert not (tmp_path / "x").exists()


def test_in_process_cells_and_the_runner_report_the_same_numbers(bench, citation_corpus, tmp_path) -> None:
    """`eval run`'s path (a suite of one) and in-process cells (the demo's and the studies') are one computation:
    the same tasks, metrics, per-query scores and summary for every model."""
    plain = scenario_benchmark(bench.benchmark)  # the suite's defaults: no geometry
    write_cells_report([evaluate("bm25", plain, show_progress=False)], plain, tmp_path / "a")
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"out: {tmp_path / 'b'}\nmodels:\n  - {{name: bm25, model: bm25}}\n"
                     f"benchmarks:\n  - {{name: citation, kind: citation, path: {citation_corpus}}}\n")
    write_suite_report(run_suite(load_suite(suite), say=lambda _: None))
    a, b = _cells(tmp_path / "a")["bm25"], _cells(tmp_path / "b")["bm25"]
    assert [r["task"] for r in a["results"]] == [r["task"] for r in b["results"]]
    for old, new in zip(a["results"], b["results"], strict=True):
        assert old["metrics"] == pytest.approx(new["metrics"], abs=1e-9, nan_ok=True)
        assert old["per_query"].keys() == new["per_query"].keys()
        for metric, scores in new["per_query"].items():
            assert old["per_query"][metric] == pytest.approx(scores, abs=1e-9, nan_ok=True)
    assert a["summary"] == pytest.approx(b["summary"], abs=1e-9)
    assert a["key"].split(":", 2)[2] == b["key"].split(":", 2)[2]
    assert (tmp_path / "b" / "benchmarks" / "citation" / "ndcg_by_domain.png").is_file()  # the same detail hook


def test_results_are_reproducible(bench, runs, fake_encoder, tmp_path) -> None:
    write_cells_report(runs, bench, tmp_path / "one", run_depth=10)
    again = [evaluate(fake_encoder, bench, show_progress=False), *runs[1:]]
    write_cells_report(again, bench, tmp_path / "two", run_depth=10)
    one, two = (json.loads((tmp_path / d / "results.json").read_text()) for d in ("one", "two"))
    for key in ("table", "significance", "details", "benchmarks"):
        assert one[key] == two[key], key
    strip = [{k: v for k, v in c.items() if k != "seconds"} for c in one["cells"]]
    assert strip == [{k: v for k, v in c.items() if k != "seconds"} for c in two["cells"]]
    for name in ("benchmarks/citation.md", "runs/fake/citation/ta_ta.run"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


def test_compare_two_runs(bench, runs, tmp_path) -> None:
    write_cells_report(runs[:1], bench, tmp_path / "a")
    write_cells_report(runs[1:2], bench, tmp_path / "b")
    result = compare_runs(tmp_path / "a", tmp_path / "b", metrics=("ndcg@10", "mrr"))
    assert (result.model_a, result.model_b) == ("fake", "other")
    assert len(result.rows) == 3 * 2
    label, first = result.rows[0]
    assert (label, first.metric) == ("ta_ta", "ndcg@10")
    a, b = (r.result("ta_ta") for r in runs[:2])
    expected = paired_test("ndcg@10", a.per_query["ndcg@10"], b.per_query["ndcg@10"])
    assert first.delta == pytest.approx((b.metrics["ndcg@10"] - a.metrics["ndcg@10"]) / 100)  # compare: 0–1
    assert first.p_value == pytest.approx(expected.p_value)
    fisher = compare_runs(tmp_path / "a", tmp_path / "b", metrics=("ndcg@10",), test="fisher", n_permutations=200)
    assert 0 <= fisher.rows[0][1].p_value <= 1


def test_compare_still_reads_results_of_the_old_harness_writer(tmp_path) -> None:
    """Run directories written before the one report writer (format sciembed-eval/1) can still be compared."""
    for name, scores in (("a", [0.5, 1.0]), ("b", [1.0, 1.0])):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text(json.dumps({
            "format": "sciembed-eval/1", "benchmark": {"name": "citation", "fingerprint": "f1"},
            "metrics": ["ndcg@10"], "scenarios": {"ta_ta": "TA→TA"},
            "models": [{"name": name, "model": name,
                        "per_query": {"ta_ta": {"ndcg@10": {"q1": scores[0], "q2": scores[1]}}}}]}))
    [(label, row)] = compare_runs(tmp_path / "a", tmp_path / "b").rows
    assert label == "TA→TA" and row.delta == pytest.approx(0.25) and row.n == 2


def test_compare_refuses_runs_of_different_benchmarks(bench, runs, fake_encoder, citation_corpus, tmp_path) -> None:
    write_cells_report(runs[:1], bench, tmp_path / "a")
    other = scenario_benchmark(build_citation_benchmark(citation_corpus, paper_log_seed=3), geometry=True)
    write_cells_report([evaluate(fake_encoder, other, show_progress=False)], other, tmp_path / "b")
    with pytest.raises(BenchmarkError, match="evaluated on different benchmarks"):
        compare_runs(tmp_path / "a", tmp_path / "b")
    with pytest.raises(BenchmarkError, match=r"no results\.json"):
        compare_runs(tmp_path / "a", tmp_path / "nowhere")


def test_report_refuses_runs_from_another_benchmark(bench, runs, citation_corpus, tmp_path) -> None:
    other = scenario_benchmark(build_citation_benchmark(citation_corpus, paper_log_seed=3), geometry=True)
    with pytest.raises(ValueError, match="scored on another benchmark"):
        write_cells_report(runs, other, tmp_path / "x")
    with pytest.raises(ValueError, match="at least one evaluated model"):
        write_cells_report([], bench, tmp_path / "x")


def test_the_demo_table_shows_each_scenarios_headline(runs) -> None:
    from rich.console import Console

    from sciembed.cli.evaluate import eval_table

    console = Console(width=200, record=True)
    console.print(eval_table(runs))
    text = console.export_text()
    assert "NDCG@10 ×100" in text and "Body→Body (windowed)" in text and "geometry" not in text
    row = next(line for line in text.splitlines() if " other " in line)
    assert f"{runs[1].result('body_ta/windowed').metrics['ndcg@10']:.1f}" in row

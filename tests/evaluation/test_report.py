"""In-process runs (`evaluate_encoder`) reported by the suite writer: the files, the numbers as scored, the
citation detail page (per domain, geometry), the runner's numbers, comparisons; old harness results still read."""

from __future__ import annotations

import json

import pytest

from sciembed.evaluation import (
    BenchmarkError,
    build_citation_benchmark,
    compare_runs,
    evaluate_encoder,
    write_runs_report,
)
from sciembed.evaluation.bench import load_suite, run_suite, write_suite_report
from sciembed.evaluation.significance import paired_test
from sciembed.evaluation.task import key_str


@pytest.fixture
def bench(citation_corpus):
    return build_citation_benchmark(citation_corpus)


@pytest.fixture
def runs(bench, fake_encoder, angle_encoder):
    shuffled = angle_encoder({"ta-A": 0, "ta-C": 90, "ta-E": 180, "body-A": 0, "body-C": 3}, name="other")
    return [evaluate_encoder(m, bench, body_modes=("windowed",), show_progress=False)
            for m in (fake_encoder, shuffled, "bm25")]


def _cells(out) -> dict[str, dict]:
    return {c["model"]: c for c in json.loads((out / "results.json").read_text())["cells"]}


def test_report_files_and_numbers_as_scored(bench, runs, tmp_path) -> None:
    report = write_runs_report(runs, bench, tmp_path / "eval", run_depth=10)
    out = report.parent
    assert report == out / "report.md"
    for name in ("results.json", "heatmap.png", "benchmarks/citation.md", "benchmarks/citation/ndcg_by_domain.png",
                 "benchmarks/citation/spectrum.png", "benchmarks/citation/paper_log.jsonl",
                 "qrels/citation/ta_ta.qrels", "runs/fake/citation/body_ta-windowed.run",
                 "runs/bm25/citation/ta_ta.run"):
        assert (out / name).is_file(), name
    cells = _cells(out)
    assert list(cells) == ["fake", "other", "bm25"]
    for run in runs:  # every metric and per-query score is the run's own (×100, the suite's scale)
        tasks = {r["task"]: r for r in cells[run.model]["results"]}
        for key in run.keys:
            task = tasks[key_str(key)]
            assert task["metrics"] == pytest.approx({m: 100 * v for m, v in run.aggregates[key].items()})
            assert task["per_query"]["ndcg@10"] == pytest.approx(
                {q: 100 * v for q, v in run.per_query[key]["ndcg@10"].items()})
    assert "geometry" in {r["task"] for r in cells["fake"]["results"]}  # dense models: geometry as one more task
    assert "geometry" not in cells["fake"]["summary"]  # ... not averaged with NDCG@10
    results = json.loads((out / "results.json").read_text())
    sig = results["significance"]
    assert {(s["model"], s["task"]) for s in sig} == {(m, key_str(k)) for m in ("other", "bm25") for k in runs[0].keys}
    first = next(s for s in sig if (s["model"], s["task"]) == ("other", "ta_ta"))
    expected = paired_test("ndcg@10", runs[0].per_query["ta_ta"]["ndcg@10"], runs[1].per_query["ta_ta"]["ndcg@10"])
    assert first["delta"] == pytest.approx(100 * expected.delta) and first["p_value"] == pytest.approx(expected.p_value)
    text = report.read_text()
    assert f"| fake | {100 * runs[0].aggregates['ta_ta']['ndcg@10']:.1f} |" in text
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
    write_runs_report(runs, bench, tmp_path / "r", baseline="bm25")
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert {s["baseline"] for s in results["significance"]} == {"bm25"}
    assert results["details"]["citation"]["domain_baseline"] == "bm25"
    with pytest.raises(ValueError, match="baseline 'nobody' is not one of the models"):
        write_runs_report(runs, bench, tmp_path / "x", baseline="nobody")
    assert not (tmp_path / "x").exists()


def test_in_process_runs_and_the_runner_report_the_same_numbers(bench, citation_corpus, tmp_path) -> None:
    """`eval run`'s path (a suite of one: ranking tasks through `execute.run_task`) and in-process runs (the
    harness) give one benchmark identical numbers for every metric both report; the executor adds full-list
    NDCG, R-precision and the first relevant rank."""
    run = evaluate_encoder("bm25", bench, body_modes=("windowed",), k=len(bench.papers), show_progress=False)
    write_runs_report([run], bench, tmp_path / "a", name="corpus")
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"out: {tmp_path / 'b'}\nmodels:\n  - {{name: bm25, model: bm25}}\n"
                     f"benchmarks:\n  - {{name: corpus, kind: citation, path: {citation_corpus}}}\n")
    write_suite_report(run_suite(load_suite(suite), say=lambda _: None))
    a, b = _cells(tmp_path / "a")["bm25"], _cells(tmp_path / "b")["bm25"]
    assert [r["task"] for r in a["results"]] == [r["task"] for r in b["results"]]
    for old, new in zip(a["results"], b["results"], strict=True):
        assert set(new["metrics"]) - set(old["metrics"]) == {"ndcg", "r-precision", "first_relevant_rank"}
        assert old["metrics"] == pytest.approx({m: new["metrics"][m] for m in old["metrics"]}, abs=1e-9)
        assert old["per_query"] == {m: pytest.approx(new["per_query"][m], abs=1e-9) for m in old["per_query"]}
    assert a["summary"] == pytest.approx(b["summary"], abs=1e-9)
    assert a["key"].split(":", 2)[2] == b["key"].split(":", 2)[2]
    assert (tmp_path / "b" / "benchmarks" / "corpus" / "ndcg_by_domain.png").is_file()  # the same detail hook


def test_results_are_reproducible(bench, runs, fake_encoder, tmp_path) -> None:
    write_runs_report(runs, bench, tmp_path / "one", run_depth=10)
    again = [evaluate_encoder(fake_encoder, bench, body_modes=("windowed",), show_progress=False), *runs[1:]]
    write_runs_report(again, bench, tmp_path / "two", run_depth=10)
    one, two = (json.loads((tmp_path / d / "results.json").read_text()) for d in ("one", "two"))
    for key in ("table", "significance", "details", "benchmarks"):
        assert one[key] == two[key], key
    strip = [{k: v for k, v in c.items() if k != "seconds"} for c in one["cells"]]
    assert strip == [{k: v for k, v in c.items() if k != "seconds"} for c in two["cells"]]
    for name in ("benchmarks/citation.md", "runs/fake/citation/ta_ta.run"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


def test_compare_two_runs(bench, runs, tmp_path) -> None:
    write_runs_report(runs[:1], bench, tmp_path / "a")
    write_runs_report(runs[1:2], bench, tmp_path / "b")
    result = compare_runs(tmp_path / "a", tmp_path / "b", metrics=("ndcg@10", "mrr"))
    assert (result.model_a, result.model_b) == ("fake", "other")
    assert len(result.rows) == 3 * 2
    label, first = result.rows[0]
    assert (label, first.metric) == ("ta_ta", "ndcg@10")
    expected = paired_test("ndcg@10", runs[0].per_query["ta_ta"]["ndcg@10"], runs[1].per_query["ta_ta"]["ndcg@10"])
    assert first.delta == pytest.approx(runs[1].aggregates["ta_ta"]["ndcg@10"] - runs[0].aggregates["ta_ta"]["ndcg@10"])
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
    write_runs_report(runs[:1], bench, tmp_path / "a")
    other = build_citation_benchmark(citation_corpus, paper_log_seed=3)
    write_runs_report([evaluate_encoder(fake_encoder, other, show_progress=False)], other, tmp_path / "b")
    with pytest.raises(BenchmarkError, match="evaluated on different benchmarks"):
        compare_runs(tmp_path / "a", tmp_path / "b")
    with pytest.raises(BenchmarkError, match=r"no results\.json"):
        compare_runs(tmp_path / "a", tmp_path / "nowhere")


def test_report_refuses_runs_from_another_benchmark(bench, runs, citation_corpus, tmp_path) -> None:
    other = build_citation_benchmark(citation_corpus, paper_log_seed=3)
    with pytest.raises(ValueError, match="scored on another benchmark"):
        write_runs_report(runs, other, tmp_path / "x")
    with pytest.raises(ValueError, match="at least one ModelRun"):
        write_runs_report([], bench, tmp_path / "x")

"""results.json, report.md, PNGs and rankings; reproducible; two runs compared with paired tests."""

from __future__ import annotations

import json

import pytest

from sciembed.evaluation import BenchmarkError, build_citation_benchmark, compare_runs, evaluate_encoder, write_report
from sciembed.evaluation.significance import paired_test


@pytest.fixture
def bench(citation_corpus):
    return build_citation_benchmark(citation_corpus)


@pytest.fixture
def runs(bench, fake_encoder, angle_encoder):
    shuffled = angle_encoder({"ta-A": 0, "ta-C": 90, "ta-E": 180, "body-A": 0, "body-C": 3}, name="other")
    return [evaluate_encoder(m, bench, body_modes=("windowed",), show_progress=False)
            for m in (fake_encoder, shuffled, "bm25")]


def test_report_files_and_contents(bench, runs, tmp_path) -> None:
    report = write_report(runs, bench, tmp_path / "eval")
    out = report.parent
    for name in ("results.json", "report.md", "timings.json", "paper_log.jsonl", "ndcg_by_scenario.png",
                 "ndcg_by_domain.png", "spectrum.png", "qrels/ta_ta.qrels", "runs/fake/body_ta_windowed.run",
                 "runs/bm25/ta_ta.run"):
        assert (out / name).is_file(), name
    results = json.loads((out / "results.json").read_text())
    assert [m["name"] for m in results["models"]] == ["fake", "other", "bm25"]
    assert list(results["scenarios"]) == ["ta_ta", "body_ta/windowed", "body_body/windowed"]
    fake = results["models"][0]
    assert fake["fingerprint"] == "fake:fake:20"
    assert fake["aggregates"]["ta_ta"]["ndcg@10"] == pytest.approx(runs[0].aggregates["ta_ta"]["ndcg@10"])
    assert len(fake["per_query"]["ta_ta"]["ndcg@10"]) == 7
    assert results["benchmark"]["papers_without_body"] == 1
    sig = results["significance"]["results"]
    expected = {(m, k) for m in ("other", "bm25") for k in results["scenarios"]}
    assert {(r["model"], r["scenario"]) for r in sig} == expected
    text = report.read_text()
    assert "| Model | TA→TA | Body→TA (windowed) | Body→Body (windowed) |" in text
    main = text.split("(models × scenarios)")[1].split("Queries and candidates")[0]
    rows = {line.split(" | ")[0].strip("| "): line for line in main.splitlines() if line.startswith("| ")}
    for key in runs[0].keys:  # the best model of each scenario is bold, in its own row
        best = max(runs, key=lambda r: r.aggregates[key]["ndcg@10"])
        assert f"**{100 * best.aggregates[key]['ndcg@10']:.1f}**" in rows[best.model]
    assert rows["fake"].startswith(f"| fake | {100 * runs[0].aggregates['ta_ta']['ndcg@10']:.1f} |")
    assert "1 papers have no body text" in text
    assert "Body→Body (windowed): query paper has no body: 1" in text
    trec = (out / "runs/fake/ta_ta.run").read_text().splitlines()
    assert trec[0].split()[:4] == ["A", "Q0", "B", "1"]
    assert json.loads((out / "paper_log.jsonl").read_text().splitlines()[0])["paper_id"] == "A"


def test_results_are_reproducible(bench, runs, fake_encoder, tmp_path) -> None:
    write_report(runs, bench, tmp_path / "one")
    again = [evaluate_encoder(fake_encoder, bench, body_modes=("windowed",), show_progress=False), *runs[1:]]
    write_report(again, bench, tmp_path / "two")
    for name in ("results.json", "report.md", "runs/fake/ta_ta.run"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


def test_compare_two_runs(bench, runs, tmp_path) -> None:
    write_report(runs[:1], bench, tmp_path / "a")
    write_report(runs[1:2], bench, tmp_path / "b")
    result = compare_runs(tmp_path / "a", tmp_path / "b", metrics=("ndcg@10", "mrr"))
    assert (result.model_a, result.model_b) == ("fake", "other")
    assert len(result.rows) == 3 * 2
    label, first = result.rows[0]
    assert (label, first.metric) == ("TA→TA", "ndcg@10")
    expected = paired_test("ndcg@10", runs[0].per_query["ta_ta"]["ndcg@10"], runs[1].per_query["ta_ta"]["ndcg@10"])
    assert first.delta == pytest.approx(runs[1].aggregates["ta_ta"]["ndcg@10"] - runs[0].aggregates["ta_ta"]["ndcg@10"])
    assert first.p_value == pytest.approx(expected.p_value)
    fisher = compare_runs(tmp_path / "a", tmp_path / "b", metrics=("ndcg@10",), test="fisher", n_permutations=200)
    assert 0 <= fisher.rows[0][1].p_value <= 1


def test_compare_refuses_runs_of_different_benchmarks(bench, runs, fake_encoder, citation_corpus, tmp_path) -> None:
    write_report(runs[:1], bench, tmp_path / "a")
    other = build_citation_benchmark(citation_corpus, paper_log_seed=3)
    write_report([evaluate_encoder(fake_encoder, other, show_progress=False)], other, tmp_path / "b")
    with pytest.raises(BenchmarkError, match="evaluated on different benchmarks"):
        compare_runs(tmp_path / "a", tmp_path / "b")
    with pytest.raises(BenchmarkError, match=r"no results\.json"):
        compare_runs(tmp_path / "a", tmp_path / "nowhere")


def test_report_refuses_runs_from_another_benchmark(bench, runs, citation_corpus, tmp_path) -> None:
    other = build_citation_benchmark(citation_corpus, paper_log_seed=3)
    with pytest.raises(ValueError, match="scored on another benchmark"):
        write_report(runs, other, tmp_path / "x")

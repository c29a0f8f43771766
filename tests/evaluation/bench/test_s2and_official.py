"""Issue 32, item 4: S2AND's published number comes from S2AND's own pipeline (LightGBM; not runnable here). The
suite writes the embeddings that pipeline reads, names the command SciRepEval's BENCHMARKING.md runs, and reads
the results it writes; only those enter the averages. The results fixture is laid out as allenai/S2AND
``scripts/custom_block_transfer_experiment_seed_paper.py`` writes it: ``seed_<n>/metrics/full_grid.json`` with a
``b3`` grid (header row of targets, one row per source dataset, a ``union`` row, an ``s2`` row; B3 F1 as a
fraction). The numbers in it are made up for the test, not S2AND results."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from sciembed.evaluation.benchmarks.registry import BenchmarkEntry, check_options
from sciembed.evaluation.execute import run_task
from sciembed.evaluation.issues import BenchmarkError
from sciembed.evaluation.scirepeval import load_scirepeval
from sciembed.evaluation.scirepeval.s2and_official import (
    official_command,
    read_official_results,
    write_official_inputs,
)
from sciembed.evaluation.scorers import DenseScorer

TARGETS = ["arnetminer", "inspire", "kisti", "pubmed", "qian", "zbmath"]


def _grid(union: list[float | None]) -> list[list]:
    rows: list[list] = [["", *TARGETS]]
    rows += [[source, *[0.5] * len(TARGETS)] for source in TARGETS]  # source -> target transfer rows
    rows += [["union", *union], ["s2", *[0.4] * len(TARGETS)]]
    return rows


def _experiment(root: Path, seeds: dict[int, list[float | None]]) -> Path:
    for seed, union in seeds.items():
        metrics = root / f"seed_{seed}" / "metrics"
        metrics.mkdir(parents=True)
        (metrics / "full_grid.json").write_text(json.dumps({"b3": _grid(union), "auroc": [], "true_bigger": [],
                                                            "pred_bigger": []}))
    return root


def test_the_union_row_averaged_over_seeds_and_datasets(tmp_path):
    exp = _experiment(tmp_path / "exp", {1: [0.9, 0.92, 0.94, 0.96, 0.98, None], 2: [0.92, 0.94, 0.96, 0.98, 1.0,
                                                                                       None]})
    official = read_official_results(exp)
    assert official.seeds == (1, 2) and official.row == "union"
    assert official.per_dataset == pytest.approx({"arnetminer": 91, "inspire": 93, "kisti": 95, "pubmed": 97,
                                                  "qian": 99})  # zbmath has no value: not counted
    assert official.b3_f1 == pytest.approx(95.0)
    with pytest.raises(BenchmarkError, match=r"full_grid\.json"):
        read_official_results(tmp_path / "nothing")


def test_official_s2and_enters_the_averages_and_embedding_only_stays_out(fixtures, keyword_encoder, tmp_path):
    exp = _experiment(tmp_path / "exp", {1: [0.9] * 6})
    names = ["RELISH", "SciDocs Cite", "S2AND"]
    bench = load_scirepeval(fixtures / "scirepeval", names, s2and_results=exp)
    scorer = DenseScorer(keyword_encoder, "l2", show_progress=False)
    results = [run_task(t, scorer) for t in bench.tasks(scorer.style())]
    summary = bench.summarize(results)
    assert summary["S2AND"] == pytest.approx(90.0)  # S2AND's pipeline, the published metric
    assert summary["S2AND (embedding-only)"] == pytest.approx(200 / 3)  # still shown, labelled
    three = [summary["RELISH"], summary["SciDocs Cite"], 90.0]
    assert summary["proximity"] == pytest.approx(sum(three) / 3)
    assert bench.describe()["s2and"]["b3_f1"] == pytest.approx(90.0)


def test_the_embeddings_s2and_reads_and_the_command(fixtures, keyword_encoder, tmp_path):
    import shutil

    data = tmp_path / "s2and"
    shutil.copytree(fixtures / "scirepeval" / "s2and", data)
    written = write_official_inputs(data, keyword_encoder.encode, "minilm")
    assert written == [data / "qian" / "qian_minilm.pkl"]
    matrix, keys = pickle.loads(written[0].read_bytes())
    papers = json.loads((data / "qian" / "qian_papers.json").read_text())
    assert keys == list(papers) and matrix.dtype == np.float32 and matrix.shape[0] == len(keys)  # every paper
    command = official_command(data, "sciembed_minilm", "minilm")
    assert command.endswith(f"--custom_block_path {data / 'blocks'} --experiment_name sciembed_minilm "
                            "--exclude_medline --emb_suffix _minilm.pkl")
    with pytest.raises(BenchmarkError, match="aws s3 --no-sign-request sync"):
        write_official_inputs(tmp_path / "empty", keyword_encoder.encode, "minilm")


def test_the_suite_entry_takes_the_results_folder():
    check_options(BenchmarkEntry(name="srp", kind="scirepeval", path="x", s2and_results="runs/s2and/exp"))
    with pytest.raises(BenchmarkError, match="s2and_results"):
        check_options(BenchmarkEntry(name="b", kind="beir", path="x", s2and_results="runs/s2and/exp"))


def test_cli_writes_the_inputs_and_prints_the_command(fixtures, tmp_path):
    import shutil

    from typer.testing import CliRunner

    from fakes.models import build_tiny_bert
    from sciembed.cli.main import app

    data = tmp_path / "s2and"
    shutil.copytree(fixtures / "scirepeval" / "s2and", data)
    tiny = build_tiny_bert(tmp_path / "tiny", ["alpha", "beta", "paper"], seed=0)
    result = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["eval", "s2and-inputs", str(data), "-m", str(tiny),
                                                            "--suffix", "tiny", "--experiment", "exp1"])
    assert result.exit_code == 0, result.output
    assert (data / "qian" / "qian_tiny.pkl").is_file()
    assert "custom_block_transfer_experiment_seed_paper.py" in result.output
    assert f"s2and_results={data / 'experiments' / 'exp1'}" in result.output

"""Issue 15, defect 7: every command's bad-input path exits 2 with one `error:` line, never 1 or a traceback.

The CLI tests call `CliRunner().invoke(app, …)`; typer builds the click group from `app` with its `cls`,
`GuardedGroup`, whose `invoke` is the guard. So those tests, the `sciembed` script and `python -m
sciembed.cli.main` all run through the same guard, and the exit codes the tests see are the real ones
(`test_the_test_runner_goes_through_the_guard`, and two subprocess runs below).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from sciembed.cli.errors import GuardedGroup
from sciembed.cli.main import app
from sciembed.papers.ingest import ingest
from sciembed.synth import write_synthetic


@pytest.fixture(scope="module")
def bad(tmp_path_factory):
    root = tmp_path_factory.mktemp("exit")
    write_synthetic(root / "syn", 40, seed=3)
    ingest([root / "syn" / "papers.jsonl.gz"], root / "ing", progress=False)
    (root / "bad.json").write_bytes(b'{"a": [1, 2')
    beir = root / "beir"
    (beir / "qrels").mkdir(parents=True)
    (beir / "corpus.jsonl").write_text('{"_id": "d1", "text": "alpha"}\n')
    (beir / "queries.jsonl").write_text('{"_id": "q1", "text": "alpha"}\n')
    (beir / "qrels" / "test.tsv").write_text("q1\td1\t0\n")  # no query with a relevant document
    (root / "lr.yaml").write_text("training:\n  learning_rate: .inf\n")
    (root / "suite.yaml").write_text("models: 3\n")
    (root / "pools.jsonl").write_bytes(b'{"query_id": 1}\n\xff\n')
    return root


CASES = {
    "ingest-missing-input": ["corpus", "ingest", "{r}/nope", "--out", "{r}/o1"],
    "ingest-unknown-format": ["corpus", "ingest", "{r}/syn/papers.jsonl.gz", "--out", "{r}/o2", "--format", "weird"],
    "ingest-strict": ["corpus", "ingest", "{r}/bad.json", "--out", "{r}/o3", "--strict", "--format", "jsonl"],
    "inspect-unknown-paper": ["corpus", "inspect", "{r}/ing", "--paper", "nonexistent"],
    "stats-not-a-corpus": ["corpus", "stats", "{r}/nope"],
    "corpus-build-bad-config": ["corpus", "build", "{r}/ing", "-o", "{r}/b1", "--config", "{r}/lr.yaml"],
    "corpus-build-missing-edges": ["corpus", "build", "{r}/ing", "-o", "{r}/b2", "-e", "{r}/nope.csv"],
    "corpus-show-unbuilt": ["corpus", "show", "{r}/ing"],
    "eval-no-evaluable-query": ["eval", "run", "--kind", "beir", "{r}/beir", "-m", "bm25", "-o", "{r}/e1"],
    "eval-pools-nothing-usable": ["eval", "run", "--kind", "pools", "{r}/pools.jsonl", "-m", "bm25", "-o", "{r}/e2"],
    "eval-unbuilt-corpus": ["eval", "run", "{r}/ing", "-m", "bm25", "-o", "{r}/e3"],
    "compare-not-a-run": ["eval", "compare", "{r}/nope", "{r}/nope"],
    "index-not-a-corpus": ["index", "build", "{r}/nope", "--out", "{r}/i1", "--model", "bm25"],
    "search-not-an-index": ["index", "search", "{r}/nope", "--query", "x"],
    "train-lr-inf": ["train", "window", "--corpus", "{r}/ing", "--out", "{r}/t1", "--learning-rate", "inf"],
    "train-config-lr-inf": ["train", "window", "--corpus", "{r}/ing", "--out", "{r}/t2", "--config", "{r}/lr.yaml"],
    "beir-scitldr-not-json": ["beir", "scitldr", "{r}/bad.json", "-o", "{r}/s1"],
    "bench-bad-suite": ["eval", "suite", "{r}/suite.yaml"],
    "study-not-a-corpus": ["study", "s2full", "{r}/nope", "-o", "{r}/st"],
    "prism-not-a-corpus": ["prism", "search", "{r}/nope", "--paper", "x"],
    "summaries-not-a-corpus": ["summaries", "generate", "{r}/nope", "-o", "{r}/sm.jsonl"],
    "serve-not-an-index": ["index", "serve", "{r}/nope"],
    "synth-out-is-a-file": ["synth", "--out", "{r}/bad.json", "--n-papers", "5"],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_exits_2_with_one_line(bad, case):
    args = [a.format(r=bad) for a in CASES[case]]
    run = CliRunner().invoke(app, args)
    assert run.exit_code == 2, (run.output, run.exception)
    assert isinstance(run.exception, SystemExit) and "Traceback" not in run.output
    errors = [line for line in run.output.splitlines() if line.startswith("error")]
    assert len(errors) == 1, run.output
    assert len(" ".join(run.output.split()).split("error")) == 2  # one message (rich may wrap it over lines)


def test_the_test_runner_goes_through_the_guard(bad, tmp_path):
    assert isinstance(typer.main.get_command(app), GuardedGroup)
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    for f in (bad / "ing").iterdir():
        (damaged / f.name).write_bytes(f.read_bytes())
    parquet = damaged / "papers.parquet"
    parquet.write_bytes(parquet.read_bytes()[: parquet.stat().st_size // 2])  # truncated: raised deep in a stage
    run = CliRunner().invoke(app, ["corpus", "inspect", str(damaged), "--paper", "x"])
    assert run.exit_code == 2 and "damaged" in run.output, run.output


def test_bad_beir_records_are_counted_and_shown_with_file_and_line(bad, tmp_path):
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    (beir / "corpus.jsonl").write_bytes(b'{"_id": "d1", "text": "alpha"}\n{"_id": "d2", "text": "caf\xe9"}\n'
                                        b'{"_id": "d3", "title": 5, "text": "x"}\n')
    (beir / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "alpha"}) + "\n")
    (beir / "qrels" / "test.tsv").write_text("q1\td1\t1\nq1\td3\tinf\n")
    run = CliRunner().invoke(app, ["eval", "run", "--kind", "beir", str(beir), "-m", "bm25", "-o", str(tmp_path / "ev"),
                                   "--run-depth", "0"])
    text = " ".join(run.output.split())
    assert run.exit_code == 0, run.output
    assert "line is not valid UTF-8: 1" in text and "corpus.jsonl:2" in text
    assert "document field of the wrong JSON type: 1" in text and "corpus.jsonl:3" in text
    assert "qrels score is not finite or out of range: 1" in text and "qrels/test.tsv:2" in text


@pytest.mark.parametrize("case", ["eval-no-evaluable-query", "synth-out-is-a-file"])
def test_the_real_entry_point_exits_2(bad, case):
    args = [a.format(r=bad) for a in CASES[case]]
    done = subprocess.run([sys.executable, "-m", "sciembed.cli.main", *args], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.strip().startswith("error")
    assert len(done.stderr.strip().splitlines()) <= 2  # one message, wrapped at most once

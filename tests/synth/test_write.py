"""Writing a synthetic corpus to disk, and the `sciembed synth` command."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys

from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.papers.io import read_jsonl
from sciembed.synth import SyntheticCorpus, generate_papers, paper_id, write_synthetic
from sciembed.synth.write import EDGES_FILE, MANIFEST_FILE, PAPERS_FILE, README_FILE

FILES = (PAPERS_FILE, EDGES_FILE, README_FILE, MANIFEST_FILE)


def test_write_is_complete_consistent_and_byte_identical(tmp_path):
    a = write_synthetic(tmp_path / "a", 60, seed=9, no_body=0.1)
    b = write_synthetic(tmp_path / "b", 60, seed=9, no_body=0.1)
    c = write_synthetic(tmp_path / "c", 60, seed=10, no_body=0.1)
    assert a == tmp_path / "a"
    for name in FILES:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert (a / PAPERS_FILE).read_bytes() != (c / PAPERS_FILE).read_bytes()

    papers = list(read_jsonl(a / PAPERS_FILE))
    assert papers == list(generate_papers(60, seed=9, no_body=0.1))

    with open(a / EDGES_FILE, newline="") as f:
        rows = list(csv.reader(f))
    graph = SyntheticCorpus(60, 9).graph
    assert rows[0] == ["citing_id", "cited_id"]
    assert rows[1:] == [[paper_id(x), paper_id(y)] for x, y in zip(graph.citing, graph.cited, strict=True)]

    manifest = json.loads((a / MANIFEST_FILE).read_text())
    assert manifest["synthetic"] is True and manifest["seed"] == 9 and manifest["options"]["no_body"] == 0.1
    counts = manifest["counts"]
    assert counts["papers"] == 60 and counts["edges"] == len(rows) - 1
    assert counts["no_body"] == sum(not p.sections for p in papers)
    assert counts["references_in_corpus"] + counts["references_outside"] == sum(len(p.references) for p in papers)
    assert counts["references_in_corpus"] == counts["edges"]
    assert sum(manifest["domains"].values()) == 60
    assert "SYNTHETIC" in (a / README_FILE).read_text()


def test_cli_writes_corpus_and_says_it_is_synthetic(tmp_path):
    out = tmp_path / "demo"
    result = CliRunner().invoke(app, ["synth", "--out", str(out), "--n-papers", "40", "--seed", "2",
                                      "--set", "same_topic=0.9", "--set", "appendix=1"])
    assert result.exit_code == 0, result.output
    assert "synthetic" in result.output.lower()
    assert all((out / name).exists() for name in FILES)
    manifest = json.loads((out / MANIFEST_FILE).read_text())
    assert manifest["options"]["same_topic"] == 0.9 and manifest["options"]["appendix"] == 1.0
    assert all(any(s.heading.startswith("Appendix A") for s in p.sections)
               for p in read_jsonl(out / PAPERS_FILE) if p.sections)


def test_cli_rejects_bad_options_with_one_clear_message(tmp_path):
    result = CliRunner().invoke(app, ["synth", "--out", str(tmp_path / "x"), "--set", "bogus=1",
                                      "--set", "no_body=2"])
    assert result.exit_code != 0
    text = " ".join(result.output.split())
    assert "2 invalid option(s)" in text and "bogus" in text and "no_body" in text
    assert not (tmp_path / "x").exists()


def test_output_does_not_depend_on_the_process(tmp_path):
    """Same bytes from another interpreter with another string-hash seed (no set/dict-order leaks)."""
    here = write_synthetic(tmp_path / "here", 30, seed=4)
    code = ("import sys; from pathlib import Path; from sciembed.synth import write_synthetic; "
            "write_synthetic(Path(sys.argv[1]), 30, seed=4)")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "there")], check=True, env=env)
    for name in FILES:
        assert (here / name).read_bytes() == (tmp_path / "there" / name).read_bytes(), name

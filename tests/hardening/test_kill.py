"""Issue 15 kill tests: `ingest` and `corpus build` killed with SIGKILL at seeded random points."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sciembed.fuzzing.kill import run_and_kill, state_of
from sciembed.papers.ingest import ingest
from sciembed.synth import write_synthetic


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    root = tmp_path_factory.mktemp("kill")
    write_synthetic(root / "synth", 200, seed=5)
    ingest([root / "synth" / "papers.jsonl.gz"], root / "previous", progress=False)
    return root


@pytest.mark.parametrize("seed", [0, 1])
def test_killed_ingest_leaves_nothing_or_the_previous_corpus(synth, tmp_path, seed):
    fresh = tmp_path / "fresh"
    run_and_kill(["ingest", str(synth / "synth" / "papers.jsonl.gz"), "--out", str(fresh), "--no-progress"],
                 fresh, seed, max_delay_s=0.6)
    assert state_of(fresh) in ("absent", "finished")
    previous = tmp_path / "previous"
    previous.mkdir()
    for f in (synth / "previous").iterdir():
        (previous / f.name).write_bytes(f.read_bytes())
    before = json.loads((previous / "manifest.json").read_text())
    run_and_kill(["ingest", str(synth / "synth" / "papers.jsonl.gz"), "--out", str(previous), "--overwrite",
                  "--no-progress"], previous, seed + 10, max_delay_s=0.6)
    assert state_of(previous) == "finished"
    assert json.loads((previous / "manifest.json").read_text())["counts"] == before["counts"]


@pytest.mark.parametrize("seed", [0, 1])
def test_killed_corpus_build_never_passes_for_finished(synth, tmp_path, seed):
    out = tmp_path / "built"
    run_and_kill(["corpus", "build", str(synth / "previous"), "-o", str(out), "-e", str(synth / "synth" / "edges.csv"),
                  "--no-progress"], out, seed, max_delay_s=1.5)
    assert state_of(out) in ("absent", "finished")


@pytest.mark.parametrize("seed", [2])
def test_killed_index_rebuild_is_refused_or_finished(synth, tmp_path, seed):
    from sciembed.models.testing import build_tiny_bert
    from sciembed.retrieval.dense import IndexLoadError
    from sciembed.retrieval.paper_index import open_paper_index

    bert = build_tiny_bert(tmp_path / "bert", [f"w{i}" for i in range(50)])
    out = tmp_path / "index"
    args = ["index", str(synth / "previous"), "--model", str(bert), "--out", str(out), "--view", "ta"]
    subprocess.run([sys.executable, "-m", "sciembed.cli.main", *args], check=True, capture_output=True, timeout=300)
    assert len(open_paper_index(out).titles) == 200
    outcome = run_and_kill(args, out, seed, max_delay_s=5.0, timeout_s=240, ready=synth)  # a rebuild, killed
    try:
        index = open_paper_index(out)
    except IndexLoadError as err:  # refusable: the manifest is gone or a checksum no longer matches
        assert outcome == "killed" and ("manifest.json" in str(err) or "checksum" in str(err) or "missing" in str(err))
    else:
        assert len(index.titles) == 200

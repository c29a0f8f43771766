"""Issue 15 kill tests: `ingest`, `corpus build` and `index` killed with SIGKILL at seeded random points.

Three seeds per command, run side by side (each in its own directory) so the seeds cost about one run's
time. After each kill the output is the previous state, a finished new one, or a partial state the next
command refuses or redoes: never a directory that passes for finished with wrong contents.
`train` has its own file (tests/training/test_kill_train.py).
"""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest
from typer.testing import CliRunner

from fakes.fuzzing.kill import run_and_kill, state_of
from sciembed.cli.main import app
from sciembed.papers.ingest import ingest
from sciembed.synth import write_synthetic

SEEDS = (0, 1, 2)


def kill_each(seeds, run_one):
    """run_one(seed) for every seed at once (threads wait on subprocesses); {seed: outcome}."""
    with ThreadPoolExecutor(len(seeds)) as pool:
        return dict(zip(seeds, pool.map(run_one, seeds), strict=True))


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    root = tmp_path_factory.mktemp("kill")
    write_synthetic(root / "synth", 200, seed=5)
    ingest([root / "synth" / "papers.jsonl.gz"], root / "previous", progress=False)
    return root


def test_killed_ingest_leaves_nothing_or_the_previous_corpus(synth, tmp_path):
    source = str(synth / "synth" / "papers.jsonl.gz")
    before = json.loads((synth / "previous" / "manifest.json").read_text())["counts"]
    for seed in SEEDS:
        shutil.copytree(synth / "previous", tmp_path / f"previous-{seed}")

    def fresh(seed):
        return run_and_kill(["corpus", "ingest", source, "--out", str(tmp_path / f"fresh-{seed}"), "--no-progress"],
                            tmp_path / f"fresh-{seed}", seed, max_delay_s=0.6)

    def over_previous(seed):
        out = tmp_path / f"previous-{seed}"
        return run_and_kill(["corpus", "ingest", source, "--out", str(out), "--overwrite", "--no-progress"], out,
                            seed + 10,
                            max_delay_s=0.6)

    kill_each(SEEDS, fresh)
    kill_each(SEEDS, over_previous)
    for seed in SEEDS:
        out = tmp_path / f"fresh-{seed}"
        assert state_of(out) in ("absent", "finished"), seed
        if state_of(out) == "absent":  # the next ingest is not blocked by what the killed one left
            ingest([synth / "synth" / "papers.jsonl.gz"], out, progress=False)
        assert json.loads((out / "manifest.json").read_text())["counts"] == before
        previous = tmp_path / f"previous-{seed}"
        assert state_of(previous) == "finished", seed
        assert json.loads((previous / "manifest.json").read_text())["counts"] == before


def test_killed_corpus_build_never_passes_for_finished(synth, tmp_path):
    edges = str(synth / "synth" / "edges.csv")

    def build(seed):
        out = tmp_path / f"built-{seed}"
        return run_and_kill(["corpus", "build", str(synth / "previous"), "-o", str(out), "-e", edges,
                             "--no-progress"], out, seed, max_delay_s=1.5)

    kill_each(SEEDS, build)
    runner = CliRunner()
    for seed in SEEDS:
        out = tmp_path / f"built-{seed}"
        state = state_of(out)
        assert state in ("absent", "finished"), (seed, state)
        again = runner.invoke(app, ["corpus", "build", str(synth / "previous"), "-o", str(out), "-e", edges,
                                    "--no-progress"])
        if state == "absent":  # the next build runs to the end
            assert again.exit_code == 0 and state_of(out) == "finished", (seed, again.output)
        else:  # a finished build is not silently replaced
            assert again.exit_code == 2 and "--overwrite" in again.output, (seed, again.output)


@pytest.fixture(scope="module")
def built_index(synth, tmp_path_factory):
    from fakes.models import build_tiny_bert
    from sciembed.index.paper_index import build_paper_index
    from sciembed.models import load_encoder

    root = tmp_path_factory.mktemp("kill-index")
    bert = build_tiny_bert(root / "bert", [f"w{i}" for i in range(50)])
    encoder = load_encoder(str(bert))
    build_paper_index(synth / "previous", encoder, "ta", root / "index", show_progress=False)
    return bert, encoder, root / "index"


def test_killed_index_rebuild_is_refused_or_finished(synth, built_index, tmp_path):
    from sciembed.index.paper_index import build_paper_index, open_paper_index
    from sciembed.retrieval.dense import IndexLoadError

    bert, encoder, previous = built_index
    for seed in SEEDS:
        shutil.copytree(previous, tmp_path / f"index-{seed}")

    def rebuild(seed):  # kills land from the imports to the final manifest write (delay from the start)
        out = tmp_path / f"index-{seed}"
        args = ["index", "build", str(synth / "previous"), "--model", str(bert), "--out", str(out), "--view", "ta",
                "--overwrite"]
        return run_and_kill(args, out, seed, max_delay_s=12.0, timeout_s=240, ready=synth)

    outcomes = kill_each(SEEDS, rebuild)
    for seed in SEEDS:
        out = tmp_path / f"index-{seed}"
        try:
            index = open_paper_index(out)
        except IndexLoadError as err:  # refusable: the manifest is gone or a checksum no longer matches
            assert outcomes[seed] == "killed", seed
            assert "manifest.json" in str(err) or "checksum" in str(err) or "missing" in str(err), err
            build_paper_index(synth / "previous", encoder, "ta", out, show_progress=False)  # the next run redoes it
            index = open_paper_index(out)
        assert len(index.titles) == 200, seed

"""Issue 15 kill test: `train` killed with SIGKILL at seeded random points never leaves a model that looks finished."""

from __future__ import annotations

import json

import pytest

from sciembed.fuzzing.kill import run_and_kill
from sciembed.training.rundir import RunDir

SETTINGS = ["model.max_seq_length=64", "model.projection={hidden: 24, out: 16}", "training.batch_size=10",
            "training.mini_batch_size=4", "training.epochs=2", "training.learning_rate=1e-3",
            "checkpoint.every_steps=2", "checkpoint.keep=null"]


@pytest.mark.parametrize("seed", [3])
def test_killed_training_leaves_a_refusable_or_finished_run(tiny_bert, tiny_corpus, tmp_path, seed):
    out = tmp_path / "run"
    args = ["train", "window", "--corpus", str(tiny_corpus), "--out", str(out), "--base-model", str(tiny_bert),
            "--max-steps", "6", *[a for s in SETTINGS for a in ("--set", s)]]
    # Work "starts" when the trainer writes its first checkpoint directory; kill within the next seconds.
    outcome = run_and_kill(args, out, seed, max_delay_s=4.0, timeout_s=240, ready=out / "checkpoints")
    model, summary = out / "model", out / "summary.json"
    if model.exists():  # finished before the kill: whole model and summary
        assert (model / "modules.json").is_file() and json.loads(summary.read_text())["completed"]
    else:  # killed: no model; any checkpoint it resumes from is complete
        assert outcome == "killed"
        last = RunDir(out).last_checkpoint()
        assert last is None or (last / "rng_state.pth").is_file()

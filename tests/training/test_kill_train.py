"""Issue 15 kill test: `train` killed with SIGKILL at seeded random points never leaves a model that looks finished.

Three seeds run side by side (each its own run directory). After a kill with a complete checkpoint, the same
`train` without `--resume` is refused and with `--resume` finishes at max_steps; killed before any complete
checkpoint, `--resume` is refused and a plain start begins again.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

from typer.testing import CliRunner

from fakes.fuzzing.kill import run_and_kill
from sciembed.cli.main import app
from sciembed.training.rundir import RunDir

SETTINGS = ["model.max_seq_length=64", "model.projection={hidden: 24, out: 16}", "training.batch_size=10",
            "training.mini_batch_size=4", "training.epochs=2", "training.learning_rate=1e-3",
            "checkpoint.every_steps=2", "checkpoint.keep=null"]
SEEDS = (3, 4, 5)
MAX_STEPS = 6


def _args(tiny_bert, tiny_corpus, out) -> list[str]:
    return ["train", "window", "--corpus", str(tiny_corpus), "--out", str(out), "--base-model", str(tiny_bert),
            "--max-steps", str(MAX_STEPS), *[a for s in SETTINGS for a in ("--set", s)]]


def test_killed_training_leaves_a_refusable_or_finished_run(tiny_bert, tiny_corpus, tmp_path):
    def run_one(seed):
        out = tmp_path / f"run-{seed}"
        # Work "starts" when the trainer writes its first checkpoint directory; kill within the next seconds.
        return run_and_kill(_args(tiny_bert, tiny_corpus, out), out, seed, max_delay_s=4.0, timeout_s=240,
                            ready=out / "checkpoints")

    with ThreadPoolExecutor(len(SEEDS)) as pool:
        outcomes = dict(zip(SEEDS, pool.map(run_one, SEEDS), strict=True))
    runner = CliRunner()
    for seed in SEEDS:
        out = tmp_path / f"run-{seed}"
        model, summary = out / "model", out / "summary.json"
        if not model.exists():  # killed: no model; any checkpoint it resumes from is complete
            assert outcomes[seed] == "killed", seed
            last = RunDir(out).last_checkpoint()
            assert last is None or (last / "rng_state.pth").is_file(), seed
            plain, resume = _args(tiny_bert, tiny_corpus, out), [*_args(tiny_bert, tiny_corpus, out), "--resume"]
            if last is None:  # nothing complete to resume: --resume is refused, a plain start begins again
                refused = runner.invoke(app, resume)
                assert refused.exit_code == 2 and "resume" in refused.output, (seed, refused.output)
                again = runner.invoke(app, plain)
            else:  # a complete checkpoint: a plain start is refused, --resume finishes the run
                refused = runner.invoke(app, plain)
                assert refused.exit_code == 2 and "--resume" in refused.output, (seed, refused.output)
                again = runner.invoke(app, resume)
            assert again.exit_code == 0, (seed, again.output, again.exception)
        assert (model / "modules.json").is_file(), seed
        done = json.loads(summary.read_text())
        assert done["completed"] and done["global_step"] == MAX_STEPS, (seed, done)

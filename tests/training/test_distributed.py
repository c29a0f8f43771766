"""Two processes (torchrun, gloo, CPU) train what one process trains: same losses, same weights.

The window (CachedMNRL), JEPA (prediction + SIGReg, EMA target, predictor) and InfoNCE recipes run
a few steps with a tiny random-init BERT whose dropout is off: dropout draws its masks from each
process's own generator, so with it on, N processes equal one only in distribution, not number for
number. The batch is global (each process takes half), contrastive negatives are gathered across
the processes and SIGReg's statistics all-reduced, so the logged losses and the final weights must
match one process within float tolerance (summation order differs).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from .test_jepa_source import section_papers, write_ingested

DRIVER = Path(__file__).with_name("ddp_driver.py")
SRC = Path(__file__).resolve().parents[2] / "src"

SECTION = {
    "model.max_seq_length": 48,
    "data.examples": 48,
    "training.batch_size": 4,
    "training.gradient_accumulation": 2,
    "training.max_steps": 3,
    "training.learning_rate": 1e-3,
    "training.warmup_steps": 1,
    "training.log_every_steps": 1,
    "training.precision": "fp32",
    "checkpoint.every_steps": 100,
}


def spec(bert: Path, window_corpus: Path, section_corpus: Path) -> dict:
    return {
        "window": {"corpus": str(window_corpus), "overrides": {
            "model.base": str(bert), "model.max_seq_length": 64, "model.projection": {"hidden": 24, "out": 16},
            "training.batch_size": 10, "training.mini_batch_size": 4, "training.max_steps": 3,
            "training.learning_rate": 1e-3, "training.log_every_steps": 1, "training.precision": "fp32",
            "checkpoint.every_steps": 100}},
        "jepa": {"corpus": str(section_corpus), "overrides": SECTION | {
            "model.base": str(bert), "predictor.hidden": 16, "predictor.learning_rate": 1e-2,
            "sigreg.weight": 0.5, "sigreg.slices": 16}},
        "infonce": {"corpus": str(section_corpus), "overrides": SECTION | {"model.base": str(bert)}},
    }


def launch(command: list[str], cwd: Path) -> str:
    env = os.environ | {"PYTHONPATH": str(SRC), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                        "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1"}
    for name in ("WORLD_SIZE", "RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(name, None)
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return done.stdout


def losses(run: Path) -> list[float]:
    with open(run / "curves" / "loss.csv") as f:
        return [float(row["loss"]) for row in csv.DictReader(f)]


def weights(run: Path) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return {k: v for f in sorted((run / "model").rglob("*.safetensors")) for k, v in load_file(f).items()}


@pytest.fixture(scope="module")
def runs(tiny_bert, tiny_corpus, tmp_path_factory):
    root = tmp_path_factory.mktemp("ddp")
    bert = shutil.copytree(tiny_bert, root / "bert")
    config = json.loads((bert / "config.json").read_text())
    config.update(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    (bert / "config.json").write_text(json.dumps(config))
    section_corpus = write_ingested(root / "sections", section_papers())
    spec_path = root / "spec.json"
    spec_path.write_text(json.dumps(spec(bert, tiny_corpus, section_corpus)))
    one = launch([sys.executable, str(DRIVER), str(spec_path), str(root / "one")], root)
    two = launch([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                  str(DRIVER), str(spec_path), str(root / "two")], root)
    return {"root": root, "one": one, "two": two}


@pytest.mark.slow
@pytest.mark.parametrize("recipe", ["window", "jepa", "infonce"])
def test_two_processes_train_what_one_trains(runs, recipe):
    one, two = runs["root"] / "one" / recipe, runs["root"] / "two" / recipe
    for run in (one, two):
        assert json.loads((run / "summary.json").read_text())["global_step"] == 3  # max_steps: same meaning
    assert json.loads((two / "summary.json").read_text())["processes"] == 2
    assert losses(two) == pytest.approx(losses(one), rel=1e-4, abs=1e-6)
    a, b = weights(one), weights(two)
    assert a.keys() == b.keys()
    for name in a:
        torch.testing.assert_close(b[name], a[name], rtol=1e-4, atol=2e-5, msg=name)
    from safetensors.torch import load_file

    base = load_file(runs["root"] / "bert" / "model.safetensors")
    shared = [k for k in base if k in a]
    assert shared and any(not torch.allclose(base[k], a[k], atol=1e-4) for k in shared)  # it did train


@pytest.mark.slow
def test_the_global_batch_and_its_negatives_are_printed(runs):
    one, two = runs["one"], runs["two"]
    assert "batch: 10 examples per micro-batch over 2 process(es) = 5 per process" in two
    assert "in-batch negatives per anchor: 9 (global, gathered across processes)" in two
    assert "in-batch negatives per anchor: 3 (global, gathered across processes)" in two  # infonce, micro 4
    assert "SIGReg statistics over 4 embeddings per micro-batch (all-reduced across processes)" in two
    assert "in-batch negatives per anchor: 9 (one process)" in one


@pytest.mark.slow
def test_the_cli_under_torchrun_reports_once_and_exits_0(runs, tiny_corpus):
    """`torchrun … sciembed train window` (the documented command): rank 1 must not read rank 0's run files."""
    out = runs["root"] / "cli"
    stdout = launch([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                     "-m", "sciembed.cli.main", "train", "window", "--corpus", str(tiny_corpus), "--out", str(out),
                     "--set", f"model.base={runs['root'] / 'bert'}", "--set", "model.max_seq_length=32",
                     "--set", "training.batch_size=4", "--set", "training.mini_batch_size=4",
                     "--set", "training.max_steps=2", "--set", "training.precision=fp32",
                     "--set", "checkpoint.every_steps=100", "--set", "validation.every_steps=0"], runs["root"])
    assert stdout.count("model: ") == 1 and "steps 2/2" in stdout
    assert json.loads((out / "summary.json").read_text())["processes"] == 2

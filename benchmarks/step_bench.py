"""What the training-step benchmarks share (train_step, train_triplet, train_memory).

Synthetic texts that fill a token budget, the RSS probes, the measured loop
(peaks taken over the level after warm-up: ``ru_maxrss`` and psutil's RSS on
CPU, ``torch.cuda.max_memory_allocated`` on a GPU), one child process per
variant so each peak is its own, and the host facts every report carries.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WORDS = (
    "model", "graph", "citation", "section", "method", "result", "window", "encoder", "retrieval", "protein",
    "cell", "network", "training", "dataset", "sample", "measure", "signal", "variance", "layer", "token",
    "attention", "embedding", "corpus", "abstract", "paper", "theorem", "experiment", "baseline", "accuracy",
    "energy", "spectrum", "solver", "gradient", "kernel", "matrix", "sequence",
)


def add_run_args(parser: argparse.ArgumentParser, out: Path, max_seq_length: int, steps: int,
                 model: str | None = None, model_help: str = "path / hub id (default: the offline MiniLM)") -> None:
    """The options every step benchmark takes: token budget, measured steps, model, device, output file."""
    parser.add_argument("--max-seq-length", type=int, default=max_seq_length)
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--model", default=model, help=model_help)
    parser.add_argument("--device", default=None, help="cpu | cuda (default: cuda when available)")
    parser.add_argument("--out", type=Path, default=out)


def default_device(requested: str | None) -> str:
    import torch

    return requested or ("cuda" if torch.cuda.is_available() else "cpu")


def offline_env() -> None:
    """No hub access and no tokenizer threads unless the caller asked for them."""
    for key, value in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"), ("TOKENIZERS_PARALLELISM", "false")):
        os.environ.setdefault(key, value)


def texts(n: int, words: int, seed: int, prefix: str = "") -> list[str]:
    """`n` seeded texts of `words` words (enough to fill a `words`-token budget), each after `prefix` if given."""
    rng = random.Random(seed)
    lead = f"{prefix} " if prefix else ""
    return [lead + " ".join(rng.choice(WORDS) for _ in range(words)) for _ in range(n)]


def rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def sync(device: str) -> None:
    """Wait for queued GPU work, so a timer or a memory reading sees all of it."""
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


@dataclass(frozen=True)
class Timed:
    """One measured run of steps, after warm-up."""

    values: list[float]  # the loss of each step
    seconds: float
    rss_after_warmup_mb: float
    peak_rss_before_mb: float
    peak_rss_mb: float
    cuda_after_warmup_mb: float | None = None
    cuda_peak_mb: float | None = None

    def speed(self, examples: int) -> dict[str, float]:
        """Wall time, examples/s over the measured steps, and the last step's loss."""
        return {"seconds": round(self.seconds, 3), "examples_per_second": round(examples / self.seconds, 2),
                "final_loss": round(self.values[-1], 4)}

    def rss(self) -> dict[str, float]:
        return {"peak_rss_mb": round(self.peak_rss_mb, 1),
                "peak_rss_over_warmup_mb": round(self.peak_rss_mb - self.rss_after_warmup_mb, 1)}

    def cuda(self) -> dict[str, float]:
        if self.cuda_peak_mb is None or self.cuda_after_warmup_mb is None:
            return {}
        return {"cuda_peak_allocated_mb": round(self.cuda_peak_mb, 1),
                "cuda_peak_over_warmup_mb": round(self.cuda_peak_mb - self.cuda_after_warmup_mb, 1)}


def timed_steps(run: Callable[[], list[float]], device: str) -> Timed:
    """Time `run` (the measured steps; the caller has warmed up) and read the memory peaks around it."""
    import torch

    cuda = device.startswith("cuda")
    sync(device)
    base = None
    if cuda:
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated() / 2**20
    base_rss, peak_before = rss_mb(), peak_rss_mb()
    start = time.perf_counter()
    values = run()
    sync(device)
    seconds = time.perf_counter() - start
    peak_cuda = torch.cuda.max_memory_allocated() / 2**20 if cuda else None
    return Timed(values, seconds, base_rss, peak_before, peak_rss_mb(), base, peak_cuda)


def run_child(cmd: list[str], label: dict[str, Any], error_lines: int = 1) -> dict[str, Any]:
    """Run one variant in a fresh process; its last stdout line is its JSON result, or the stderr tail on failure."""
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return {**label, "error": proc.stderr.strip().splitlines()[-error_lines:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def host() -> dict[str, Any]:
    import torch

    return {"torch_threads": torch.get_num_threads(), "cpu_count": os.cpu_count(),
            "load_average_at_end": os.getloadavg(), "platform": platform.platform(), "torch": torch.__version__}


def write_report(out: Path, report: dict[str, Any]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")

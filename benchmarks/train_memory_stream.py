"""Peak memory of `sciembed train window` as the corpus grows: papers held in memory (before) vs
streamed from the memory-mapped paper store (after).

For every (code, corpus, mode) cell a fresh process tree runs the real CLI and is polled every
0.25 s; the cell's peaks are the high-water marks of the *sum* over the tree (launcher, ranks,
dataloader workers) of RSS and of PSS (proportional set size: a page shared by k processes counts
1/k, so file-backed store pages and fork-shared memory are not counted k times). Modes:

- ``dry_run``: ``train window --dry-run`` (reads the split, plans every batch; no model, no torch);
- ``workers``: 20 training steps in one process with 2 dataloader workers;
- ``ranks``: 20 training steps under ``torchrun --nproc_per_node 2`` (gloo, CPU), 1 worker each;
- ``jepa_dry_run``: ``train jepa --dry-run`` (the section-pair funnel over the train split, the draws).

The model is a tiny random-init BERT (2 layers, 128 dims, MiniLM's tokenizer), so the model's own
share is small and roughly the same in every cell; the 10k cell of each mode is the floor that
framework + model cost, and growth over it is what the data costs. "before" is the code at
``--before-src`` (main before streaming), "after" this checkout's ``src``. A cell whose tree passes
``--cap-gb`` of RSS is killed and recorded as such (the box is shared).

    .venv/bin/python benchmarks/train_memory_stream.py --corpus 10000=/tmp/c10k/corpus \\
        --corpus 100000=/tmp/c100k/corpus --before-src /tmp/before/src
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from sciembed.ioutil.portable import portable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from step_bench import host

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "train_memory_stream.json"
MODES = ("dry_run", "workers", "ranks", "jepa_dry_run")
STEPS = 20


def tree_memory(proc: psutil.Process) -> tuple[float, float, int]:
    """(RSS sum, PSS sum) in MiB and the number of processes of `proc`'s tree."""
    rss = pss = 0.0
    members = [proc]
    with contextlib.suppress(psutil.Error):
        members += proc.children(recursive=True)
    for p in members:
        try:
            info = p.memory_full_info()
            rss += info.rss
            pss += getattr(info, "pss", info.rss)
        except psutil.Error:
            continue
    return rss / 2**20, pss / 2**20, len(members)


def run_cell(command: list[str], env: dict[str, str], cap_mb: float, log: Path) -> dict:
    started = time.perf_counter()
    with open(log, "w") as out:
        child = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        proc = psutil.Process(child.pid)
        peak_rss = peak_pss = 0.0
        most = 0
        killed = False
        while child.poll() is None:
            rss, pss, n = tree_memory(proc)
            peak_rss, peak_pss, most = max(peak_rss, rss), max(peak_pss, pss), max(most, n)
            if rss > cap_mb:
                killed = True
                for p in [*proc.children(recursive=True), proc]:
                    with contextlib.suppress(psutil.Error):
                        p.kill()
                break
            time.sleep(0.25)
        child.wait()
    tail = log.read_text()[-1500:]
    return {"peak_rss_mb": round(peak_rss, 1), "peak_pss_mb": round(peak_pss, 1), "processes": most,
            "seconds": round(time.perf_counter() - started, 1), "returncode": child.returncode,
            "killed_over_cap": killed, "log_tail": tail if child.returncode else tail[-300:]}


def command(mode: str, corpus: Path, model: Path, out: Path) -> list[str]:
    train = ["-m", "sciembed.cli.main", "train", "window", "--corpus", str(corpus)]
    sets = ["model.max_seq_length=32", "training.batch_size=16", "training.mini_batch_size=16",
            f"training.max_steps={STEPS}", "training.precision=fp32", "training.log_every_steps=5",
            "checkpoint.every_steps=1000", "validation.every_steps=0", f"model.base={model}",
            f"training.dataloader_workers={2 if mode == 'workers' else 1}"]
    flags = [a for s in sets for a in ("--set", s)]
    if mode == "dry_run":
        return [sys.executable, *train, "--dry-run", *flags]
    if mode == "jepa_dry_run":
        return [sys.executable, "-m", "sciembed.cli.main", "train", "jepa", "--corpus", str(corpus), "--dry-run",
                "--set", "data.examples=1000000", "--set", "training.batch_size=512"]
    if mode == "workers":
        return [sys.executable, *train, "--out", str(out), *flags]
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
            *train, "--out", str(out), *flags]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", required=True, help="PAPERS=DIR of a built corpus")
    parser.add_argument("--before-src", type=Path, help="src/ of the code before streaming (omit: after only)")
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    parser.add_argument("--codes", nargs="+", default=["after", "before"], choices=["after", "before"])
    parser.add_argument("--cap-gb", type=float, default=9.0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from train_memory import build_tiny

    work = Path(tempfile.mkdtemp(prefix="train-memory-stream-"))
    model = build_tiny(work / "tiny-bert")
    corpora = sorted(((int(n), Path(d)) for n, d in (c.split("=", 1) for c in args.corpus)))
    srcs = {"after": ROOT / "src", "before": args.before_src}
    previous = json.loads(args.out.read_text()) if args.out.exists() else {}
    cells = previous.get("cells", [])
    for papers, corpus in corpora:
        for code in args.codes:
            if srcs[code] is None:
                continue
            for mode in args.modes:
                env = {k: v for k, v in os.environ.items() if k not in ("WORLD_SIZE", "RANK", "LOCAL_RANK")}
                env |= {"PYTHONPATH": str(srcs[code]), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                        "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1"}
                out = work / f"run-{code}-{papers}-{mode}"
                log = work / f"{code}-{papers}-{mode}.log"
                result = run_cell(command(mode, corpus, model, out), env, args.cap_gb * 1024, log)
                shutil.rmtree(out, ignore_errors=True)
                cell = {"code": code, "corpus_papers": papers, "mode": mode, **result}
                print(json.dumps({k: v for k, v in cell.items() if k != "log_tail"}), flush=True)
                cells = [c for c in cells if (c["code"], c["corpus_papers"], c["mode"]) != (code, papers, mode)]
                cells.append(cell)
                args.out.parent.mkdir(parents=True, exist_ok=True)
                args.out.write_text(json.dumps(portable({
                    "what": "peak memory of `sciembed train window` (--dry-run; 20 steps with 2 dataloader workers; "
                            "20 steps on 2 torchrun ranks, gloo, CPU) by corpus size, before and after streaming",
                    "model": "tiny random-init BERT: 2 layers, 128 hidden, MiniLM tokenizer",
                    "batch": "16 (global), mini-batch 16, 32 tokens, fp32",
                    "measure": "high-water of the process tree's summed RSS and PSS, polled every 0.25 s",
                    "host": host(),
                    "cells": sorted(cells, key=lambda c: (c["code"], c["corpus_papers"], MODES.index(c["mode"]))),
                }, in_text=True), indent=1) + "\n")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

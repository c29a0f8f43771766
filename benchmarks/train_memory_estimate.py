"""The training-memory estimator (`sciembed.training.memory_estimate`) against measured CPU peaks.

For a small random-init BERT (2 layers, 128 dims, MiniLM's tokenizer) and the offline MiniLM-L6,
several pair-batch sizes and token budgets, with and without gradient checkpointing, one child
process per cell runs what the trainer runs: MNRL forward over anchors and positives (2 × batch
texts of exactly `seq` tokens), backward, AdamW step — twice, so the second step holds the
optimizer state while its activations peak.

Measured peak = the process's resident high-water mark (VmHWM, reset through
/proc/self/clear_refs just before the first step) minus its resident size at that moment (model
weights loaded, inputs tokenized). glibc is set up as training sets it (`return_freed_memory`:
large blocks are mmapped and unmapped when freed), so the resident size follows what torch holds.
`tracemalloc` does not see torch's allocations, and PyTorch has no CPU allocator statistics.
Estimated = the estimator's total minus the weights (already resident at the baseline), for the
same config (`window` recipe, loss mnrl, no projection head) estimated for the CPU in fp32.

    .venv/bin/python benchmarks/train_memory_estimate.py            # both models, writes the results JSON
    .venv/bin/python benchmarks/train_memory_estimate.py --models tiny --batches 8 --seqs 64
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from step_bench import host, offline_env, run_child, texts, write_report
from train_memory import TINY, build_tiny

RESULTS = Path(__file__).resolve().parent / "results" / "train_memory_estimate.json"


def window_config(model: str, batch: int, seq: int, checkpointing: bool):
    from sciembed.training.config import WindowConfig

    return WindowConfig.model_validate({
        "model": {"base": model, "max_seq_length": seq, "projection": None},
        "training": {"batch_size": batch, "mini_batch_size": batch, "loss": "mnrl", "precision": "fp32",
                     "gradient_checkpointing": checkpointing},
    })


def child(model_path: str, batch: int, seq: int, checkpointing: bool) -> dict:
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer

    from sciembed.ioutil.memory import current_mb, peak_mb, reset_peak, return_freed_memory

    return_freed_memory()
    torch.manual_seed(0)
    transformer = Transformer(model_path, max_seq_length=seq)
    model = SentenceTransformer(modules=[transformer, Pooling(transformer.get_embedding_dimension())], device="cpu")
    model.train()
    if checkpointing:  # what the trainer does with gradient_checkpointing=True
        transformer.auto_model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    loss = MultipleNegativesRankingLoss(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
    batches = [[model.preprocess(texts(batch, seq, 10 * step + side)) for side in (0, 1)] for step in range(2)]
    lengths = {int(f["input_ids"].shape[1]) for b in batches for f in b}
    assert lengths == {seq}, f"inputs are not {seq} tokens: {lengths}"
    baseline = current_mb()
    if not reset_peak():
        raise SystemExit("cannot reset the peak resident size (/proc/self/clear_refs)")
    started = time.perf_counter()
    for features in batches:
        optimizer.zero_grad(set_to_none=True)
        value = loss(features, torch.zeros(0))
        value.backward()
        optimizer.step()
    seconds = time.perf_counter() - started
    return {"batch_pairs": batch, "texts": 2 * batch, "seq": seq, "checkpointing": checkpointing,
            "measured_bytes": (peak_mb() - baseline) * 2**20, "baseline_rss_mb": baseline,
            "seconds_two_steps": round(seconds, 2)}


def with_estimate(cell: dict, model_path: str) -> dict:
    """The cell with the estimator's numbers for the same config (CPU, fp32), weights left out."""
    from sciembed.training.memory_estimate import estimate

    if "measured_bytes" not in cell:
        return cell
    est = estimate(window_config(model_path, cell["batch_pairs"], cell["seq"], cell["checkpointing"]), "cpu")
    parts = {c.name: c.with_ if cell["checkpointing"] else c.without for c in est.components}
    predicted = sum(v for k, v in parts.items() if not k.startswith("weights"))
    measured = cell["measured_bytes"]
    return {**cell, "estimated_bytes": predicted,
            "ratio_estimated_over_measured": round(predicted / measured, 3) if measured > 0 else None,
            "estimate_components": parts}


def write(out: Path, cells: list[dict], machine: dict, extra: dict | None = None) -> None:
    ratios = [c["ratio_estimated_over_measured"] for c in cells if c.get("ratio_estimated_over_measured")]
    write_report(out, {
        "benchmark": "train_memory_estimate",
        "what": "estimated vs measured peak memory of a training step (MNRL over 2 × batch texts, backward, AdamW), "
                "CPU, fp32, beyond the resident size with the model loaded",
        "method": "fresh subprocess per cell; VmHWM reset via /proc/self/clear_refs before the first of two steps; "
                  "measured = VmHWM - VmRSS at the reset; estimated = estimator total - weights",
        "models": {"tiny": f"random-init BERT {TINY} + MiniLM tokenizer", "minilm": "offline all-MiniLM-L6-v2"},
        "goal": "ratio within 0.75-1.25",
        "within_25_percent": sum(0.75 <= r <= 1.25 for r in ratios), "cells": len(cells),
        "ratio_min": min(ratios, default=None), "ratio_max": max(ratios, default=None),
        "host": machine, **(extra or {}), "runs": cells,
    })


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=["tiny", "minilm"])
    parser.add_argument("--batches", type=int, nargs="+", default=None, help="pair-batch sizes (per model default)")
    parser.add_argument("--seqs", type=int, nargs="+", default=[128, 256])
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--reestimate", action="store_true",
                        help="recompute the estimates of the measured cells already in --out (no new measurement)")
    parser.add_argument("--child", nargs=4, metavar=("MODEL", "BATCH", "SEQ", "CKPT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    offline_env()
    if args.child:
        model, batch, seq, ckpt = args.child
        print(json.dumps(child(model, int(batch), int(seq), ckpt == "1")))
        return

    from sciembed.models.loading import resolve_model_source

    tmp = tempfile.TemporaryDirectory()
    paths = {"tiny": str(build_tiny(Path(tmp.name))), "minilm": resolve_model_source(None)}
    default_batches = {"tiny": [8, 32], "minilm": [4, 16]}
    previous = json.loads(args.out.read_text()) if args.reestimate else {}
    cells = [with_estimate(c, paths[c["model"]]) for c in previous.get("runs", [])]
    machine = previous.get("host") or host()
    for name in [] if args.reestimate else args.models:
        for batch in args.batches or default_batches[name]:
            for seq in args.seqs:
                for ckpt in (False, True):
                    cmd = [sys.executable, __file__, "--child", paths[name], str(batch), str(seq), "1" if ckpt else "0"]
                    cell = {"model": name, **run_child(cmd, {"model": name, "batch_pairs": batch, "seq": seq,
                                                              "checkpointing": ckpt}, error_lines=3)}
                    cells.append(with_estimate(cell, paths[name]))
                    print(json.dumps({k: v for k, v in cells[-1].items() if k != "estimate_components"}), flush=True)
                    write(args.out, cells, machine)  # after every cell: a run stopped early keeps what it measured
    write(args.out, cells, machine, {k: previous[k] for k in ("not_run", "note") if k in previous})
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

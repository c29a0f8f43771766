"""Examples/s and peak memory of one SciJEPA training step — with SIGReg (K slices) and without —
next to an InfoNCE step at the same micro-batch, measured side by side in one run.

A step is what the trainer does for these recipes: loss forward + backward + AdamW step (encoder and,
for JEPA, the residual predictor) + for JEPA the EMA update of the target encoder. Each variant runs in
a fresh subprocess so each peak is its own (CPU: peak RSS over the post-warm-up level; GPU:
``torch.cuda.max_memory_allocated`` over the post-warm-up allocation). Inside the SIGReg variant the
SIGReg term alone (forward + backward on the step's context embeddings) is timed too, which gives its
share of the step directly, free of the run-to-run noise of a shared machine.

    .venv/bin/python benchmarks/train_step.py                        # MiniLM, micro-batch 32, 128 tokens
    .venv/bin/python benchmarks/train_step.py --batch-size 64 --steps 5 --model path/or/hub-id
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from step_bench import (
    add_run_args,
    default_device,
    host,
    offline_env,
    run_child,
    sync,
    texts,
    timed_steps,
    write_report,
)

RESULTS = Path(__file__).resolve().parent / "results" / "train_step.json"
VARIANTS = ("jepa_sigreg", "jepa_plain", "infonce")


def one(variant: str, batch_size: int, max_seq_length: int, steps: int, slices: int, model_name: str | None,
        device: str) -> dict:
    import copy

    import torch

    from sciembed.training.config import ModelConfig
    from sciembed.training.ema import ema_update
    from sciembed.training.losses import PredictiveLoss, SectionInfoNCELoss, SIGReg
    from sciembed.training.model import build_model
    from sciembed.training.predictor import ResidualPredictor

    torch.manual_seed(0)
    model = build_model(ModelConfig(base=model_name, max_seq_length=max_seq_length), device=device)
    model.train()
    params = list(model.parameters())
    target = predictor = None
    if variant == "infonce":
        loss = SectionInfoNCELoss(model, total_steps=steps)
    else:
        target = copy.deepcopy(model)
        predictor = ResidualPredictor(model.get_embedding_dimension()).to(device)
        weight = 0.0025 if variant == "jepa_sigreg" else 0.0
        loss = PredictiveLoss(model, predictor, target, weight, SIGReg(slices=slices)).to(device)
        params += list(predictor.parameters())
    optimizer = torch.optim.AdamW(params, lr=1e-5)

    def features(size: int, seed: int):
        pair = (texts(size, max_seq_length, seed), texts(size, max_seq_length, seed + 1))
        return [{k: v.to(device) if torch.is_tensor(v) else v for k, v in model.preprocess(side).items()}
                for side in pair]

    def step(batch, index: int) -> float:
        optimizer.zero_grad(set_to_none=True)
        if hasattr(loss, "set_step"):
            loss.set_step(index)
        value = loss([dict(b) for b in batch])
        value = sum(value.values()) if isinstance(value, dict) else value
        value.backward()
        optimizer.step()
        if target is not None:
            ema_update(target, model, 0.996)
        return float(value.detach())

    step(features(batch_size, 0), 0)  # warm-up: optimizer state, caches
    batches = [features(batch_size, 10 + i) for i in range(steps)]
    timed = timed_steps(lambda: [step(b, i + 1) for i, b in enumerate(batches)], device)
    result = {
        "variant": variant,
        "batch_size": batch_size,
        "steps": steps,
        **timed.speed(batch_size * steps),
        "seconds_per_step": round(timed.seconds / steps, 4),
        **timed.rss(),
        **timed.cuda(),
    }
    if variant == "jepa_sigreg":
        sigreg = SIGReg(slices=slices)
        with torch.no_grad():
            context = model(dict(batches[0][0]))["sentence_embedding"].detach()
        sync(device)
        start = time.perf_counter()
        for i in range(steps):
            x = context.clone().requires_grad_(True)
            sigreg(x, step=i).backward()
        sync(device)
        result["sigreg_only_seconds_per_step"] = round((time.perf_counter() - start) / steps, 5)
        result["sigreg_share_of_step"] = round(result["sigreg_only_seconds_per_step"] / result["seconds_per_step"], 5)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch-size", type=int, default=32, help="micro-batch (pairs)")
    parser.add_argument("--slices", type=int, default=512)
    add_run_args(parser, RESULTS, max_seq_length=128, steps=3)
    parser.add_argument("--child", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    offline_env()


    device = default_device(args.device)
    common = ["--batch-size", str(args.batch_size), "--max-seq-length", str(args.max_seq_length),
              "--steps", str(args.steps), "--slices", str(args.slices), "--device", device]
    if args.model:
        common += ["--model", args.model]
    if args.child:
        print(json.dumps(one(args.child, args.batch_size, args.max_seq_length, args.steps, args.slices, args.model,
                             device)))
        return

    from rich.progress import Progress

    runs = []
    with Progress() as progress:
        task = progress.add_task("train_step", total=len(VARIANTS))
        for variant in VARIANTS:
            runs.append(run_child([sys.executable, __file__, "--child", variant, *common], {"variant": variant}))
            progress.console.print(runs[-1])
            progress.advance(task)
    by = {r["variant"]: r for r in runs if "error" not in r}
    ratios = {}
    if {"jepa_sigreg", "jepa_plain", "infonce"} <= set(by):
        ratios = {
            "jepa_sigreg_over_jepa_plain_seconds": round(
                by["jepa_sigreg"]["seconds_per_step"] / by["jepa_plain"]["seconds_per_step"], 3),
            "jepa_plain_over_infonce_seconds": round(
                by["jepa_plain"]["seconds_per_step"] / by["infonce"]["seconds_per_step"], 3),
            "sigreg_share_of_step": by["jepa_sigreg"].get("sigreg_share_of_step"),
        }
    report = {
        "benchmark": "train_step",
        "what": "one step = loss forward + backward + AdamW (+ predictor) + EMA update for JEPA",
        "model": args.model or "offline all-MiniLM-L6-v2",
        "device": device,
        "micro_batch": args.batch_size,
        "max_seq_length": args.max_seq_length,
        "sigreg_slices": args.slices,
        "steps_per_run": args.steps,
        **host(),
        "runs": runs,
        "ratios": ratios,
    }
    write_report(args.out, report)
    print(json.dumps(ratios))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

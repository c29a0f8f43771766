"""Examples/s and peak memory of one CoSAEmb training step (graded triplet loss) at batch 32.

A step is what the trainer does: encode anchor, positive and negative (3 × batch
texts, each filling `--max-seq-length` tokens), graded triplet loss, backward,
AdamW step. The model is the recipe's own: the offline all-MiniLM-L6-v2 (or any
path / hub id with ``--model``) with CLS pooling and the seven special tokens
registered (embedding matrix resized). Each batch size runs in a fresh
subprocess so its peak is its own: on CPU the peak RSS (``ru_maxrss``) minus the
RSS after the model, the optimizer state and one warm-up step exist; on a GPU
``torch.cuda.max_memory_allocated`` minus the allocation after the warm-up.

    .venv/bin/python benchmarks/train_triplet.py                               # batch 32, seq 128, writes JSON
    .venv/bin/python benchmarks/train_triplet.py --max-seq-length 512 --steps 2   # the paper's length
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from step_bench import add_run_args, default_device, host, offline_env, run_child, texts, timed_steps, write_report

RESULTS = Path(__file__).resolve().parent / "results" / "train_triplet.json"


def one(batch_size: int, max_seq_length: int, steps: int, model_name: str | None, device: str) -> dict:
    import torch

    from sciembed.training.config import ModelConfig
    from sciembed.training.losses.graded_triplet import GradedTripletLoss
    from sciembed.training.model import build_model
    from sciembed.training.special_tokens import register_special_tokens
    from sciembed.views.chunk import SPECIAL_TOKENS

    torch.manual_seed(0)
    model = build_model(ModelConfig(base=model_name, max_seq_length=max_seq_length), device=device, pooling="cls")
    register_special_tokens(model, SPECIAL_TOKENS)
    model.train()
    loss = GradedTripletLoss(model, (1.0, 2.0, 3.0))
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)

    def batch(size: int, seed: int):
        sides = [texts(size, max_seq_length, seed + k, token) for k, token in enumerate(("[MET]", "[MET]", "[ABS]"))]
        features = [model.preprocess(side) for side in sides]
        features = [{k: v.to(device) if torch.is_tensor(v) else v for k, v in f.items()} for f in features]
        labels = torch.tensor([i % 3 for i in range(size)], device=device)
        return features, labels

    def step(b) -> float:
        optimizer.zero_grad(set_to_none=True)
        value = loss(*b)
        value.backward()
        optimizer.step()
        return float(value.detach())

    step(batch(4, 0))  # warm-up: optimizer state and caches
    batches = [batch(batch_size, 10 + 3 * i) for i in range(steps)]
    timed = timed_steps(lambda: [step(b) for b in batches], device)
    tokens = int(batches[0][0][0]["attention_mask"].sum()) // batch_size
    result = {
        "batch_size": batch_size,
        "texts_per_step": 3 * batch_size,
        "tokens_per_text": tokens,
        "steps": steps,
        **timed.speed(batch_size * steps),
        "seconds_per_step": round(timed.seconds / steps, 3),
        "rss_after_warmup_mb": round(timed.rss_after_warmup_mb, 1),
        **timed.rss(),
        **timed.cuda(),
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[32])
    add_run_args(parser, RESULTS, max_seq_length=128, steps=3)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    offline_env()


    device = default_device(args.device)
    if args.child:
        print(json.dumps(one(args.child, args.max_seq_length, args.steps, args.model, device)))
        return
    runs = []
    for size in args.batch_sizes:
        cmd = [sys.executable, __file__, "--child", str(size), "--device", device, "--max-seq-length",
               str(args.max_seq_length), "--steps", str(args.steps)] + (["--model", args.model] if args.model else [])
        runs.append(run_child(cmd, {"batch_size": size}, error_lines=3))
        print(json.dumps(runs[-1]))
    facts = host()
    report = {
        "benchmark": "train_triplet",
        "what": "one CoSAEmb step = encode 3 × batch texts + graded triplet loss + backward + AdamW step",
        "model": args.model or "offline all-MiniLM-L6-v2, CLS pooling, 7 special tokens",
        "device": device,
        "max_seq_length": args.max_seq_length,
        "host": {"platform": facts["platform"], "cpus": facts["cpu_count"], "torch": facts["torch"],
                 "torch_threads": facts["torch_threads"], "load_average": facts["load_average_at_end"]},
        "note": "measured on a CPU shared with other jobs: examples/s is a floor, not this code's speed",
        "runs": runs,
    }
    write_report(args.out, report)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

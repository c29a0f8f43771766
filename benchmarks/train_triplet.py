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
import os
import platform
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "train_triplet.json"
WORDS = ("model", "graph", "citation", "section", "method", "result", "encoder", "retrieval", "protein", "cell",
         "network", "training", "dataset", "sample", "variance", "layer", "token", "attention", "embedding")


def texts(n: int, words: int, seed: int, token: str) -> list[str]:
    rng = random.Random(seed)
    return [f"{token} " + " ".join(rng.choice(WORDS) for _ in range(words)) for _ in range(n)]


def rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


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

    cuda = device.startswith("cuda")
    step(batch(4, 0))  # warm-up: optimizer state and caches
    batches = [batch(batch_size, 10 + 3 * i) for i in range(steps)]
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated() / 2**20
    base_rss = rss_mb()
    start = time.perf_counter()
    values = [step(b) for b in batches]
    if cuda:
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    tokens = int(batches[0][0][0]["attention_mask"].sum()) // batch_size
    result = {
        "batch_size": batch_size,
        "texts_per_step": 3 * batch_size,
        "tokens_per_text": tokens,
        "steps": steps,
        "seconds": round(seconds, 3),
        "seconds_per_step": round(seconds / steps, 3),
        "examples_per_second": round(batch_size * steps / seconds, 2),
        "final_loss": round(values[-1], 4),
        "rss_after_warmup_mb": round(base_rss, 1),
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "peak_rss_over_warmup_mb": round(peak_rss_mb() - base_rss, 1),
    }
    if cuda:
        peak = torch.cuda.max_memory_allocated() / 2**20
        result.update({"cuda_peak_allocated_mb": round(peak, 1), "cuda_peak_over_warmup_mb": round(peak - base, 1)})
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[32])
    parser.add_argument("--max-seq-length", type=int, default=128)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--model", default=None, help="path / hub id (default: the offline MiniLM)")
    parser.add_argument("--device", default=None, help="cpu | cuda (default: cuda when available)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    for key in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        os.environ.setdefault(key, "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

    import torch

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if args.child:
        print(json.dumps(one(args.child, args.max_seq_length, args.steps, args.model, device)))
        return
    runs = []
    for size in args.batch_sizes:
        cmd = [sys.executable, __file__, "--child", str(size), "--device", device, "--max-seq-length",
               str(args.max_seq_length), "--steps", str(args.steps)] + (["--model", args.model] if args.model else [])
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            runs.append({"batch_size": size, "error": proc.stderr.strip().splitlines()[-3:]})
        else:
            runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        print(json.dumps(runs[-1]))
    report = {
        "benchmark": "train_triplet",
        "what": "one CoSAEmb step = encode 3 × batch texts + graded triplet loss + backward + AdamW step",
        "model": args.model or "offline all-MiniLM-L6-v2, CLS pooling, 7 special tokens",
        "device": device,
        "max_seq_length": args.max_seq_length,
        "host": {"platform": platform.platform(), "cpus": os.cpu_count(), "torch": torch.__version__,
                 "torch_threads": torch.get_num_threads(), "load_average": os.getloadavg()},
        "note": "measured on a CPU shared with other jobs: examples/s is a floor, not this code's speed",
        "runs": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

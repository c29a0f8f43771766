"""Peak memory and examples/s of CachedMNRL vs plain MNRL as the batch grows, at one mini-batch size.

The claim under test: with CachedMultipleNegativesRankingLoss (GradCache) the
batch size sets the number of in-batch negatives while peak memory stays
nearly flat, because only `mini_batch_size` texts carry a computation graph at
once; plain MNRL's activations grow with the batch.

The default model is a small random-init BERT (2 layers, 128 dims, MiniLM's
tokenizer) so that the whole grid, including plain MNRL at batch 1,024, fits a
shared 2-core CPU box in minutes; ``--model minilm`` (or any path / hub id)
runs the same grid on a real encoder.

Each (loss, batch size) runs in a fresh subprocess, so each peak is its own:
on CPU the process's peak RSS (``ru_maxrss``) minus its RSS after the model,
the optimizer state and one warm-up step exist; on a GPU
``torch.cuda.max_memory_allocated`` minus the allocation after that warm-up.
A step is what the trainer does: loss forward + backward + AdamW step.

    .venv/bin/python benchmarks/train_memory.py                      # small BERT, writes results JSON
    .venv/bin/python benchmarks/train_memory.py --model minilm --batch-sizes 64 256
    .venv/bin/python benchmarks/train_memory.py --batch-sizes 64 256 --steps 2
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from step_bench import add_run_args, default_device, host, offline_env, run_child, texts, timed_steps, write_report

RESULTS = Path(__file__).resolve().parent / "results" / "train_memory.json"
TINY = {"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 512}


def build_tiny(root: Path) -> Path:
    """A random-init BERT with the offline MiniLM's tokenizer (seeded, so every child loads the same weights)."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from sciembed.models.loading import resolve_model_source

    tokenizer = AutoTokenizer.from_pretrained(resolve_model_source(None))
    torch.manual_seed(0)
    BertModel(BertConfig(vocab_size=tokenizer.vocab_size, max_position_embeddings=512, **TINY)).save_pretrained(root)
    tokenizer.save_pretrained(root)
    return root


def one(loss_name: str, batch_size: int, mini_batch_size: int, max_seq_length: int, steps: int, model_name: str | None,
        device: str) -> dict:
    """Run in a child process: warm up, then `steps` measured steps; returns the measurements."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.losses import (
        CachedMultipleNegativesRankingLoss,
        MultipleNegativesRankingLoss,
    )

    from sciembed.models.loading import resolve_model_source

    torch.manual_seed(0)
    model = SentenceTransformer(resolve_model_source(model_name), device=device)
    model.max_seq_length = max_seq_length
    model.train()
    if loss_name == "cached_mnrl":
        loss = CachedMultipleNegativesRankingLoss(model, mini_batch_size=mini_batch_size)
    else:
        loss = MultipleNegativesRankingLoss(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
    n_words = max_seq_length  # enough words to fill the token budget

    def features(size: int, seed: int):
        pair = (texts(size, n_words, seed), texts(size, n_words, seed + 1))
        encoded = [model.preprocess(side) for side in pair]
        return [{k: v.to(device) if torch.is_tensor(v) else v for k, v in e.items()} for e in encoded]

    def step(batch) -> float:
        optimizer.zero_grad(set_to_none=True)
        value = loss(batch, torch.zeros(0, device=device))
        value.backward()
        optimizer.step()
        return float(value.detach())

    step(features(mini_batch_size, 0))  # warm-up: allocates optimizer state and caches
    batches = [features(batch_size, 10 + i) for i in range(steps)]
    timed = timed_steps(lambda: [step(b) for b in batches], device)
    result = {
        "loss": loss_name,
        "batch_size": batch_size,
        "mini_batch_size": mini_batch_size if loss_name == "cached_mnrl" else None,
        "steps": steps,
        **timed.speed(batch_size * steps),
        "rss_after_warmup_mb": round(timed.rss_after_warmup_mb, 1),
        **timed.rss(),
        "peak_rss_before_measured_steps_mb": round(timed.peak_rss_before_mb, 1),
    }
    if timed.cuda_after_warmup_mb is not None:
        result["cuda_allocated_after_warmup_mb"] = round(timed.cuda_after_warmup_mb, 1)
    result.update(timed.cuda())
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--losses", nargs="+", default=["cached_mnrl", "mnrl"], choices=["cached_mnrl", "mnrl"])
    parser.add_argument("--mini-batch-size", type=int, default=32)
    add_run_args(parser, RESULTS, max_seq_length=32, steps=2, model="tiny",
                 model_help="tiny (default), minilm, or a path / hub id")
    parser.add_argument("--child", nargs=2, metavar=("LOSS", "BATCH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    offline_env()


    device = default_device(args.device)
    if args.child:
        result = one(args.child[0], int(args.child[1]), args.mini_batch_size, args.max_seq_length, args.steps,
                     args.model, device)
        print(json.dumps(result))
        return

    import tempfile

    from rich.progress import Progress

    tmp = tempfile.TemporaryDirectory()
    model_arg = str(build_tiny(Path(tmp.name))) if args.model == "tiny" else args.model
    runs = []
    combos = [(loss, b) for b in args.batch_sizes for loss in args.losses]
    with Progress() as progress:
        task = progress.add_task("train_memory", total=len(combos))
        for loss, batch in combos:
            cmd = [sys.executable, __file__, "--child", loss, str(batch), "--device", device,
                   "--mini-batch-size", str(args.mini_batch_size), "--max-seq-length", str(args.max_seq_length),
                   "--steps", str(args.steps)]
            cmd += ["--model", model_arg]
            runs.append(run_child(cmd, {"loss": loss, "batch_size": batch}))
            progress.console.print(runs[-1])
            progress.advance(task)
    report = {
        "benchmark": "train_memory",
        "what": "one training step = loss forward + backward + AdamW step; peak memory over the post-warm-up level",
        "model": {"tiny": f"random-init BERT {TINY} + MiniLM tokenizer", "minilm": "offline all-MiniLM-L6-v2"}.get(
            args.model, args.model
        ),
        "device": device,
        "max_seq_length": args.max_seq_length,
        "mini_batch_size": args.mini_batch_size,
        "steps_per_run": args.steps,
        **host(),
        "runs": runs,
    }
    write_report(args.out, report)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

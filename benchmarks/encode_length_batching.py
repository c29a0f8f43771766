"""Encode speed by batch order, on real ACL papers: input order vs characters vs token counts.

The texts are the full-text views of a seeded sample of the ACL GROBID papers in
``../shared/data/acl-grobid/tei`` (ingested here with `sciembed.papers.ingest`): each paper's
title+abstract and each of its sections, so lengths range from a heading-sized section to
thousands of tokens (truncated at the model's budget). One encoder (the offline MiniLM, CPU,
fp32), one batch size, three orders of the same texts, each run in turn within one process
(A B C, then C B A, so load from other processes falls on all alike); wall time and the process's CPU
time are both recorded (on a shared, loaded machine CPU time is the steadier measure):

- ``input``: batches of consecutive texts as given (no length batching);
- ``chars``: longest-first by character count (sciembed's encoder before this change);
- ``tokens``: longest-first by token count at most the budget (`SentenceTransformerEncoder.encode` now;
  its time includes counting the tokens).

Vectors of all three orders are compared row by row (they must agree to float noise).

    .venv/bin/python benchmarks/encode_length_batching.py [--papers 300] [--batch-size 32] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ACL = ROOT.parent / "shared" / "data" / "acl-grobid" / "tei"
RESULTS = ROOT / "benchmarks" / "results" / "encode_length_batching.json"


def acl_views(papers: int, seed: int, sample: int | None, corpus: Path | None) -> tuple[list[str], dict]:
    """Title+abstract and every section of a seeded sample of ACL papers (then `sample` of those views, seeded):
    from `corpus` (the ACL TEI already ingested: ``sciembed corpus ingest ../shared/data/acl-grobid/tei``) or ingested
    here from the TEI files."""
    from sciembed.papers.ingest import ingest
    from sciembed.papers.io import read_parquet
    from sciembed.views import section_view, ta_text

    if corpus is not None:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        from sciembed.papers.model import Paper

        ids = pq.read_table(corpus / "papers.parquet", columns=["id"]).column("id").to_pylist()
        chosen_ids = sorted(random.Random(seed).sample(ids, min(papers, len(ids))))
        table = pq.read_table(corpus / "papers.parquet")
        table = table.filter(pc.is_in(table.column("id"), value_set=pa.array(chosen_ids)))
        read = sorted((Paper.from_dict(row) for row in table.to_pylist()), key=lambda p: p.id)
        result = None
    else:
        files = sorted(ACL.glob("*.tei.xml*"))
        chosen = sorted(random.Random(seed).sample(files, min(papers, len(files))))
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "acl"
            result = ingest(chosen, out, progress=False)
            read = list(read_parquet(out / "papers.parquet"))
    texts: list[str] = []
    for paper in read:
        texts.append(ta_text(paper))
        texts.extend(section_view(paper, i).text for i in range(len(paper.sections)))
    texts = [t for t in texts if t.strip()]
    views = len(texts)
    if sample is not None and sample < len(texts):
        texts = [texts[i] for i in sorted(random.Random(seed + 1).sample(range(len(texts)), sample))]
    origin = {"ingested_corpus": str(corpus)} if result is None else {
        "files": len(chosen), "accepted": result.accepted, "rejected": result.rejected}
    return texts, {**origin, "papers": len(read), "views_of_those_papers": views}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=300)
    parser.add_argument("--corpus", type=Path, default=None, help="an ingested ACL corpus (else ingest the TEI here)")
    parser.add_argument("--texts", type=int, default=320, help="seeded sample of the views (keeps the run bounded)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    for key, value in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"), ("TOKENIZERS_PARALLELISM", "false")):
        os.environ.setdefault(key, value)
    import torch

    torch.set_num_threads(args.threads)
    from sciembed.models.loading import load_encoder

    texts, source = acl_views(args.papers, args.seed, args.texts, args.corpus)
    encoder = load_encoder("minilm", device="cpu")
    budget = encoder.max_seq_length
    tokens = [min(len(ids), budget) for ids in encoder.model.tokenizer(
        texts, add_special_tokens=False, verbose=False)["input_ids"]]
    orders = {
        "input": lambda: list(range(len(texts))),
        "chars": lambda: sorted(range(len(texts)), key=lambda i: -len(texts[i])),
        "tokens": lambda: encoder.length_order(texts),
    }
    seconds = dict.fromkeys(orders, 0.0)
    cpu = dict.fromkeys(orders, 0.0)
    vectors: dict[str, np.ndarray] = {}
    sequence = list(orders)
    for r in range(args.rounds):
        for name in sequence if r % 2 == 0 else sequence[::-1]:
            started, started_cpu = time.perf_counter(), time.process_time()
            vectors[name] = encoder.encode_in_order(texts, orders[name](), args.batch_size)
            seconds[name] += time.perf_counter() - started
            cpu[name] += time.process_time() - started_cpu
            print(f"round {r} {name}: {seconds[name]:.1f} s so far", flush=True)
    n = len(texts) * args.rounds
    speed = {name: round(n / s, 2) for name, s in seconds.items()}
    per_cpu = {name: round(n / s, 2) for name, s in cpu.items()}
    padded = {}
    for name, make in orders.items():
        order = make()
        batches = [order[i:i + args.batch_size] for i in range(0, len(order), args.batch_size)]
        padded[name] = sum(len(b) * max(tokens[i] for i in b) for b in batches)
    report = {
        "benchmark": "encode_length_batching",
        "what": "examples/s of the same texts encoded in three batch orders, one process, alternating rounds",
        "source": f"ACL GROBID TEI ({ACL.relative_to(ROOT.parent)}), seeded sample", **source,
        "texts": len(texts), "views": "title+abstract and every section of each paper",
        "tokens_per_text": {"mean": round(float(np.mean(tokens)), 1), "median": float(np.median(tokens)),
                            "at_budget": int(sum(t == budget for t in tokens)), "budget": budget},
        "model": "offline all-MiniLM-L6-v2, torch, fp32, CPU", "threads": args.threads,
        "batch_size": args.batch_size, "rounds": args.rounds, "seconds": {k: round(v, 2) for k, v in seconds.items()},
        "examples_per_second": speed,
        "cpu_seconds": {k: round(v, 2) for k, v in cpu.items()},
        "examples_per_cpu_second": per_cpu,
        "speedup_tokens_over_input": round(speed["tokens"] / speed["input"], 3),
        "speedup_tokens_over_chars": round(speed["tokens"] / speed["chars"], 3),
        "cpu_speedup_tokens_over_input": round(per_cpu["tokens"] / per_cpu["input"], 3),
        "cpu_speedup_tokens_over_chars": round(per_cpu["tokens"] / per_cpu["chars"], 3),
        "padded_tokens_encoded": padded,
        "max_abs_difference_vs_input": {k: float(np.abs(v - vectors["input"]).max()) for k, v in vectors.items()},
        "load_average_at_end": os.getloadavg(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

"""Encoding throughput, torch vs ONNX int8, and what int8 costs in retrieval quality.

Goal: ONNX int8 ≥ 2.5× the torch backend's passages/s, NDCG@10 within 1 point.

Throughput: 2,000 windows of exactly 358 words (S2Full windows at section
headers of seeded synthetic papers), the default encoder (MiniLM, which
truncates to its 256-token limit), the same batch size and thread count for
both backends. The passages are split into rounds and the two backends
alternate within each round (ABBA order), so load from other processes on the
machine falls on both alike. Agreement: cosine between the two backends'
vectors of the same passage.

Quality: `evaluation.evaluate` with each backend on the test split of a built
corpus — `--corpus DIR` (e.g. the corpus `sciembed demo` builds), or else one
built here through the same public steps (synth → ingest → corpus build).

    .venv/bin/python benchmarks/encode.py [--passages 2000] [--threads 2] [--corpus DIR] [--skip-ndcg]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

GOAL_SPEEDUP = 2.5
GOAL_NDCG_POINTS = 1.0  # NDCG@10 × 100


def make_windows(count: int, words: int, seed: int) -> tuple[list[str], dict[str, int]]:
    """`count` windows of exactly `words` words, in paper order; shorter windows (body ends) are counted, not used."""
    from sciembed.synth import generate_papers
    from sciembed.views import window_at
    from sciembed.views.body import body_words
    from sciembed.views.window import eligible_sections

    texts: list[str] = []
    stats = {"papers": 0, "short_windows_skipped": 0}
    for paper in generate_papers(count, seed=seed):  # far more papers than needed; the stream stops early
        stats["papers"] += 1
        body = body_words(paper)
        for section in eligible_sections(paper, body):
            view = window_at(paper, section, words, body)
            if view.end - view.start == words:
                texts.append(view.text)
            else:
                stats["short_windows_skipped"] += 1
            if len(texts) == count:
                return texts, stats
    raise RuntimeError(f"only {len(texts)} full windows of {words} words in {stats['papers']} papers")


def throughput(encoders: dict[str, Any], texts: list[str], batch_size: int, rounds: int) -> dict[str, Any]:
    from sciembed.models.progress import progress_bar

    for encoder in encoders.values():  # warm-up: graph optimisation, allocator, caches
        encoder.encode(texts[: 2 * batch_size], batch_size=batch_size, show_progress=False)
    names = list(encoders)
    seconds = dict.fromkeys(names, 0.0)
    vectors: dict[str, list[np.ndarray]] = {n: [] for n in names}
    per_round: list[dict[str, float]] = []
    size = -(-len(texts) // rounds)
    with progress_bar("rounds (torch and onnx alternating)", rounds) as advance:
        for r in range(rounds):
            chunk = texts[r * size : (r + 1) * size]
            order = names if r % 2 == 0 else names[::-1]
            timing: dict[str, float] = {}
            for name in order:
                start = time.perf_counter()
                vectors[name].append(encoders[name].encode(chunk, batch_size=batch_size, show_progress=False))
                timing[name] = time.perf_counter() - start
                seconds[name] += timing[name]
            per_round.append({"passages": len(chunk), **{f"{n}_s": timing[n] for n in names}})
            advance(1)
    a, b = (np.vstack(vectors[n]) for n in names)
    cos = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return {
        "passages_per_s": {n: len(texts) / seconds[n] for n in names},
        "seconds": seconds,
        "speedup": seconds[names[0]] / seconds[names[1]],
        "agreement_cosine": {"mean": float(cos.mean()), "min": float(cos.min()), "p01": float(np.percentile(cos, 1))},
        "rounds": per_round,
    }


def demo_corpus(work: Path, papers: int, seed: int) -> Path:
    """Synthetic corpus built with the demo's public steps (synth → ingest → corpus build); reused if present."""
    from sciembed.corpus.build import build_corpus
    from sciembed.corpus.config import FunnelConfig
    from sciembed.papers.ingest import ingest
    from sciembed.synth import write_synthetic

    built = work / "corpus"
    if (built / "splits.parquet").exists():
        return built
    write_synthetic(work / "synth", papers, seed=seed, progress=True)
    ingest([work / "synth" / "papers.jsonl.gz"], work / "ingested", progress=True)
    build_corpus(
        work / "ingested",
        built,
        FunnelConfig(seed=seed),
        edge_files=[work / "synth" / "edges.csv"],
        show_progress=True,
        overwrite=True,
    )
    return built


def quality(encoders: dict[str, Any], corpus: Path, batch_size: int) -> dict[str, Any]:
    from sciembed.evaluation import BODY_MODES, build_citation_benchmark, evaluate, scenario_benchmark

    bench = scenario_benchmark(build_citation_benchmark(corpus, split="test"), body_modes=BODY_MODES)
    scores: dict[str, dict[str, float]] = {}
    for name, encoder in encoders.items():
        cell = evaluate(encoder, bench, batch_size=batch_size)
        scores[name] = {r.task: r.metrics["ndcg@10"] / 100 for r in cell.results}
    a, b = list(encoders)
    diff = {key: 100 * (scores[b][key] - scores[a][key]) for key in scores[a]}
    return {
        "benchmark": bench.benchmark.name,
        "corpus": str(corpus),
        "test_papers": len(bench.benchmark.papers),
        "ndcg@10": scores,
        "difference_points": diff,  # (onnx - torch) × 100, per scenario
        "max_abs_difference_points": max(abs(v) for v in diff.values()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=2000)
    parser.add_argument("--words", type=int, default=358)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache-dir", type=Path, default=Path("runs/bench-cache"), help="ONNX exports")
    parser.add_argument("--corpus", type=Path, default=None, help="built corpus for the NDCG@10 comparison")
    parser.add_argument("--demo-papers", type=int, default=2000, help="papers of the corpus built when no --corpus")
    parser.add_argument("--work", type=Path, default=Path("runs/bench-encode"), help="where that corpus is built")
    parser.add_argument("--skip-ndcg", action="store_true")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "encode.json")
    args = parser.parse_args()

    import onnxruntime
    import sentence_transformers
    import torch

    from sciembed.models import load_encoder
    from sciembed.models.onnx_backend import cpu_quantization_config

    torch.set_num_threads(args.threads)  # ONNX Runtime sessions take their thread count from torch's
    texts, window_stats = make_windows(args.passages, args.words, args.seed)
    start = time.perf_counter()
    torch_encoder = load_encoder(args.model)
    load_torch_s = time.perf_counter() - start
    start = time.perf_counter()
    onnx_encoder = load_encoder(args.model, backend="onnx", quantize=True, cache_dir=args.cache_dir).encoder
    load_onnx_s = time.perf_counter() - start  # includes the one-time export + quantization on a cold cache
    encoders = {"torch": torch_encoder, "onnx_int8": onnx_encoder}
    result: dict[str, Any] = {
        "benchmark": "encode",
        "what": f"{len(texts)} windows of {args.words} words, model {args.model!r} "
        f"(max_seq_length {torch_encoder.max_seq_length}: longer inputs are truncated)",
        "settings": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "windows": window_stats,
        "encoders": {n: e.describe() for n, e in encoders.items()},
        "load_s": {"torch": load_torch_s, "onnx_int8_incl_export_if_cold": load_onnx_s},
        "throughput": throughput(encoders, texts, args.batch_size, args.rounds),
    }
    speedup = result["throughput"]["speedup"]
    result["goal"] = {"speedup_at_least": GOAL_SPEEDUP, "speedup": speedup, "speedup_met": speedup >= GOAL_SPEEDUP}
    result["machine"] = {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "threads": args.threads,
        "quantization_config": cpu_quantization_config(),
        "load_average_after_throughput": os.getloadavg(),
        "torch": torch.__version__,
        "onnxruntime": onnxruntime.__version__,
        "sentence_transformers": sentence_transformers.__version__,
        "python": platform.python_version(),
    }
    result["ndcg"] = "not run (--skip-ndcg)" if args.skip_ndcg else "not finished"
    _write(args.out, result)  # the throughput figures survive a failure in the quality part
    if not args.skip_ndcg:
        corpus = args.corpus or demo_corpus(args.work, args.demo_papers, args.seed)
        result["ndcg"] = quality(encoders, corpus, args.batch_size)
        worst = result["ndcg"]["max_abs_difference_points"]
        result["goal"].update(
            ndcg_points_at_most=GOAL_NDCG_POINTS,
            ndcg_max_abs_difference_points=worst,
            ndcg_met=worst <= GOAL_NDCG_POINTS,
        )
    _write(args.out, result)
    print(
        json.dumps(
            {"throughput": {k: v for k, v in result["throughput"].items() if k != "rounds"}, "goal": result["goal"]},
            indent=2,
        )
    )


def _write(path: Path, result: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


if __name__ == "__main__":
    main()

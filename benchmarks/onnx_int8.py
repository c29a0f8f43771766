"""ONNX int8 on CPU, on the texts a full-text index encodes: the fused default against the unfused file and float.

The texts are what `sciembed index build` (the full-text default) encodes for a seeded sample of the ingested
ACL papers: each paper's title+abstract and the first encoder-sized piece of the sections spread over it
(`retrieval.fulltext_index.PIECE_SECTIONS`). Three encoders of the offline MiniLM through the ONNX backend, one process,
batches of 32 longest-first, rounds in alternating order (A B C, then C B A, so load from other processes falls
on all alike); wall and CPU seconds per encoder, and each int8 encoder's cosine to the float vectors:

- ``float``: ``onnx/model.onnx``;
- ``int8``: sentence-transformers' `export_dynamic_quantized_onnx_model` on the unfused graph (the label
  ``avx2`` etc., what ``--quantize`` meant before 2026-11-29);
- ``o2-int8``: Optimum's O2 fusions, then int8 per channel (``o2-avx2``: ``--quantize`` now, `models.onnx_backend`).

    .venv/bin/python benchmarks/onnx_int8.py --corpus INGESTED_ACL [--papers 80] [--rounds 2]

Quality on the ACL paper-to-paper benchmark: ``--p2p-runs OLD NEW`` (two `sciembed eval run --kind paper_to_paper`
directories of the same benchmark, ``--backend onnx --quantize`` before and after the fused default) adds
each method's test NDCG@10 in both and the paired t-test (`sciembed eval compare`), without re-running them.
``--p2p-only`` reads an earlier results file's speed figures instead of timing again.
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
RESULTS = ROOT / "benchmarks" / "results" / "onnx_int8.json"


def index_texts(corpus: Path, papers: int, seed: int, encoder) -> list[str]:
    """Title+abstract and the full-text index's section pieces of a seeded sample of `corpus`'s papers."""
    from sciembed.corpus.layout import CorpusDir
    from sciembed.index.fulltext_index import PIECE_SECTIONS, PIECES_PER_SECTION
    from sciembed.views.fit import encoder_budget, section_pieces
    from sciembed.views.simple import ta_text
    from sciembed.views.tokens import tokenizer_counter

    everything = list(CorpusDir(corpus).iter_papers())
    chosen = random.Random(seed).sample(everything, min(papers, len(everything)))
    count = tokenizer_counter(encoder.model.tokenizer)
    budget = encoder_budget(encoder.max_seq_length)
    texts = [ta for ta in map(ta_text, chosen) if ta.strip()]
    for paper in chosen:
        texts.extend(v.text for v in section_pieces(paper, budget, count, PIECES_PER_SECTION, PIECE_SECTIONS))
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True, help="The ingested ACL corpus (sciembed corpus ingest).")
    parser.add_argument("--papers", type=int, default=80)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--exports", type=Path, help="Where the ONNX exports go (default: a temporary directory).")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--p2p-runs", type=Path, nargs=2, metavar=("OLD", "NEW"),
                        help="Two paper-to-paper run directories: unfused int8, then fused int8.")
    parser.add_argument("--p2p-only", action="store_true", help="Keep --out's speed figures; add --p2p-runs only.")
    args = parser.parse_args()
    if args.p2p_only:
        if args.p2p_runs is None:
            parser.error("--p2p-only needs --p2p-runs")
        result = json.loads(args.out.read_text())
        result["p2p_test_ndcg@10"] = p2p_quality(*args.p2p_runs)
        args.out.write_text(json.dumps(result, indent=1) + "\n")
        print(json.dumps(result["p2p_test_ndcg@10"], indent=1))
        return
    with tempfile.TemporaryDirectory(prefix="onnx-int8-") as scratch:
        # exports only: no embedding cache (a cached vector would time nothing)
        os.environ["SCIEMBED_CACHE"] = str(args.exports or scratch)
        run(args)


def run(args: argparse.Namespace) -> None:
    import torch

    from sciembed.models import load_encoder
    from sciembed.models.onnx_backend import OPTIMIZED, cpu_quantization_config

    torch.set_num_threads(min(2, os.cpu_count() or 1))
    labels = {"float": False, "int8": cpu_quantization_config(), "o2-int8": OPTIMIZED + cpu_quantization_config()}
    encoders = {name: load_encoder(None, backend="onnx", quantize=label) for name, label in labels.items()}
    texts = index_texts(args.corpus, args.papers, args.seed, encoders["float"])
    for encoder in encoders.values():  # warm-up: first calls allocate
        encoder.encode(texts[:32], batch_size=32, show_progress=False)
    wall = {name: [] for name in encoders}
    cpu = {name: [] for name in encoders}
    vectors: dict[str, np.ndarray] = {}
    for round_ in range(args.rounds):
        for name in (list(encoders) if round_ % 2 == 0 else list(reversed(encoders))):
            start, start_cpu = time.perf_counter(), time.process_time()
            vectors[name] = encoders[name].encode(texts, batch_size=32, show_progress=False)
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    cosines = {name: (vectors[name] * vectors["float"]).sum(axis=1) for name in encoders if name != "float"}
    best = {name: min(times) for name, times in wall.items()}
    result = {
        "benchmark": "onnx_int8",
        "what": __doc__.splitlines()[0],
        "corpus": args.corpus.name,
        "papers": args.papers, "seed": args.seed, "texts": len(texts), "rounds": args.rounds,
        "model": "offline all-MiniLM-L6-v2 (256 tokens), ONNX Runtime, CPU",
        "threads": torch.get_num_threads(), "batch_size": 32,
        "quantization_labels": {name: label or None for name, label in labels.items()},
        "wall_s": wall, "cpu_s": cpu,
        "texts_per_second_best": {name: len(texts) / s for name, s in best.items()},
        "speedup_o2_int8_over_int8": best["int8"] / best["o2-int8"],
        "speedup_o2_int8_over_float": best["float"] / best["o2-int8"],
        "cpu_speedup_o2_int8_over_int8": min(cpu["int8"]) / min(cpu["o2-int8"]),
        "cosine_to_float": {name: {"min": float(c.min()), "mean": float(c.mean())} for name, c in cosines.items()},
        "load_average_at_end": list(os.getloadavg()),
    }
    if args.p2p_runs is not None:
        result["p2p_test_ndcg@10"] = p2p_quality(*args.p2p_runs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: result[k] for k in ("texts", "texts_per_second_best", "speedup_o2_int8_over_int8",
                                             "cpu_speedup_o2_int8_over_int8", "cosine_to_float")}, indent=1))
    print(f"-> {args.out}")


def p2p_quality(old: Path, new: Path) -> dict:
    """Per paper-to-paper task (method/relevance split): NDCG@10 ×100 in `old` and `new`, Δ and paired p."""
    from sciembed.evaluation.compare import compare_runs
    from sciembed.ioutil.portable import portable

    compared = compare_runs(old, new, metrics=("ndcg@10",))
    return {"runs": portable({"unfused_int8": str(old), "fused_int8": str(new)}), "test": compared.test,
            "tasks": {label: {"unfused_int8": r.mean_a, "fused_int8": r.mean_b, "delta": r.delta, "p": r.p_value,
                              "queries": r.n} for label, r in compared.rows}}


if __name__ == "__main__":
    main()

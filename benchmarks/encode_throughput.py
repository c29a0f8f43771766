"""What could make the full-text `index build` encode faster on this CPU: batch sizes, and two 1-thread processes
against one 2-thread process, on the pieces the build encodes.

The encoder is the build's own (`EncoderSpec(model="minilm", backend="onnx", quantize=True)`: MiniLM, ONNX
Runtime, int8), the texts the first `--texts` section pieces `index build` cuts from an ingested corpus
(`section_pieces` with the build's budget and counts). Each variant encodes the same texts; variants alternate
within each of `--rounds` rounds, so load hits them alike. The two worker processes load their model before
the clock starts and each encodes half of the texts.

    python benchmarks/encode_throughput.py --corpus INGESTED_ACL --texts 384 --rounds 2 \\
        --out benchmarks/results/encode_throughput.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

BATCH_SIZES = (16, 32, 64, 128)
_WORKER: Any = None


def load(threads: int) -> Any:
    import torch

    from sciembed.models.spec import EncoderSpec

    torch.set_num_threads(threads)  # ONNX Runtime's intra-op threads follow torch's (models/onnx_backend.py)
    return EncoderSpec(model="minilm", backend="onnx", quantize=True).load()


def pieces(corpus: Path, encoder: Any, limit: int) -> list[str]:
    from sciembed.corpus.layout import CorpusDir
    from sciembed.index.fulltext_index import PIECE_SECTIONS, PIECES_PER_SECTION
    from sciembed.views.fit import encoder_budget, section_pieces

    budget, out = encoder_budget(encoder.max_seq_length), []
    for paper in CorpusDir(corpus).iter_papers():
        out += [v.text for v in section_pieces(paper, budget, encoder.count_tokens, PIECES_PER_SECTION,
                                               PIECE_SECTIONS)]
        if len(out) >= limit:
            break
    return out[:limit]


def _init_worker() -> None:
    global _WORKER
    _WORKER = load(1)
    _WORKER.encode(["warm up"], batch_size=1, show_progress=False)


def _encode_in_worker(args: tuple[list[str], int]) -> float:
    texts, batch_size = args
    t0 = time.perf_counter()
    _WORKER.encode(texts, batch_size=batch_size, show_progress=False)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True, help="An ingested corpus (`sciembed corpus ingest`).")
    parser.add_argument("--texts", type=int, default=384)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/encode_throughput.json"))
    args = parser.parse_args()

    encoder = load(2)
    texts = pieces(args.corpus, encoder, args.texts)
    encoder.encode(texts[:32], batch_size=32, show_progress=False)
    seconds: dict[str, list[float]] = {}
    loads = [os.getloadavg()]
    with ProcessPoolExecutor(2, initializer=_init_worker) as pool:
        list(pool.map(_encode_in_worker, [(texts[:8], 8)] * 2))
        for _ in range(args.rounds):
            for size in BATCH_SIZES:
                t0 = time.perf_counter()
                encoder.encode(texts, batch_size=size, show_progress=False)
                seconds.setdefault(f"one_process_2_threads_batch_{size}", []).append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            list(pool.map(_encode_in_worker, [(texts[: len(texts) // 2], 32), (texts[len(texts) // 2:], 32)]))
            seconds.setdefault("two_processes_1_thread_batch_32", []).append(time.perf_counter() - t0)
            loads.append(os.getloadavg())
    out = {"what": "encoding the full-text index build's section pieces with its encoder (MiniLM ONNX int8)",
           "texts": len(texts), "encoder": "minilm onnx int8",
           "seconds": {k: [round(x, 2) for x in v] for k, v in seconds.items()},
           "texts_per_s": {k: round(len(texts) / min(v), 1) for k, v in seconds.items()},
           "load_average": [[round(x, 2) for x in la] for la in loads],
           "machine": {"cpus": os.cpu_count(), "platform": platform.platform()}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out["texts_per_s"]), "->", args.out)


if __name__ == "__main__":
    main()

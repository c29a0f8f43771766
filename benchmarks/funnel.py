"""Benchmark: the corpus funnel + zero-overlap splits on a synthetic graph (default 1M papers, 10M edges).

The graph comes from the synthetic generator's graph model; the ingested-shape
`papers.parquet` (short texts) and `edges.csv` are built from it with vectorised
pyarrow, in row-group chunks, not through the ingest reader. Generation is timed
separately; the build runs in a fresh child process so that its wall time and
peak RSS (ru_maxrss of that process: Python + DuckDB) are its own.

    .venv/bin/python benchmarks/funnel.py            # 1,000,000 papers, 10,000,000 edges
    .venv/bin/python benchmarks/funnel.py --papers 100000 --edges 1000000 --out /tmp/small.json

Writes benchmarks/results/funnel.json (or --out).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
CHUNK = 100_000  # papers per written row-group batch
# Section texts are short (the issue allows it); the text filter threshold is scaled to match.
SECTION_LENGTHS = (100, 300, 500, 700)  # characters; 1-3 sections per body, some under the thresholds
SECTIONS_P = (0.03, 0.57, 0.40)  # share of papers with 1, 2, 3 sections
BENCH_CONFIG = {"min_body_chars": 400, "min_body_sections": 2, "max_degree": 200, "domain_cap": 1_000_000,
                "seed": 0, "test_size": 0.1, "val_size": 0.1}


def _ids(n: int) -> pa.Array:
    return pa.array(np.char.add("synth-", np.char.zfill(np.arange(n).astype(str), 7)), pa.string())


def _empty_lists(n: int, value_type: pa.DataType) -> pa.Array:
    return pa.ListArray.from_arrays(pa.array(np.zeros(n + 1, dtype=np.int32)), pa.array([], value_type))


def _papers_chunk(lo: int, hi: int, ids: pa.Array, graph, rng: np.random.Generator) -> pa.Table:
    """One chunk of papers in PAPER_SCHEMA, built column by column."""
    from sciembed.papers.io import PAPER_SCHEMA

    section_type = PAPER_SCHEMA.field("sections").type.value_type  # the schema's own types: one definition
    reference_type = PAPER_SCHEMA.field("references").type.value_type

    n = hi - lo
    domain_names = pa.array(graph.domain_names, pa.string())
    domain = domain_names.take(pa.array(graph.domain[lo:hi].astype(np.int64)))
    n_sections = rng.choice(np.arange(1, 4), size=n, p=SECTIONS_P)
    offsets = np.concatenate(([0], np.cumsum(n_sections))).astype(np.int32)
    total = int(offsets[-1])
    texts = pa.array(["w " * (k // 2) for k in SECTION_LENGTHS], pa.string()).take(
        pa.array(rng.integers(0, len(SECTION_LENGTHS), size=total)))
    position = pa.array(np.arange(total) - np.repeat(offsets[:-1], n_sections))  # section index in its paper
    headings = pa.array(["Introduction", "Method", "Results"], pa.string()).take(position)
    roles = pa.array(["introduction", "method", "results"], pa.string()).take(position)
    sections = pa.ListArray.from_arrays(
        pa.array(offsets), pa.StructArray.from_arrays(
            [headings, texts, roles, pa.nulls(total, pa.string())], fields=list(section_type)))
    no_venue = rng.random(n) < 0.02
    no_field = rng.random(n) < 0.01
    venue = pc.if_else(pa.array(no_venue), pa.scalar(None, pa.string()),
                       pc.binary_join_element_wise("Journal of ", domain, ""))
    fos_offsets = np.concatenate(([0], np.cumsum(~no_field))).astype(np.int32)
    fields = pa.ListArray.from_arrays(pa.array(fos_offsets), domain.filter(pa.array(~no_field)))
    paper_ids = ids.slice(lo, n)
    columns = {
        "id": paper_ids,
        "title": pc.binary_join_element_wise("Synthetic paper ", paper_ids, ""),
        "abstract": pa.array(["A short synthetic abstract."] * n, pa.string()),
        "sections": sections,
        "references": _empty_lists(n, reference_type),
        "venue": venue,
        "year": pa.array(graph.year[lo:hi].astype(np.int32)),
        "domain": pa.nulls(n, pa.string()),
        "fields_of_study": fields,
        "external_ids": pa.nulls(n, PAPER_SCHEMA.field("external_ids").type),
        "flags": _empty_lists(n, pa.string()),
        "source": pa.array(["synthetic"] * n, pa.string()),
    }
    columns.update({f.name: pa.nulls(n, f.type) for f in PAPER_SCHEMA if f.name not in columns})  # newer fields
    return pa.table(columns, schema=PAPER_SCHEMA)


def generate(work: Path, n_papers: int, n_edges: int, seed: int) -> dict:
    """Write work/ingested/{papers.parquet, manifest.json} and work/edges.csv; return timings and sizes."""
    from sciembed.papers.io import PAPER_SCHEMA
    from sciembed.synth.graph import synthetic_graph

    t0 = time.perf_counter()
    graph = synthetic_graph(n_papers, n_edges, seed=seed)
    t_graph = time.perf_counter() - t0
    ingested = work / "ingested"
    ingested.mkdir(parents=True)
    ids = _ids(n_papers)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    with pq.ParquetWriter(ingested / "papers.parquet", PAPER_SCHEMA, compression="zstd") as writer:
        for lo in range(0, n_papers, CHUNK):
            writer.write_table(_papers_chunk(lo, min(lo + CHUNK, n_papers), ids, graph, rng))
    (ingested / "manifest.json").write_text(json.dumps({"schema_version": 1, "synthetic": True}))
    t_papers = time.perf_counter() - t0
    t0 = time.perf_counter()
    edges = pa.table({"citing_id": ids.take(pa.array(graph.citing)), "cited_id": ids.take(pa.array(graph.cited))})
    pacsv.write_csv(edges, work / "edges.csv", pacsv.WriteOptions(quoting_style="none"))
    t_edges = time.perf_counter() - t0
    return {
        "graph_seconds": round(t_graph, 2),
        "papers_parquet_seconds": round(t_papers, 2),
        "edges_csv_seconds": round(t_edges, 2),
        "papers_parquet_bytes": (ingested / "papers.parquet").stat().st_size,
        "edges_csv_bytes": (work / "edges.csv").stat().st_size,
    }


def run_build(work: Path, result_path: Path) -> None:
    """Child process: the timed part (funnel + splits + writing the built corpus)."""
    from sciembed.corpus.build import build_corpus
    from sciembed.corpus.config import FunnelConfig

    start = time.perf_counter()
    result = build_corpus(work / "ingested", work / "built", FunnelConfig(**BENCH_CONFIG), [work / "edges.csv"],
                          show_progress=False)
    seconds = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result_path.write_text(json.dumps({
        "build_seconds": round(seconds, 2),
        "steps_seconds": result.timings,
        "peak_rss_mb": round(peak_kb / 1024, 1),
        "funnel": result.report.to_list(),
        "funnel_markdown": result.report.to_markdown(),
        "splits": {s: {k: v for k, v in stats.items() if k != "domains"} for s, stats in
                   result.splits.splits.items()},
        "cross_split_pairs": result.splits.cross_split_pairs,
    }))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=1_000_000)
    parser.add_argument("--edges", type=int, default=10_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=Path("/tmp/sciembed-bench-funnel"))
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "funnel.json")
    parser.add_argument("--keep", action="store_true", help="keep the generated and built corpora in --work")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_build(args.work, args.work / "child.json")
        return

    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    print(f"generating {args.papers:,} papers / {args.edges:,} edges in {args.work} …", flush=True)
    generation = generate(args.work, args.papers, args.edges, args.seed)
    print(f"generation: {generation}", flush=True)
    start = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--child", "--work", str(args.work)], check=True)
    wall = time.perf_counter() - start
    child = json.loads((args.work / "child.json").read_text())
    import duckdb

    report = {
        "benchmark": "corpus funnel + zero-overlap splits (sciembed corpus build)",
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "duckdb": duckdb.__version__, "pyarrow": pa.__version__},
        "params": {"papers": args.papers, "edges": args.edges, "seed": args.seed, "config": BENCH_CONFIG,
                   "section_lengths_chars": list(SECTION_LENGTHS),
                   "sections_per_paper_p": list(SECTIONS_P), "duckdb_threads": os.cpu_count(),
                   "duckdb_memory_limit": "2GB"},
        "generation": generation,
        "build_seconds": child["build_seconds"],
        "build_process_wall_seconds": round(wall, 2),
        "peak_rss_mb": child["peak_rss_mb"],
        "goal": {"seconds": 120, "peak_rss_mb": 4096,
                 "met": child["build_seconds"] <= 120 and child["peak_rss_mb"] <= 4096},
        "steps_seconds": child["steps_seconds"],
        "funnel": child["funnel"],
        "splits": child["splits"],
        "cross_split_pairs": child["cross_split_pairs"],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(child["funnel_markdown"])
    print(f"build {child['build_seconds']} s (process {wall:.1f} s), peak RSS {child['peak_rss_mb']} MB "
          f"-> {args.out}")
    if not args.keep:
        shutil.rmtree(args.work, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Benchmarks by kind: one loader module each, one table (`registry.BENCHMARKS`).

    entry = BenchmarkEntry(name="scidocs", kind="beir", path="data/scidocs")
    bench = load_benchmark(entry, Path("runs/bench"))   # a contract object: tasks(style), summarize()
"""

from sciembed.evaluation.benchmarks.registry import BENCHMARKS, BenchmarkEntry, LoadContext, load_benchmark

__all__ = ["BENCHMARKS", "BenchmarkEntry", "LoadContext", "load_benchmark"]

"""Citation-retrieval evaluation: benchmarks, metrics (ranx), geometry, reports.

    bench = scenario_benchmark(build_citation_benchmark("runs/corpus"))
    cell = evaluate("minilm", bench)                   # or an Encoder, or "bm25": the cell `eval suite` computes
    cell.result("body_ta/windowed").metrics["ndcg@10"]   # ×100
    write_cells_report([cell], bench, Path("runs/eval"))  # the suite report: report.md, results.json, benchmarks/

This module's names are the interface packages above (training's validation) may use; each loads on first
use (PEP 562), so importing one submodule (the CLI reads the benchmark registry) loads nothing else.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_HOME = {
    "load_beir": "beir", "build_citation_benchmark": "citation", "compare_runs": "compare",
    "evaluate": "bench.in_process", "scenario_benchmark": "bench.in_process", "write_cells_report": "bench.in_process",
    "BenchmarkError": "issues", "load_pools": "pools",
    "BODY_MODES": "keys", "key_str": "keys", "normalize_key": "keys",
}
__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_HOME[name]}"), name)
    globals()[name] = value
    return value

"""Citation-retrieval evaluation: benchmarks, metrics (ranx), geometry, reports.

    bench = build_citation_benchmark("runs/corpus")
    run = evaluate_encoder("minilm", bench)            # or an Encoder, or "bm25"
    run.aggregates[("body_ta", "windowed")]["ndcg@10"]
    write_runs_report([run], bench, Path("runs/eval"))  # the suite report: report.md, results.json, benchmarks/

Heavy libraries (torch, faiss, ranx) load only when a function needs them. This module's names are
the interface packages above (training's validation) may use; they import nothing deeper.
"""

from sciembed.evaluation.beir import BeirBenchmark, load_beir
from sciembed.evaluation.bench.runs_report import write_runs_report
from sciembed.evaluation.citation import CitationBenchmark, build_citation_benchmark
from sciembed.evaluation.compare import Comparison, compare_runs, load_results
from sciembed.evaluation.issues import BenchmarkError, Issue, IssueLog
from sciembed.evaluation.metrics import METRICS, PRIMARY
from sciembed.evaluation.pools import PoolBenchmark, load_pools
from sciembed.evaluation.run import ModelRun, evaluate_encoder
from sciembed.evaluation.task import BODY_MODES, SCENARIOS, RetrievalTask, ScenarioKey, normalize_key

__all__ = [
    "BODY_MODES",
    "METRICS",
    "PRIMARY",
    "SCENARIOS",
    "BeirBenchmark",
    "BenchmarkError",
    "CitationBenchmark",
    "Comparison",
    "Issue",
    "IssueLog",
    "ModelRun",
    "PoolBenchmark",
    "RetrievalTask",
    "ScenarioKey",
    "build_citation_benchmark",
    "compare_runs",
    "evaluate_encoder",
    "load_beir",
    "load_pools",
    "load_results",
    "normalize_key",
    "write_runs_report",
]

"""`sciembed bench`: every model and recipe on every benchmark, one report.

    suite = load_suite("configs/bench-demo.yaml")
    run = run_suite(suite)              # resumable: finished (model, benchmark) cells are reused
    write_suite_report(run)             # <out>/report.md, results.json, heatmap.png, benchmarks/*.md (+ figures)
"""

from sciembed.evaluation.bench.report import write_suite_report
from sciembed.evaluation.bench.runner import SuiteRun, run_suite
from sciembed.evaluation.bench.suite import Suite, SuiteError, load_suite

__all__ = ["Suite", "SuiteError", "SuiteRun", "load_suite", "run_suite", "write_suite_report"]

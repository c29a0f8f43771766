"""kind ``scifullbench``: a SciFullBench release folder (Benchmark/, Target_Corpus/), paper to paper."""

from __future__ import annotations

from typing import Any

from sciembed.evaluation.benchmarks.paper_to_paper import PaperToPaperAdapter, p2p_config


def load(entry: Any, context: Any) -> PaperToPaperAdapter:
    from sciembed.evaluation.scifullbench import load_scifullbench

    return PaperToPaperAdapter(load_scifullbench(entry.resolved_path()), entry.name, p2p_config(entry),
                               kind="scifullbench")

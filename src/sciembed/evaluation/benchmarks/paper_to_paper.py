"""kind ``paper_to_paper``: whole papers as queries — a corpus with directed citations, or a corpus plus
``queries_file`` and ``qrels_file``."""

from __future__ import annotations

from typing import Any

from sciembed.evaluation.benchmarks.adapters import PaperToPaperAdapter


def p2p_config(entry: Any) -> Any:
    """The PRISM config (``config`` YAML or the defaults) with the entry's LLM queries and methods."""
    from sciembed.evaluation.p2p_run import load_p2p_config

    return load_p2p_config(entry.config, queries_file=entry.llm_queries, methods=entry.methods)


def load(entry: Any, context: Any) -> PaperToPaperAdapter:
    from sciembed.evaluation.issues import BenchmarkError
    from sciembed.evaluation.paper_to_paper import build_paper_to_paper, load_paper_to_paper

    if (entry.queries_file is None) != (entry.qrels_file is None):
        raise BenchmarkError(f"benchmark {entry.name}: queries_file and qrels_file go together")
    if entry.queries_file is not None:
        bench = load_paper_to_paper(entry.resolved_path(), entry.queries_file, entry.qrels_file)
    else:
        bench = build_paper_to_paper(entry.resolved_path(), split=entry.split, min_gold=entry.min_gold)
    return PaperToPaperAdapter(bench, entry.name, p2p_config(entry))

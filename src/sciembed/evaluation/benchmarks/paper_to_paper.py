"""kind ``paper_to_paper``: whole papers as queries — a corpus with directed citations, a corpus plus
``queries_file`` and ``qrels_file``, or an ingested collection (its references and citations resolved
within the collection; query papers split val / test by ``seed`` and ``val_share``).

On a collection, ``tune_fusion`` ranks every method once over the val + test query papers, tunes
method ``fused`` on val (ranx) and scores every method on test; ``fusion`` applies a saved fusion.
"""

from __future__ import annotations

from typing import Any

from sciembed.evaluation.benchmarks.adapters import PaperToPaperAdapter, TunedFusion


def p2p_config(entry: Any) -> Any:
    """The PRISM config (``config`` YAML or the defaults) with the entry's LLM queries and methods."""
    from sciembed.evaluation.p2p_config import load_p2p_config

    return load_p2p_config(entry.config, queries_file=entry.llm_queries, methods=entry.methods)


def load(entry: Any, context: Any) -> PaperToPaperAdapter:
    from sciembed.corpus.layout import CorpusDir
    from sciembed.evaluation.issues import BenchmarkError
    from sciembed.evaluation.paper_to_paper import (
        build_collection_paper_to_paper,
        build_paper_to_paper,
        load_paper_to_paper,
        query_split_of,
    )
    from sciembed.retrieval.learned_fusion import FusionSpec

    if (entry.queries_file is None) != (entry.qrels_file is None):
        raise BenchmarkError(f"benchmark {entry.name}: queries_file and qrels_file go together")
    if entry.tune_fusion and entry.fusion is not None:
        raise BenchmarkError(f"benchmark {entry.name}: give fusion (a saved fusion.json) or tune_fusion, not both")
    fusion = FusionSpec.load(entry.fusion) if entry.fusion is not None else None
    config = p2p_config(entry)
    if "fused" in config.methods and fusion is None and not entry.tune_fusion:
        raise BenchmarkError(f"benchmark {entry.name}: method fused needs a fusion: --tune-fusion (an ingested "
                             "collection) or --fusion FILE (a fusion.json it saved)")
    path = entry.resolved_path()
    collection = entry.queries_file is None and not CorpusDir(path).has_citations()
    if entry.tune_fusion and (not collection or entry.split != "test"):
        raise BenchmarkError(f"benchmark {entry.name}: tune_fusion needs an ingested collection and split test")
    if entry.queries_file is not None:
        bench = load_paper_to_paper(path, entry.queries_file, entry.qrels_file)
    elif not collection:
        bench = build_paper_to_paper(path, split=entry.split, min_gold=entry.min_gold)
    elif entry.tune_fusion:
        everything = build_collection_paper_to_paper(path, split="all", seed=entry.seed, val_share=entry.val_share,
                                                     min_gold=entry.min_gold)
        ids = sorted(everything.queries)
        val = [q for q in ids if query_split_of(q, entry.seed, entry.val_share) == "val"]
        tuned = TunedFusion(val, [q for q in ids if q not in set(val)], context.workdir / "fusion" / entry.name)
        return PaperToPaperAdapter(everything, entry.name, config, tuned=tuned)
    else:
        bench = build_collection_paper_to_paper(path, split=entry.split, seed=entry.seed, val_share=entry.val_share,
                                                min_gold=entry.min_gold)
    return PaperToPaperAdapter(bench, entry.name, config, fusion=fusion)

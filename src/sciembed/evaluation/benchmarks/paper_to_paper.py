"""kind ``paper_to_paper``: whole papers as queries — a corpus with directed citations, a corpus plus
``queries_file`` and ``qrels_file``, or an ingested collection (its references and citations resolved
within the collection; query papers split val / test by ``seed`` and ``val_share``).

On a collection, ``tune_fusion`` ranks every method once over the val + test query papers, tunes
method ``fused`` on val (ranx) and scores every method on test; ``fusion`` applies a saved fusion.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sciembed.evaluation.benchmarks.adapters import PaperToPaperAdapter, TunedFusion


def p2p_config(entry: Any) -> Any:
    """The PRISM config (``config`` YAML or the defaults) with the entry's LLM queries and methods."""
    from sciembed.evaluation.p2p_config import load_p2p_config

    return load_p2p_config(entry.config, queries_file=entry.llm_queries, methods=entry.methods)


def query_benchmark(entry: Any) -> Any:
    """The `PaperToPaperBenchmark` an entry names — its query papers, qrels and candidates — without methods or
    fusion: a corpus plus ``queries_file`` / ``qrels_file``, a corpus with directed citations (its ``split``), or
    an ingested collection (query papers of ``split`` by ``seed`` and ``val_share``; with ``tune_fusion``, val
    and test together). `load` and ``sciembed prism queries --split`` both use it, so they agree on the queries."""
    from sciembed.corpus.layout import CorpusDir
    from sciembed.evaluation.issues import BenchmarkError
    from sciembed.evaluation.paper_to_paper import (
        build_collection_paper_to_paper,
        build_paper_to_paper,
        load_paper_to_paper,
    )

    if (entry.queries_file is None) != (entry.qrels_file is None):
        raise BenchmarkError(f"benchmark {entry.name}: queries_file and qrels_file go together")
    path = entry.resolved_path()
    if entry.queries_file is not None:
        return load_paper_to_paper(path, entry.queries_file, entry.qrels_file)
    if CorpusDir(path).has_citations():
        return build_paper_to_paper(path, split=entry.split, min_gold=entry.min_gold)
    return build_collection_paper_to_paper(path, split="all" if entry.tune_fusion else entry.split, seed=entry.seed,
                                           val_share=entry.val_share, min_gold=entry.min_gold,
                                           query_splits=query_splits(entry))


def query_splits(entry: Any) -> dict[str, str] | None:
    """``entry.query_splits``'s paper -> split (a built corpus's splits.parquet), or None."""
    if entry.query_splits is None:
        return None
    from sciembed.corpus.layout import CorpusDir

    corpus = CorpusDir(Path(entry.query_splits).expanduser())
    return {pid: split for split in ("train", "val", "test") for pid in corpus.split_ids(split)}


def query_paper_ids(corpus: str | Path, *, split: str = "test", seed: int = 0, val_share: float = 0.3,
                    min_gold: int = 1) -> list[str]:
    """The query paper ids of ``sciembed eval run --kind paper_to_paper CORPUS --split … --seed … --val-share …
    --min-gold …`` (sorted): on an ingested collection ``split`` is val, test or all (val + test, what
    ``--tune-fusion`` ranks); on a corpus with directed citations, a corpus split."""
    from sciembed.evaluation.benchmarks.entry import BenchmarkEntry

    entry = BenchmarkEntry(name=Path(corpus).name or "paper_to_paper", kind="paper_to_paper", path=str(corpus),
                           split=split, seed=seed, val_share=val_share, min_gold=min_gold)
    return sorted(query_benchmark(entry).queries)


def load(entry: Any, context: Any) -> PaperToPaperAdapter:
    from sciembed.corpus.layout import CorpusDir
    from sciembed.evaluation.issues import BenchmarkError
    from sciembed.evaluation.paper_to_paper import query_split_of
    from sciembed.retrieval.learned_fusion import FusionSpec

    if entry.tune_fusion and entry.fusion is not None:
        raise BenchmarkError(f"benchmark {entry.name}: give fusion (a saved fusion.json) or tune_fusion, not both")
    fusion = FusionSpec.load(entry.fusion) if entry.fusion is not None else None
    config = p2p_config(entry)
    if "fused" in config.methods and fusion is None and not entry.tune_fusion:
        raise BenchmarkError(f"benchmark {entry.name}: method fused needs a fusion: --tune-fusion (an ingested "
                             "collection) or --fusion FILE (a fusion.json it saved)")
    collection = entry.queries_file is None and not CorpusDir(entry.resolved_path()).has_citations()
    if entry.tune_fusion and (not collection or entry.split != "test"):
        raise BenchmarkError(f"benchmark {entry.name}: tune_fusion needs an ingested collection and split test")
    bench = query_benchmark(entry)
    if entry.tune_fusion:
        ids = sorted(bench.queries)
        assigned = query_splits(entry)
        val = [q for q in ids if (assigned[q] if assigned is not None else
                                  query_split_of(q, entry.seed, entry.val_share)) == "val"]
        tuned = TunedFusion(val, [q for q in ids if q not in set(val)], context.workdir / "fusion" / entry.name)
        return PaperToPaperAdapter(bench, entry.name, config, tuned=tuned)
    return PaperToPaperAdapter(bench, entry.name, config, fusion=fusion)

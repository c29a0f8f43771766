"""kind ``paper_to_paper``: whole papers as queries — a corpus with directed citations, a corpus plus
``queries_file`` and ``qrels_file``, or an ingested collection (its references and citations resolved
within the collection; query papers split val / test by ``seed`` and ``val_share``).

On a collection, ``tune_fusion`` ranks every method once over the val + test query papers, tunes
method ``fused`` on val (ranx) and scores every method on test; ``fusion`` applies a saved fusion.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciembed.evaluation.contract import TaskResult, TextStyle, primary_summary


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


def task_results(run: Any, group: str, primary: str = "ndcg@10", prefix: str = "") -> list[TaskResult]:
    """A paper-to-paper `MethodRun` (scores 0–1, one key per split) as contract `TaskResult`s (×100)."""
    from sciembed.evaluation.task import key_str

    out = []
    for key in run.keys:
        per_query = {m: {q: 100.0 * v for q, v in s.items()} for m, s in run.per_query[key].items()}
        metrics = {m: 100.0 * v for m, v in run.aggregates[key].items()}
        out.append(TaskResult(prefix + key_str(key), "retrieval", primary, metrics, per_query,
                              dict(run.counts.get(key, {})), group, [n["message"] for n in run.notes.get(key, [])],
                              rankings=run.rankings.get(key), qrels=run.qrels.get(key)))
    return out


def _encoder_of(scorer: Any, kind: str) -> Any:
    from sciembed.evaluation.issues import BenchmarkError
    from sciembed.evaluation.scorers import DenseScorer

    if not isinstance(scorer, DenseScorer):
        raise BenchmarkError(f"{kind} compares embedding models; {scorer.name} has no vectors")
    return scorer.encoder


@dataclass(frozen=True)
class TunedFusion:
    """Method ``fused`` tuned on the val query papers and every method scored on the test ones; each
    model's fusion is saved as ``<folder>/<model>.json`` (a `FusionSpec`, reusable as ``fusion``)."""

    val_ids: list[str]
    test_ids: list[str]
    folder: Path


def p2p_details(run: Any, split: str) -> dict[str, Any]:
    """What the paper-to-paper report section reads beyond the metrics: the method and split, the query source
    of every aspect (PRISM), and for prism_llm the number of LLM samples and each metric's std across them (×100)."""
    details: dict[str, Any] = {"method": run.model, "split": split}
    if run.config.get("query_sources"):
        details["query_sources"] = run.config["query_sources"]
    if run.config.get("samples"):
        details["samples"] = run.config["samples"]
        details["sample_std"] = {m: 100.0 * v for m, v in (run.config.get("sample_std") or {}).get(split, {}).items()}
    return details


@dataclass
class PaperToPaperAdapter:
    """Whole papers as queries (a corpus with directed citations, a qrels file, an ingested collection,
    SciFullBench): each method on each split is a task (the harness metrics of `p2p_evaluate`, ×100)."""

    benchmark: Any  # PaperToPaperBenchmark
    name: str
    config: Any  # P2PConfig
    kind: str = "paper_to_paper"
    native: bool = True
    fusion: Any = None  # FusionSpec applied by method ``fused``
    primary: str = "ndcg@10"  # R@100 saturates (95–97 for every method on a held-out set): NDCG@10 separates them
    tuned: TunedFusion | None = None

    def fingerprint(self) -> str:
        import hashlib
        import json

        extra = {"fusion": self.fusion.to_dict() if self.fusion is not None else None,
                 "tuned": [self.tuned.val_ids, self.tuned.test_ids] if self.tuned is not None else None}
        config = json.dumps([self.config.model_dump(mode="json"), extra], sort_keys=True, default=str)
        return f"{self.benchmark.fingerprint()}:{hashlib.sha256(config.encode()).hexdigest()[:8]}"

    def describe(self) -> dict[str, Any]:
        described = {**self.benchmark.describe(), "name": self.name, "config": self.config.model_dump(mode="json")}
        if self.fusion is not None:
            described["fusion"] = self.fusion.to_dict()
        if self.tuned is not None:
            described["fusion_tuning"] = {"val_queries": len(self.tuned.val_ids),
                                          "test_queries": len(self.tuned.test_ids), "saved_in": str(self.tuned.folder)}
        return described

    def tasks(self, style: TextStyle) -> list[Any]:
        return []

    def run_native(self, scorer: Any, batch_size: int | None = None) -> list[TaskResult]:
        from sciembed.evaluation.p2p_evaluate import evaluate_paper_to_paper
        from sciembed.evaluation.p2p_fusion import evaluate_with_tuned_fusion
        from sciembed.ioutil.names import slug

        encoder = _encoder_of(scorer, self.kind)
        if self.tuned is None:
            runs = evaluate_paper_to_paper(self.benchmark, encoder, self.config, fusion=self.fusion)
        else:
            runs, spec, _ = evaluate_with_tuned_fusion(self.benchmark, self.tuned.val_ids, self.tuned.test_ids,
                                                       encoder, self.config)
            path = spec.save(self.tuned.folder / f"{slug(scorer.name)}.json")
            note = (f"fusion tuned on val ({len(self.tuned.val_ids)} query papers): {spec.label} "
                    f"({spec.tuned['metric']} {spec.tuned['score']:.4f}), saved as {path}; val {spec.tuned['metric']} "
                    f"per method: {', '.join(f'{m} {v:.4f}' for m, v in spec.tuned['val_methods'].items())}; "
                    f"best on val: {spec.tuned['val_best_method']}")
        results = []
        for run in runs:
            for key, result in zip(run.keys, task_results(run, self.kind, self.primary, prefix=f"{run.model}/"),
                                   strict=True):
                result.details = p2p_details(run, key[0])
                if self.tuned is not None and run.model == "fused":
                    result.notes.append(note)
                results.append(result)
        return results

    def summarize(self, results: Sequence[TaskResult]) -> dict[str, float]:
        return primary_summary(results)

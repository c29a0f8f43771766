"""kind ``paper_to_paper``: whole papers as queries — a corpus with directed citations, a corpus plus
``queries_file`` and ``qrels_file``, or an ingested collection (its references and citations resolved
within the collection; query papers split val / test by ``seed`` and ``val_share``).

On a collection, ``tune_fusion`` ranks every method once over the val + test query papers, tunes
method ``fused`` on val (ranx) and scores every method on test; ``fusion`` applies a saved fusion.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from sciembed.evaluation.contract import RankingTask, Searched, TaskResult, TextStyle, primary_summary
from sciembed.evaluation.p2p_config import P2P_METRICS


def p2p_config(entry: Any) -> Any:
    """The PRISM config (``config`` YAML or the defaults) with the entry's LLM queries and methods."""
    from sciembed.evaluation.p2p_config import load_p2p_config

    return load_p2p_config(entry.config, queries_file=entry.llm_queries, methods=entry.methods)


def query_benchmark(path: str | Path, *, queries_file: str | None = None, qrels_file: str | None = None,
                    split: str = "test", seed: int = 0, val_share: float = 0.3, min_gold: int = 1,
                    query_splits: dict[str, str] | None = None, tune_fusion: bool = False) -> Any:
    """The `PaperToPaperBenchmark` at `path` — its query papers, qrels and candidates — without methods or
    fusion: a corpus plus `queries_file` / `qrels_file`, a corpus with directed citations (its `split`), or an
    ingested collection (query papers of `split` by `seed` and `val_share`, or by `query_splits`; with
    `tune_fusion`, val and test together). `load` and ``sciembed prism queries --split`` both use it, so they
    agree on the queries."""
    from sciembed.corpus.layout import CorpusDir
    from sciembed.evaluation.issues import BenchmarkError
    from sciembed.evaluation.paper_to_paper import (
        build_collection_paper_to_paper,
        build_paper_to_paper,
        load_paper_to_paper,
    )

    if (queries_file is None) != (qrels_file is None):
        raise BenchmarkError(f"benchmark {path}: queries_file and qrels_file go together")
    path = Path(path).expanduser()
    if queries_file is not None:
        return load_paper_to_paper(path, queries_file, qrels_file)
    if CorpusDir(path).has_citations():
        return build_paper_to_paper(path, split=split, min_gold=min_gold)
    return build_collection_paper_to_paper(path, split="all" if tune_fusion else split, seed=seed,
                                           val_share=val_share, min_gold=min_gold, query_splits=query_splits)


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
    ``--set tune_fusion=true`` ranks); on a corpus with directed citations, a corpus split."""
    return sorted(query_benchmark(corpus, split=split, seed=seed, val_share=val_share, min_gold=min_gold).queries)


def load(entry: Any, context: Any) -> PaperToPaperAdapter:
    from sciembed.corpus.layout import CorpusDir
    from sciembed.evaluation.issues import BenchmarkError
    from sciembed.evaluation.paper_to_paper import query_split_of
    from sciembed.search.learned_fusion import FusionSpec

    if entry.tune_fusion and entry.fusion is not None:
        raise BenchmarkError(f"benchmark {entry.name}: give fusion (a saved fusion.json) or tune_fusion, not both")
    fusion = FusionSpec.load(entry.fusion) if entry.fusion is not None else None
    config = p2p_config(entry)
    if "fused" in config.methods and fusion is None and not entry.tune_fusion:
        raise BenchmarkError(f"benchmark {entry.name}: method fused needs a fusion: --set tune_fusion=true (an "
                             "ingested collection) or --set fusion=FILE (a fusion.json it saved)")
    collection = entry.queries_file is None and not CorpusDir(entry.resolved_path()).has_citations()
    if entry.tune_fusion and (not collection or entry.split != "test"):
        raise BenchmarkError(f"benchmark {entry.name}: tune_fusion needs an ingested collection and split test")
    assigned = query_splits(entry)
    bench = query_benchmark(entry.resolved_path(), queries_file=entry.queries_file, qrels_file=entry.qrels_file,
                            split=entry.split, seed=entry.seed, val_share=entry.val_share, min_gold=entry.min_gold,
                            query_splits=assigned, tune_fusion=entry.tune_fusion)
    if entry.tune_fusion:
        ids = sorted(bench.queries)
        val = [q for q in ids if (assigned[q] if assigned is not None else
                                  query_split_of(q, entry.seed, entry.val_share)) == "val"]
        tuned = TunedFusion(val, [q for q in ids if q not in set(val)], context.workdir / "fusion" / entry.name)
        return PaperToPaperAdapter(bench, entry.name, config, tuned=tuned)
    return PaperToPaperAdapter(bench, entry.name, config, fusion=fusion)


def load_scifullbench(entry: Any, context: Any) -> PaperToPaperAdapter:
    """kind ``scifullbench``: a SciFullBench release folder (Benchmark/, Target_Corpus/), paper to paper."""
    from sciembed.evaluation.scifullbench import load_scifullbench as read_release

    return PaperToPaperAdapter(read_release(entry.resolved_path()), entry.name, p2p_config(entry),
                               kind="scifullbench")


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


def reported_methods(config: Any, bench: Any) -> list[str]:
    """The methods that are tasks, A2A first: prism_llm once per LLM sample of its queries file
    (``prism_llm#<sample>``, each sample a task; the report gives their mean ± std)."""
    methods = sorted(config.methods, key=lambda m: m != "a2a")
    if "prism_llm" not in methods or config.queries_file is None:
        return methods
    from sciembed.search.prism.queries import read_query_sets

    samples = sorted({sample for pid, sample in read_query_sets(config.queries_file) if pid in bench.queries})
    llm = [f"prism_llm#{s}" for s in samples] or ["prism_llm#0"]  # none: ranking says why, in the cell's error
    return [m for m in methods if m != "prism_llm"] + llm


@dataclass
class PaperToPaperAdapter:
    """Whole papers as queries (a corpus with directed citations, a qrels file, an ingested collection,
    SciFullBench): each method on each relevance split is a ranking task ``<method>/<split>``, ranked by the
    method's search (`p2p_evaluate.rank_methods`, every method once per model) and scored by the executor."""

    benchmark: Any  # PaperToPaperBenchmark
    name: str
    config: Any  # P2PConfig
    kind: str = "paper_to_paper"
    fusion: Any = None  # FusionSpec applied by method ``fused``
    primary: str = "ndcg@10"  # R@100 saturates (95–97 for every method on a held-out set): NDCG@10 separates them
    tuned: TunedFusion | None = None
    _ranked: tuple[Any, Any, list[str]] | None = field(default=None, init=False, repr=False, compare=False)

    def fingerprint(self) -> str:
        import hashlib
        import json

        extra = {"fusion": self.fusion.to_dict() if self.fusion is not None else None,
                 "tuned": [self.tuned.val_ids, self.tuned.test_ids] if self.tuned is not None else None,
                 # cells of the engine before the executor (one prism_llm task, no cut-named metrics) are redone
                 "tasks": "executor"}
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

    def reported(self) -> Any:
        """The benchmark the tasks score: the test query papers when the fusion is tuned on val."""
        if self.tuned is None:
            return self.benchmark
        return self.benchmark.subset(self.tuned.test_ids, self.benchmark.name.replace(":all", ":test"))

    def tasks(self, style: TextStyle) -> list[RankingTask]:
        bench = self.reported()
        titles = bench.candidate_titles()
        methods = reported_methods(self.config, bench)
        if self.tuned is not None:  # the fusion tuned on val is reported after the methods it fuses
            methods.sort(key=lambda m: m == "fused")
        return [RankingTask(f"{method}/{split}", {q: bench.queries[q].title for q in qrels}, titles, qrels,
                            primary=self.primary, extra_metrics=P2P_METRICS, group=self.kind,
                            search=partial(self.search, method, split, sorted(qrels)), depth=self.config.top_k)
                for method in methods for split, qrels in bench.qrels.items()]

    def search(self, method: str, split: str, queries: list[str], scorer: Any) -> Searched:
        """One method's rankings of one split's query papers, every method ranked once per scorer."""
        if self._ranked is None or self._ranked[0] is not scorer:
            self._ranked = (scorer, *self._rank(scorer))
        _, ranked, notes = self._ranked
        details: dict[str, Any] = {"method": method.split("#")[0], "split": split}
        if "#" in method:
            details["sample"] = int(method.split("#")[1])
        if ranked.query_sources.get(method):
            details["query_sources"] = ranked.query_sources[method]
        rankings = {q: ranked.rankings[method].get(q, []) for q in queries}
        return Searched(rankings, details, notes if method == "fused" else [])

    def _rank(self, scorer: Any) -> tuple[Any, list[str]]:
        """Every method over every query paper; with `tuned`, ``fused`` tuned on the val ones and saved."""
        from sciembed.evaluation.p2p_evaluate import rank_methods, tune_p2p_fusion
        from sciembed.ioutil.names import slug
        from sciembed.search.learned_fusion import fuse_all

        encoder = _encoder_of(scorer, self.kind)
        if self.tuned is None:
            return rank_methods(self.benchmark, encoder, self.config, fusion=self.fusion), []
        config = self.config
        if "prism_llm" in config.methods:
            raise ValueError("prism_llm averages LLM samples per run: evaluate it without fusion tuning")
        methods = sorted(dict.fromkeys([*(m for m in config.methods if m != "fused"), *config.fuse_runs]),
                         key=lambda m: m != "a2a")
        ranked = rank_methods(self.benchmark, encoder, config.model_copy(update={"methods": methods}))
        val = self.benchmark.subset(self.tuned.val_ids, self.benchmark.name.replace(":all", ":val"))
        spec = tune_p2p_fusion({m: ranked.rankings[m] for m in methods}, val, config.fuse_runs, depth=config.top_k)
        spec.model = getattr(encoder, "fingerprint", None)
        ranked.rankings["fused"] = fuse_all(spec, {m: ranked.rankings[m] for m in spec.runs}, depth=config.top_k)
        path = spec.save(self.tuned.folder / f"{slug(scorer.name)}.json")
        note = (f"fusion tuned on val ({len(self.tuned.val_ids)} query papers): {spec.label} "
                f"({spec.tuned['metric']} {spec.tuned['score']:.4f}), saved as {path}; val {spec.tuned['metric']} "
                f"per method: {', '.join(f'{m} {v:.4f}' for m, v in spec.tuned['val_methods'].items())}; "
                f"best on val: {spec.tuned['val_best_method']}")
        return ranked, [note]

    def summarize(self, results: Sequence[TaskResult]) -> dict[str, float]:
        return primary_summary(results)

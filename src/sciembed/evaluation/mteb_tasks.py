"""sciembed's benchmarks as MTEB retrieval tasks, read from local files (no hub download).

`citation_task`, `paper_to_paper_task` and `ranking_task_to_mteb` (any `RankingTask`) return an
``mteb.AbsTaskRetrieval`` with the queries, candidates and qrels ``sciembed eval run`` scores, so
``mteb.evaluate`` runs them with any model. See docs/evaluation.md ("MTEB both ways").
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from sciembed.evaluation.contract import RankingTask, TextStyle

try:
    from mteb import TaskMetadata
    from mteb.abstasks.retrieval import AbsTaskRetrieval
except ImportError as exc:  # mteb is a dependency; a stripped environment says what is missing
    raise ImportError("sciembed's MTEB tasks need the mteb package: pip install mteb") from exc

LANGUAGES = ["eng-Latn"]
REFERENCE = "https://github.com/sciembed/sciembed"


def task_name(*parts: str) -> str:
    """An MTEB task name from sciembed's names: ``Sciembed`` + the parts in CamelCase (``SciembedAclTaTa``)."""
    words = [w for part in parts for w in part.replace("/", "_").replace("-", "_").replace(":", "_").split("_") if w]
    return "Sciembed" + "".join(w[:1].upper() + w[1:] for w in words)


def task_metadata(name: str, description: str, revision: str, split: str = "test",
                  task_type: str = "Retrieval") -> TaskMetadata:
    """Metadata of a local sciembed retrieval task: `revision` is the benchmark's fingerprint (data version)."""
    return TaskMetadata(name=name, description=description, dataset={"path": "sciembed-local", "revision": revision},
                        reference=REFERENCE, type=task_type, category="t2t", modalities=["text"], eval_splits=[split],
                        eval_langs=LANGUAGES, main_score="ndcg_at_10", domains=["Academic", "Written"],
                        task_subtypes=["Article retrieval"], license="not specified", annotations_creators="derived",
                        dialect=[], sample_creation="found", bibtex_citation="")


class SciembedRetrievalTask(AbsTaskRetrieval):
    """A sciembed `RankingTask` as an MTEB retrieval task; ``load_data`` reads nothing from the hub.

    Texts go whole in ``text`` (empty ``title``: MTEB would join them with a space), so the model reads exactly
    sciembed's strings; judgements below ``relevant_min`` are dropped (sciembed's binary threshold); pools become
    ``top_ranked``. MTEB reads ``metadata`` from the class (it drops instance metadata when it unloads data), so
    each task is a subclass made by `ranking_task_to_mteb`."""

    metadata: TaskMetadata
    ignore_identical_ids = True

    def __init__(self, ranking: RankingTask, **kwargs: Any) -> None:
        self.ranking = ranking
        self.ignore_identical_ids = ranking.exclude_self
        super().__init__(**kwargs)

    def load_data(self, num_proc: int | None = None, **kwargs: Any) -> None:
        from datasets import Dataset

        if self.data_loaded:
            return
        task = self.ranking
        qrels = {q: {d: int(r) for d, r in rel.items() if r >= task.relevant_min}
                 for q, rel in task.qrels.items() if q in task.queries}
        qrels = {q: rel for q, rel in qrels.items() if rel}
        corpus = Dataset.from_dict({"id": list(task.docs), "title": [""] * len(task.docs),
                                    "text": list(task.docs.values())})
        queries = Dataset.from_dict({"id": [q for q in task.queries if q in qrels],
                                     "text": [t for q, t in task.queries.items() if q in qrels]})
        top_ranked = {q: list(c) for q, c in task.pools.items() if q in qrels} if task.pools is not None else None
        split = self.metadata.eval_splits[0]
        self.dataset = {"default": {split: {"corpus": corpus, "queries": queries, "relevant_docs": qrels,
                                            "top_ranked": top_ranked}}}
        self.data_loaded = True


def ranking_task_to_mteb(task: RankingTask, name: str, *, description: str = "", revision: str | None = None,
                         split: str = "test") -> SciembedRetrievalTask:
    """Any sciembed ranking task as an MTEB task (revision: a hash of its texts and qrels unless given)."""
    if revision is None:
        digest = hashlib.sha256(json.dumps([task.queries, task.docs, task.qrels], sort_keys=True).encode())
        revision = digest.hexdigest()[:16]
    description = description or f"sciembed ranking task {task.name}"
    meta = task_metadata(name, description, revision, split, "Reranking" if task.pools is not None else "Retrieval")
    cls = type(name, (SciembedRetrievalTask,), {"metadata": meta})
    return cls(task)


def citation_task(corpus: str | Path, *, split: str = "test", scenario: str = "ta_ta", body_mode: str = "windowed",
                  ta_join: str = ". ", window_tokens: int = 512, query_mode: str = "anchors", paper_log_seed: int = 0,
                  name: str | None = None) -> SciembedRetrievalTask:
    """Citation retrieval on a built corpus (``sciembed corpus build``; the ACL corpus): one scenario.

    The same task ``sciembed eval run --kind citation CORPUS --set scenarios=SCENARIO`` scores for a model
    whose title/abstract join is `ta_join` and whose token budget is `window_tokens` (body scenarios).
    """
    from sciembed.evaluation.benchmarks.scenarios import ScenarioBenchmark
    from sciembed.evaluation.citation import build_citation_benchmark

    bench = build_citation_benchmark(corpus, split=split, paper_log_seed=paper_log_seed, queries=query_mode)
    scenarios = ScenarioBenchmark(bench, bench.name, "citation", (scenario,), (body_mode,))
    [ranking] = scenarios.tasks(TextStyle(ta_join=ta_join, window_tokens=window_tokens))
    name = name or task_name(Path(corpus).name, ranking.name)  # the name `eval run` writes for it
    description = (f"sciembed citation retrieval ({ranking.name}) on the {split} split of {Path(corpus).name}: "
                   f"{len(ranking.queries)} query papers ({bench.query_mode}), every linked paper relevant.")
    return ranking_task_to_mteb(ranking, name, description=description, revision=scenarios.fingerprint(), split=split)


def paper_to_paper_task(path: str | Path, *, split: str = "test", relevance: str = "references", seed: int = 0,
                        val_share: float = 0.3, min_gold: int = 1, abstract_format: str = "ta",
                        name: str | None = None) -> SciembedRetrievalTask:
    """Paper-to-paper retrieval (a corpus with directed citations or an ingested collection), query and candidate
    papers as title+abstract: sciembed's ``a2a`` method, relevance split `relevance` (``references`` /
    ``citations``, or the user's qrels split). The query paper is excluded by id; sciembed also excludes
    candidates sharing the query's normalised title, which MTEB cannot express."""
    from sciembed.evaluation.benchmarks.paper_to_paper import query_benchmark
    from sciembed.search.prism.index import abstract_text

    bench = query_benchmark(path, split=split, seed=seed, val_share=val_share, min_gold=min_gold)
    if relevance not in bench.qrels:
        raise ValueError(f"{path}: no relevance split {relevance!r}; it has {', '.join(bench.qrels)}")
    qrels = bench.qrels[relevance]
    candidates = bench.candidates(segments=False)
    docs = {c.id: abstract_text(c.title, c.abstract, abstract_format) for c in candidates}
    queries = {q: abstract_text(p.title, p.abstract, abstract_format) for q, p in sorted(bench.queries.items())
               if q in qrels}
    ranking = RankingTask(name=relevance, queries=queries, docs=docs, qrels=qrels, group="paper_to_paper")
    name = name or task_name(Path(path).name, "p2p", relevance)
    description = (f"sciembed paper-to-paper retrieval ({relevance}, title+abstract) on {Path(path).name}: "
                   f"{len(queries)} query papers against {len(docs)} candidates.")
    return ranking_task_to_mteb(ranking, name, description=description, revision=bench.fingerprint(), split=split)

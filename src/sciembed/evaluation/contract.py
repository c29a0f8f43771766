"""The Benchmark contract: every benchmark yields tasks of seven kinds, each kind's metrics defined once.

==================  =========================================  ===============================================
kind                what a task holds                          metrics (defined here, nowhere else)
==================  =========================================  ===============================================
``retrieval``       queries, one candidate collection, qrels   ranx over the FULL ranked collection (no top-k
                                                               cut): NDCG, NDCG@10, MAP, MRR, R@10/100, R-prec
``rerank``          queries, each with its own candidate pool  the same ranx metrics over the whole pool, plus
                                                               a benchmark's official metric function if any
``gold_rank``       queries, one shared pool, one gold          expected rank of the gold candidate over every
                    candidate per query                        order of tied scores: mean / median rank, MRR
``triplets``        (query, positive, negative) ids + texts    accuracy of d(q, pos) < d(q, neg); geometry
``classification``  texts, labels, train/test ids              scikit-learn linear probe, F1 (see probes.py)
``regression``      texts, targets, train/test ids             scikit-learn linear probe, Kendall τ / Pearson
``vectors``         texts and the benchmark's own scoring      whatever that official evaluator computes from
                    function over their vectors                the vectors (SciRepEval's Paper-Reviewer
                                                               Matching, S2AND, a corpus' geometry); dense only
==================  =========================================  ===============================================

Graded NDCG uses every judged grade as its gain (as pytrec_eval and ranx do); binary metrics count a grade of at
least the task's `relevant_min` (CSFCube: 2) as relevant, through ranx's ``-l<grade>`` suffix. A benchmark is any
object with `name`, `kind`, `fingerprint()`, `describe()`, `tasks(style)` and `summarize(results)` (`BenchmarkSpec`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

# The ranking metrics every retrieval / rerank task reports (ranx names; binary ones get "-l<min grade>").
RANKING_METRICS: tuple[str, ...] = ("ndcg", "ndcg@10", "map", "mrr", "recall@1", "recall@10", "recall@100",
                                    "r-precision")
GRADED_METRICS = frozenset({"ndcg", "ndcg@10", "ndcg@20"})


@dataclass(frozen=True)
class TextStyle:
    """How a model wants its input text: `sep` between title and abstract (SciRepEval's tokenizer separator,
    ``title [SEP] abstract``), the card's `input_format` (``plain``, ``cosaemb``, …), `ta_join` of its own TA
    views, `window_tokens` of body windows (the card's, else the encoder's), and the dense `encoder` for formats
    counted in its tokens."""

    sep: str = "."
    input_format: str = "plain"
    ta_join: str = ". "
    window_tokens: int = 512  # BM25 reads the window of a 512-token model
    encoder: Any = field(default=None, compare=False, repr=False)

    def join(self, title: str | None, abstract: str | None) -> str:
        title, abstract = (title or "").strip(), (abstract or "").strip()
        if not title or not abstract:
            return title or abstract
        if self.sep == ".":
            return f"{title.rstrip('.')}. {abstract}"
        return f"{title} {self.sep} {abstract}"


@dataclass
class RankingTask:
    """Queries ranked against the whole collection (`pools` None) or against each query's own pool."""

    name: str
    queries: dict[str, str]
    docs: dict[str, str]
    qrels: dict[str, dict[str, int]]
    pools: dict[str, list[str]] | None = None
    relevant_min: int = 1
    primary: str = "ndcg@10"
    exclude_self: bool = True  # a candidate whose id equals the query id is never ranked
    extra_metrics: tuple[str, ...] = ()  # ranx metrics a benchmark reports beyond RANKING_METRICS
    # benchmark-specific metrics over the ranked judgements (CSFCube's official script): query -> metric -> score
    official: Callable[[dict[str, list[int]]], dict[str, dict[str, float]]] | None = None
    group: str = ""  # the benchmark's task type (SciRepEval: proximity / search)
    notes: list[str] = field(default_factory=list)
    # the benchmark's own search instead of the scorer over every candidate (paper-to-paper's methods): scorer ->
    # `Searched`, each ranking its query's top `depth`; `docs` then only names the candidates (id -> title)
    search: Callable[[Any], Searched] | None = field(default=None, repr=False)
    depth: int | None = None

    @property
    def kind(self) -> str:
        return "retrieval" if self.pools is None else "rerank"

    def metric_names(self) -> list[str]:
        """ranx metric names for this task's relevance threshold; over rankings cut at `depth`, the full-list
        metrics are named by the cut (``map@300``) and R-precision, which has none, is left out."""
        suffix = f"-l{self.relevant_min}" if self.relevant_min > 1 else ""
        names = dict.fromkeys((*RANKING_METRICS, *self.extra_metrics))
        if self.depth is not None:
            names = dict.fromkeys(m if "@" in m else f"{m}@{self.depth}" for m in names if m != "r-precision")
        return [m if m in GRADED_METRICS else m + suffix for m in names]

    def candidates(self, qid: str) -> list[str]:
        pool = self.pools[qid] if self.pools is not None else list(self.docs)
        return [d for d in pool if not (self.exclude_self and d == qid)]


@dataclass
class Searched:
    """A benchmark's own search for a `RankingTask`: query -> [(doc, score)] best first, details and notes."""

    rankings: dict[str, list[tuple[str, float]]]
    details: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass
class GoldRankTask:
    """Each query has one gold candidate in a pool shared by all queries (SemCSE's matching tasks); scored by
    the gold's expected rank over every order of tied scores, so a constant scorer gets the chance rank."""

    name: str
    queries: dict[str, str]
    candidates: dict[str, str]
    gold: dict[str, str]  # query id -> its gold candidate's id
    primary: str = "mean_rank"
    group: str = ""
    notes: list[str] = field(default_factory=list)
    kind: str = "gold_rank"


@dataclass
class TripletTask:
    name: str
    texts: dict[str, str]
    triplets: list[tuple[str, str, str]]
    geometry_sample: int = 2000
    seed: int = 0
    primary: str = "accuracy"
    group: str = ""
    notes: list[str] = field(default_factory=list)
    kind: str = "triplets"


@dataclass
class ProbeTask:
    """A linear probe on frozen embeddings. `labels`: id -> label (or list of labels when `multi_label`)."""

    name: str
    kind: str  # "classification" | "regression"
    texts: dict[str, str]
    labels: dict[str, Any]
    train_ids: list[str]
    test_ids: list[str] | None  # None: cross-validated on `train_ids`
    metric: str  # "f1_macro" | "f1" | "accuracy" | "kendalltau" | "pearsonr"
    multi_label: bool = False
    few_shot: tuple[tuple[int, int], ...] = ()  # (sample size, iterations), SciRepEval's protocol
    seed: int = 42
    group: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def primary(self) -> str:
        return self.metric


@dataclass
class VectorTask:
    """Texts to encode and the benchmark's official evaluator over their vectors (id -> vector), for a task
    that fits no other kind: a reviewer scored by their papers, author clusters within blocks, a corpus'
    geometry. `score` returns the metrics, `primary` among them, and any non-numeric value (a spectrum) for
    the report's details."""

    name: str
    texts: dict[str, str]
    score: Callable[[Mapping[str, Any]], dict[str, Any]] = field(repr=False)
    primary: str = "score"
    group: str = ""
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    kind: str = "vectors"


Task = RankingTask | GoldRankTask | TripletTask | ProbeTask | VectorTask


@dataclass
class TaskResult:
    """One task's scores for one model. Scores are ×100 where the papers report them so (all but MSE)."""

    task: str
    kind: str
    primary: str
    metrics: dict[str, float]
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)  # metric -> query id -> score
    counts: dict[str, int] = field(default_factory=dict)
    group: str = ""
    notes: list[str] = field(default_factory=list)
    # structured, benchmark-specific facts a kind's report section reads (semantic: anisotropy; paper-to-paper:
    # method, split, query sources, std over LLM samples); left out of a cell when empty
    details: dict[str, Any] = field(default_factory=dict)
    # ranking tasks: query -> [(doc, score)] best first, and the judgements; for run files, never saved in a cell
    rankings: dict[str, list[tuple[str, float]]] | None = field(default=None, repr=False, compare=False)
    qrels: dict[str, dict[str, int]] | None = field(default=None, repr=False, compare=False)

    @property
    def score(self) -> float:
        return self.metrics.get(self.primary, float("nan"))

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()
                if k not in ("rankings", "qrels") and not (k == "details" and not v)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TaskResult:
        return cls(**dict(data))


class BenchmarkSpec(Protocol):
    """What `sciembed bench` needs from a benchmark."""

    name: str
    kind: str

    def fingerprint(self) -> str: ...

    def describe(self) -> dict[str, Any]: ...

    def tasks(self, style: TextStyle) -> Sequence[Task]: ...

    def summarize(self, results: Sequence[TaskResult]) -> dict[str, float]:
        """Named headline numbers (a task's primary score, type averages, an overall average)."""
        ...


class FingerprintOnce:
    """`fingerprint()` is the subclass's `_digest()`, computed on the first call and kept:
    a loaded benchmark does not change."""

    def _digest(self) -> str:
        raise NotImplementedError

    def fingerprint(self) -> str:
        cached = self.__dict__.get("_fingerprint")
        if cached is None:
            cached = self.__dict__["_fingerprint"] = self._digest()
        return cached

    def identity(self) -> dict[str, Any]:
        """The first keys of `describe()`: kind, name, source and fingerprint (the subclass has the first three)."""
        return {"kind": self.kind, "name": self.name, "source": self.source, "fingerprint": self.fingerprint()}


def json_digest(*parts: Any) -> str:
    """A fingerprint: the first 16 hex digits of SHA-256 over the JSON of each part, one after another."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(json.dumps(part).encode())
    return digest.hexdigest()[:16]


def primary_summary(results: Sequence[TaskResult]) -> dict[str, float]:
    """The default summary: each task's primary score, then the mean over tasks when there are several."""
    out = {r.task: r.score for r in results}
    if len(results) > 1:
        out["average"] = sum(r.score for r in results) / len(results)
    return out

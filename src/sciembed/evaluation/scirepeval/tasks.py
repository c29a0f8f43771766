"""SciRepEval's tasks as its own ``scirepeval_tasks.jsonl`` declares them (allenai/scirepeval).

Each names its ``allenai/scirepeval`` (texts) and ``allenai/scirepeval_test`` (qrels or labels) configs, its
metrics (pytrec_eval names) and any few-shot runs; ``proximity`` and ``adhoc_search`` report as "proximity" and
"search".
"""

from __future__ import annotations

from dataclasses import dataclass

TYPE_LABELS = {"classification": "classification", "regression": "regression", "proximity": "proximity",
               "adhoc_search": "search"}


@dataclass(frozen=True)
class TaskDef:
    name: str
    type: str
    meta: str  # config of allenai/scirepeval (split "evaluation")
    test: str  # config of allenai/scirepeval_test
    metrics: tuple[str, ...]
    few_shot: tuple[tuple[int, int], ...] = ()
    multi_label: bool = False
    fields: tuple[str, ...] = ("title", "abstract")
    simple_format: bool = False  # metadata is a plain paper list; queries and candidates come from the qrels
    evaluator: str = ""  # a task scored by its own official evaluator over vectors: "reviewer_matching" | "s2and"


TASKS: tuple[TaskDef, ...] = (
    TaskDef("Biomimicry", "classification", "biomimicry", "biomimicry", ("f1",), ((64, 50), (16, 100))),
    TaskDef("DRSM", "classification", "drsm", "drsm", ("f1_macro",), ((64, 50), (24, 100))),
    TaskDef("RELISH", "proximity", "relish", "relish", ("ndcg",)),
    TaskDef("NFCorpus", "adhoc_search", "nfcorpus", "nfcorpus", ("ndcg",)),
    TaskDef("TREC-CoVID", "adhoc_search", "trec_covid", "trec_covid", ("ndcg",)),
    TaskDef("Paper-Reviewer Matching", "proximity", "paper_reviewer_matching", "paper_reviewer_matching",
            ("P_5", "P_10"), evaluator="reviewer_matching"),
    TaskDef("Peer Review Score", "regression", "peer_review_score_hIndex", "peer_review_score", ("kendalltau",)),
    TaskDef("Max hIndex", "regression", "peer_review_score_hIndex", "hIndex", ("kendalltau",)),
    TaskDef("Tweet Mentions", "regression", "tweet_mentions", "tweet_mentions", ("kendalltau",)),
    TaskDef("SciDocs MAG", "classification", "scidocs_mag_mesh", "scidocs_mag", ("f1_macro",)),
    TaskDef("SciDocs MeSH", "classification", "scidocs_mag_mesh", "scidocs_mesh", ("f1_macro",)),
    TaskDef("SciDocs Cite", "proximity", "scidocs_view_cite_read", "scidocs_cite", ("map", "ndcg"),
            simple_format=True),
    TaskDef("SciDocs CoView", "proximity", "scidocs_view_cite_read", "scidocs_view", ("map", "ndcg"),
            simple_format=True),
    TaskDef("SciDocs CoCite", "proximity", "scidocs_view_cite_read", "scidocs_cocite", ("map", "ndcg"),
            simple_format=True),
    TaskDef("SciDocs CoRead", "proximity", "scidocs_view_cite_read", "scidocs_read", ("map", "ndcg"),
            simple_format=True),
    TaskDef("S2AND", "proximity", "s2and", "s2and", ("b3_f1",), evaluator="s2and"),  # embedding-only clusterer
    TaskDef("Same Author Detection", "proximity", "same_author", "same_author", ("map",)),
    TaskDef("Highly Influential Citations", "proximity", "high_influence_cite", "high_influence_cite", ("map",)),
    TaskDef("Search", "adhoc_search", "search", "search", ("ndcg",), fields=("title", "abstract", "venue", "year")),
    TaskDef("Citation Count", "regression", "cite_count", "cite_count", ("kendalltau",)),
    TaskDef("Publication Year", "regression", "pub_year", "pub_year", ("kendalltau",)),
    TaskDef("Fields of study", "classification", "fos", "fos", ("f1_macro",), ((10, 50), (5, 100)),
            multi_label=True),
    TaskDef("MeSH", "classification", "mesh_descriptors", "mesh_descriptors", ("f1_macro",)),
)
BY_NAME = {t.name: t for t in TASKS}

# pytrec_eval measure -> ranx metric (pytrec_eval's map and ndcg are full-list; P_k is precision@k)
PYTREC_TO_RANX = {"ndcg": "ndcg", "map": "map", "P_5": "precision@5", "P_10": "precision@10"}

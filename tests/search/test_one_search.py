"""`sciembed index search` and paper-to-paper evaluation are one search: the same query paper gets the same
ranking from index directories (stored vectors, the CLI and the server) as from evaluation (encoded views)."""

from __future__ import annotations

import pytest

from fakes.models import HashingEncoder
from fakes.topic_papers import write_topic_collection
from sciembed.evaluation.p2p_run import P2PConfig, rank_methods
from sciembed.evaluation.paper_to_paper import build_collection_paper_to_paper
from sciembed.index.bm25_paper import build_bm25_index
from sciembed.index.paper_index import build_paper_index
from sciembed.search.batch import search_batch
from sciembed.search.learned_fusion import FusionSpec


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("one_search")
    write_topic_collection(root / "corpus")
    encoder = HashingEncoder()
    build_bm25_index(root / "corpus", "fulltext", root / "bm25")
    build_paper_index(root / "corpus", encoder, "ta", root / "ta", show_progress=False)
    build_paper_index(root / "corpus", encoder, "ta+section", root / "late", show_progress=False)
    bench = build_collection_paper_to_paper(root / "corpus", split="all")
    return root, encoder, bench


def _same(cli: list[tuple[str, float]], evaluated: list[tuple[str, float]]) -> None:
    assert [d for d, _ in cli] == [d for d, _ in evaluated]
    assert all(abs(a - b) < 1e-5 for (_, a), (_, b) in zip(cli, evaluated, strict=True))  # stored float32 vectors


def test_each_run_ranks_a_query_paper_as_evaluation_does(built):
    root, encoder, bench = built
    evaluated = rank_methods(bench, encoder, P2PConfig(methods=["a2a", "bm25", "late"], top_k=10),
                             show_progress=False).rankings
    for method, part, how in (("a2a", "ta", None), ("bm25", "bm25", None), ("late", "late", "late")):
        queries = sorted(evaluated[method])
        assert len(queries) == 24
        found, _ = search_batch([root / part], papers=queries, k=10, method=how)
        for query, ranking in found:
            _same(ranking, evaluated[method][query])


def test_the_fused_search_ranks_as_evaluations_fused_method(built):
    root, encoder, bench = built
    spec = FusionSpec(["bm25", "a2a", "late"], "wsum", "min-max", {"weights": [0.5, 0.2, 0.3]})
    config = P2PConfig(methods=["a2a", "bm25", "late", "fused"], top_k=100)  # every candidate, as the CLI's lists
    evaluated = rank_methods(bench, encoder, config, show_progress=False, fusion=spec).rankings["fused"]
    found, _ = search_batch([root / "bm25", root / "ta", root / "late"], papers=sorted(evaluated), k=10,
                            method="late", fusion=spec)
    for query, ranking in found:
        _same(ranking, evaluated[query][:10])

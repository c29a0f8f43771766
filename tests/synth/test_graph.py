"""The synthetic citation graph: shape, preferences, heavy tail, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from sciembed.synth.graph import paper_id, paper_ids, synthetic_graph
from sciembed.synth.vocab import DOMAIN_NAMES, TOPIC_DOMAIN, TOPICS

N_PAPERS, N_EDGES = 20_000, 120_000


@pytest.fixture(scope="module")
def graph():
    return synthetic_graph(N_PAPERS, N_EDGES, seed=3)


def test_arrays_have_documented_types_and_ranges(graph):
    assert graph.topic.dtype == np.int32 and graph.domain.dtype == np.int16
    assert graph.citing.dtype == np.int64 and graph.cited.dtype == np.int64
    assert graph.n_papers == N_PAPERS and graph.n_edges == N_EDGES
    assert graph.topic.min() >= 0 and graph.topic.max() < len(TOPICS)
    assert np.array_equal(graph.domain, np.asarray(TOPIC_DOMAIN)[graph.topic])
    assert graph.domain_names == list(DOMAIN_NAMES)
    assert np.all(np.diff(graph.year) >= 0), "papers are indexed in publication order"
    assert graph.cited.min() >= 0 and graph.cited.max() < N_PAPERS


def test_edges_sorted_without_self_loops_and_nearly_without_duplicates(graph):
    key = graph.citing * N_PAPERS + graph.cited
    assert np.all(np.diff(key) >= 0)
    assert not np.any(graph.citing == graph.cited)
    assert N_EDGES - np.unique(key).size < 0.001 * N_EDGES


def test_citations_point_to_older_papers_where_possible(graph):
    assert np.mean(graph.cited < graph.citing) > 0.95


@pytest.mark.parametrize("share", [0.5, 0.8, 0.95])
def test_same_topic_share_is_close_to_the_setting(share):
    g = synthetic_graph(N_PAPERS, N_EDGES, seed=1, same_topic=share)
    assert abs(g.same_topic_share() - share) < 0.03


def test_in_degree_tail_is_heavier_than_uniform(graph):
    def top_share(in_degree: np.ndarray) -> float:
        top = np.sort(in_degree)[::-1][: N_PAPERS // 100]
        return top.sum() / in_degree.sum()

    uniform = np.bincount(np.random.default_rng(0).integers(0, N_PAPERS, N_EDGES), minlength=N_PAPERS)
    heavy, flat = top_share(graph.in_degree()), top_share(uniform)
    assert heavy > 3 * flat, (heavy, flat)
    assert graph.in_degree().max() > 5 * uniform.max()


def test_references_of_matches_the_edge_list(graph):
    out = graph.out_degree()
    assert out.sum() == N_EDGES
    i = int(np.argmax(out))
    assert np.array_equal(graph.references_of(i), graph.cited[graph.citing == i])


def test_same_seed_same_graph_other_seed_other_graph():
    a, b, c = (synthetic_graph(3000, 15000, seed=s) for s in (5, 5, 6))
    for name in ("topic", "domain", "year", "citing", "cited"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    assert not np.array_equal(a.cited, c.cited)


def test_tiny_and_invalid_sizes():
    assert synthetic_graph(1, 0).n_edges == 0
    two = synthetic_graph(2, 3, seed=0)
    assert not np.any(two.citing == two.cited)
    with pytest.raises(ValueError, match="at least 2 papers"):
        synthetic_graph(1, 5)
    with pytest.raises(ValueError, match="same_topic"):
        synthetic_graph(10, 5, same_topic=1.5)


def test_paper_id_format_one_at_a_time_and_vectorised():
    assert paper_id(123) == "synth-0000123"
    indices = np.array([0, 7, 123, 9_999_999])
    assert paper_ids(indices).to_pylist() == [paper_id(int(i)) for i in indices]

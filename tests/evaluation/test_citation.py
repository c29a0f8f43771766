"""The citation benchmark end to end with hand-set vectors: every scenario's ranking and scores by hand."""

from __future__ import annotations

from math import log2

import pytest

from sciembed.corpus.layout import CorpusError
from sciembed.evaluation import build_citation_benchmark, key_str, normalize_key
from sciembed.views import target_words

NDCG_2_4 = (1 / log2(3) + 1 / log2(5)) / (1 + 1 / log2(3))  # relevant at ranks 2 and 4 of 2 relevant

# Rankings worked out from the angles in conftest (self excluded, nearest angle first).
EXPECTED = {
    ("ta_ta", None): {
        "A": (list("BCDEFG"), NDCG_2_4), "B": (list("ACDEFG"), 1 / log2(6)), "C": (list("BDAEFG"), 0.5),
        "D": (list("CBEAFG"), 1 / log2(7)), "E": (list("DFCBAG"), 1 / log2(6)), "F": (list("EGDCBA"), 1 / log2(6)),
        "G": (list("FEDCBA"), 0.5),
    },
    ("body_ta", "windowed"): {
        "A": (list("BCDEFG"), NDCG_2_4), "B": (list("EFDGCA"), 1 / log2(3)), "C": (list("ABDEFG"), 1.0),
        "D": (list("ECBFAG"), 1 / log2(7)), "E": (list("CDBAFG"), 1 / log2(5)), "F": (list("EDCGBA"), 1 / log2(6)),
    },
    ("body_body", "windowed"): {
        "A": (list("CEDFB"), 1.0), "B": (list("FDECA"), 1.0), "C": (list("AEDFB"), 1.0),
        "E": (list("CADFB"), 1 / log2(3)), "F": (list("BDECA"), 1.0),
    },
}


@pytest.fixture
def bench(citation_corpus):
    return build_citation_benchmark(citation_corpus)


def test_benchmark_reads_split_links_and_counts_problems(bench) -> None:
    assert sorted(bench.papers) == list("ABCDEFG")  # train papers are not candidates
    assert bench.pairs() == [("A", "C"), ("A", "E"), ("B", "F"), ("D", "G")]  # the cross-split pair is not a link
    assert bench.query_ids == list("ABCDEFG")
    assert bench.without_body() == ["G"]
    assert set(bench.paper_log) == set("ABCDEF")
    info = bench.describe()
    assert info["papers_without_body"] == 1 and info["queries_without_body"] == 1
    assert info["query_domains"] == {"bio": 4, "cs": 3}


def test_body_modes_cut_the_logged_section(bench) -> None:
    window = target_words(20)
    windowed = bench.task(("body_ta", "windowed"), window)
    full = bench.task(("body_ta", "full"), window)
    assert len(windowed.queries["A"].split()) == window == 14
    assert full.queries["A"].startswith("body-A Methods\nWe describe")
    assert len(full.queries["A"].split()) == 2 + 42  # heading + the whole section
    assert windowed.docs == full.docs  # candidates are TA in Body→TA


def test_every_scenario_ranks_and_scores_as_computed_by_hand(bench, fake_encoder, score_scenarios) -> None:
    results = score_scenarios(fake_encoder, bench)
    assert list(results) == [key_str(k) for k in EXPECTED]
    for key, expected in EXPECTED.items():
        result = results[key_str(key)]
        assert sorted(result.rankings) == sorted(expected), key
        for qid, (order, ndcg) in expected.items():
            assert [d for d, _ in result.rankings[qid]] == order, (key, qid)
            assert result.per_query["ndcg@10"][qid] == pytest.approx(100 * ndcg), (key, qid)
        mean = sum(n for _, n in expected.values()) / len(expected)
        assert result.metrics["ndcg@10"] == pytest.approx(100 * mean)
    first_relevant = {"A": 2, "B": 5, "C": 3, "D": 6, "E": 5, "F": 5, "G": 3}
    assert results["ta_ta"].per_query["first_relevant_rank"] == first_relevant
    assert results["ta_ta"].metrics["mrr"] == pytest.approx(100 * sum(1 / r for r in first_relevant.values()) / 7)
    assert results["body_body/windowed"].metrics["recall@1"] == pytest.approx(100 * (1 / 2 + 1 + 1 + 0 + 1) / 5)
    assert normalize_key(("ta_ta", "full")) == ("ta_ta", None)  # TA→TA has no body mode


def test_the_query_paper_never_retrieves_itself(bench, fake_encoder, score_scenarios) -> None:
    """A's body and TA share one vector (score 1.0 with itself), yet A is not in its own ranking."""
    for task, result in score_scenarios(fake_encoder, bench, body_modes=("windowed", "full")).items():
        for qid, ranked in result.rankings.items():
            assert qid not in [d for d, _ in ranked], (task, qid)
            assert len(ranked) == result.counts["candidates"] - 1  # everything else is ranked


def test_papers_without_body_leave_body_scenarios_and_are_counted(bench, fake_encoder, score_scenarios) -> None:
    results = score_scenarios(fake_encoder, bench, body_modes=("full",))
    counts = {t: {k: r.counts[k] for k in ("queries", "candidates", "relevant_pairs")} for t, r in results.items()}
    assert counts["body_ta/full"] == {"queries": 6, "candidates": 7, "relevant_pairs": 7}
    assert counts["body_body/full"] == {"queries": 5, "candidates": 6, "relevant_pairs": 6}
    notes = results["body_body/full"].notes
    assert "query paper has no body: 1 (query left out of this scenario); e.g. G" in notes
    assert any(n.startswith("candidate paper has no body: 1 ") for n in notes)
    assert any(n.startswith("no linked paper among the candidates") and n.endswith("e.g. D") for n in notes)


def test_per_domain_split(bench, fake_encoder, score_scenarios) -> None:
    from sciembed.evaluation.bench.citation_detail import per_domain

    results = score_scenarios(fake_encoder, bench, scenarios=("ta_ta",))
    ndcg = {q: 100 * n for q, (_, n) in EXPECTED[("ta_ta", None)].items()}
    domains = per_domain({"fake": list(results.values())}, bench.domains)["ta_ta"]
    assert domains["cs"]["queries"] == 3 and domains["bio"]["queries"] == 4
    assert domains["cs"]["fake"] == pytest.approx((ndcg["A"] + ndcg["B"] + ndcg["C"]) / 3)
    assert domains["bio"]["fake"] == pytest.approx((ndcg["D"] + ndcg["E"] + ndcg["F"] + ndcg["G"]) / 4)


def test_geometry_of_the_hand_set_vectors(bench, fake_encoder, score_scenarios) -> None:
    g = score_scenarios(fake_encoder, bench, geometry=True)["geometry"].metrics
    assert g["papers"] == 7 and g["pairs"] == 4
    # squared chord length 2 − 2cos(Δ) for the linked pairs A-C 25°, A-E 82°, B-F 110°, D-G 125°
    from math import cos, radians

    expected = sum(2 - 2 * cos(radians(d)) for d in (25, 82, 110, 125)) / 4
    assert g["wang_isola_alignment"] == pytest.approx(expected, rel=1e-5)
    assert g["pair_alignment"] == pytest.approx(expected / 2, rel=1e-5)  # the paper's: mean 1 − cos
    intra = sum(2 - 2 * cos(radians(d)) for d in (0, 90, 22, 17, 52, 28)) / 6  # TA vs body angle per paper
    assert g["wang_isola_intra_article_alignment.windowed"] == pytest.approx(intra, rel=1e-5)
    assert g["intra_article_alignment.windowed"] == pytest.approx(intra / 2, rel=1e-5)
    assert g["spectrum.top_share.1"] > 0.5  # points on an arc: variance is not isotropic in 3-d


def test_bm25_runs_the_same_scenarios(bench, score_scenarios) -> None:
    results = score_scenarios("bm25", bench, geometry=True)
    assert list(results) == ["ta_ta", "body_ta/windowed", "body_body/windowed"]  # no vectors: no geometry
    for result in results.values():
        for qid, ranked in result.rankings.items():
            assert qid not in [d for d, _ in ranked]
            scores = [score for _, score in ranked]  # unscored candidates (no shared term) follow at 0
            assert scores == sorted(scores, reverse=True) and min(scores) >= 0


def test_corpus_without_splits_is_refused(tmp_path) -> None:
    with pytest.raises(CorpusError, match="no splits"):
        build_citation_benchmark(tmp_path)


def test_unknown_scenario_is_refused(bench, fake_encoder, score_scenarios) -> None:
    with pytest.raises(ValueError, match="unknown scenario 'abstract'"):
        score_scenarios(fake_encoder, bench, scenarios=("abstract",))


def test_anchor_queries_and_their_relevant_sets(anchored_corpus) -> None:
    """A hand-built test split: anchors A and D seeded the balls {A, C, E} and {D, G}; B–F is a link
    between two non-anchors. Anchor mode asks A and D only; linked mode asks every linked paper."""
    root = anchored_corpus
    bench = build_citation_benchmark(root)
    assert bench.query_mode == "anchors" and bench.query_ids == ["A", "D"]
    task = bench.task(("ta_ta", None), 50)
    assert task.qrels == {"A": {"C": 1, "E": 1}, "D": {"G": 1}}
    assert list(task.docs) == list("ABCDEFG")  # every split paper stays a candidate
    assert bench.describe()["mean_relevant_per_query"] == 1.5
    linked = build_citation_benchmark(root, queries="linked")
    assert linked.query_ids == ["A", "B", "C", "D", "E", "F", "G"]
    assert linked.fingerprint() != bench.fingerprint()
    with pytest.raises(ValueError, match="unknown query mode 'all'"):
        build_citation_benchmark(root, queries="all")


def test_corpus_without_anchor_column_falls_back_to_linked_queries(citation_corpus) -> None:
    bench = build_citation_benchmark(citation_corpus)
    assert bench.query_mode == "linked" and len(bench.query_ids) == 7
    assert any("no anchor column" in i.what for i in bench.issues)


def test_window_length_follows_window_tokens_not_max_seq_length(bench, fake_encoder) -> None:
    """ModernBERT rows of Table 5: full sections at the encoder's budget, windows from 512 tokens."""
    from sciembed.evaluation import scenario_benchmark
    from sciembed.evaluation.bench.in_process import scorer_for

    def window(task) -> int:
        return len(task.queries["A"].split())

    style = scorer_for(fake_encoder).style()
    own = scenario_benchmark(bench, scenarios=("body_ta",)).tasks(style)[0]
    set_ = scenario_benchmark(bench, scenarios=("body_ta",), window_tokens=40).tasks(style)[0]
    by_scorer = scenario_benchmark(bench, scenarios=("body_ta",)).tasks(
        scorer_for(fake_encoder, window_tokens=40).style())[0]
    assert window(own) == target_words(fake_encoder.max_seq_length) == 14
    assert window(set_) == window(by_scorer) == target_words(40) == 28  # A's body has 44 words
    assert fake_encoder.max_seq_length == 20  # the encoder itself is untouched

"""The citation benchmark end to end with hand-set vectors: every scenario's ranking and scores by hand."""

from __future__ import annotations

from math import log2

import pytest

from sciembed.corpus.layout import CorpusError
from sciembed.evaluation import build_citation_benchmark, evaluate_encoder
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
    a = windowed.query_ids.index("A")
    assert len(windowed.query_texts[a].split()) == window == 14
    assert full.query_texts[a].startswith("body-A Methods\nWe describe")
    assert len(full.query_texts[a].split()) == 2 + 42  # heading + the whole section
    assert windowed.doc_texts == full.doc_texts  # candidates are TA in Body→TA


def test_every_scenario_ranks_and_scores_as_computed_by_hand(bench, fake_encoder) -> None:
    run = evaluate_encoder(fake_encoder, bench, body_modes=("windowed",), show_progress=False)
    assert run.keys == list(EXPECTED)
    for key, expected in EXPECTED.items():
        assert sorted(run.rankings[key]) == sorted(expected), key
        for qid, (order, ndcg) in expected.items():
            assert [d for d, _ in run.rankings[key][qid]] == order, (key, qid)
            assert run.per_query[key]["ndcg@10"][qid] == pytest.approx(ndcg), (key, qid)
        mean = sum(n for _, n in expected.values()) / len(expected)
        assert run.aggregates[key]["ndcg@10"] == pytest.approx(mean)
    first_relevant = {"A": 2, "B": 5, "C": 3, "D": 6, "E": 5, "F": 5, "G": 3}
    assert run.aggregates[("ta_ta", None)]["mrr"] == pytest.approx(sum(1 / r for r in first_relevant.values()) / 7)
    assert run.aggregates["body_body/windowed"]["recall@1"] == pytest.approx((1 / 2 + 1 + 1 + 0 + 1) / 5)
    # TA→TA has no body mode: any body mode finds the one entry.
    assert run.aggregates[("ta_ta", "full")] is run.aggregates[("ta_ta", None)]


def test_the_query_paper_never_retrieves_itself(bench, fake_encoder) -> None:
    """A's body and TA share one vector (score 1.0 with itself), yet A is not in its own ranking."""
    run = evaluate_encoder(fake_encoder, bench, show_progress=False)
    for key in run.keys:
        for qid, ranked in run.rankings[key].items():
            assert qid not in [d for d, _ in ranked], (key, qid)
            assert len(ranked) == run.counts[key]["candidates"] - 1  # everything else is ranked


def test_papers_without_body_leave_body_scenarios_and_are_counted(bench, fake_encoder) -> None:
    run = evaluate_encoder(fake_encoder, bench, body_modes=("full",), show_progress=False)
    assert run.counts["body_ta/full"] == {"queries": 6, "candidates": 7, "relevant_pairs": 7}
    assert run.counts["body_body/full"] == {"queries": 5, "candidates": 6, "relevant_pairs": 6}
    notes = {n["what"]: n for n in run.notes["body_body/full"]}
    assert notes["query paper has no body"]["examples"] == ["G"]
    assert notes["candidate paper has no body"]["count"] == 1
    assert notes["no linked paper among the candidates"]["examples"] == ["D"]  # D's only link is G


def test_per_domain_split(bench, fake_encoder) -> None:
    run = evaluate_encoder(fake_encoder, bench, scenarios=("ta_ta",), show_progress=False)
    ndcg = {q: n for q, (_, n) in EXPECTED[("ta_ta", None)].items()}
    domains = run.per_domain["ta_ta"]
    assert domains["cs"]["queries"] == 3 and domains["bio"]["queries"] == 4
    assert domains["cs"]["ndcg@10"] == pytest.approx((ndcg["A"] + ndcg["B"] + ndcg["C"]) / 3)
    assert domains["bio"]["ndcg@10"] == pytest.approx((ndcg["D"] + ndcg["E"] + ndcg["F"] + ndcg["G"]) / 4)


def test_geometry_of_the_hand_set_vectors(bench, fake_encoder) -> None:
    run = evaluate_encoder(fake_encoder, bench, body_modes=("windowed",), show_progress=False)
    g = run.geometry
    assert g["papers"] == 7 and g["pairs"] == 4
    # squared chord length 2 − 2cos(Δ) for the linked pairs A-C 25°, A-E 82°, B-F 110°, D-G 125°
    from math import cos, radians

    expected = sum(2 - 2 * cos(radians(d)) for d in (25, 82, 110, 125)) / 4
    assert g["wang_isola_alignment"] == pytest.approx(expected, rel=1e-5)
    assert g["pair_alignment"] == pytest.approx(expected / 2, rel=1e-5)  # the paper's: mean 1 − cos
    intra = sum(2 - 2 * cos(radians(d)) for d in (0, 90, 22, 17, 52, 28)) / 6  # TA vs body angle per paper
    assert g["wang_isola_intra_article_alignment"]["windowed"] == pytest.approx(intra, rel=1e-5)
    assert g["intra_article_alignment"]["windowed"] == pytest.approx(intra / 2, rel=1e-5)
    assert g["spectrum"]["top_share"]["1"] > 0.5  # points on an arc: variance is not isotropic in 3-d


def test_bm25_runs_the_same_scenarios(bench) -> None:
    run = evaluate_encoder("bm25", bench, body_modes=("windowed",), show_progress=False)
    assert run.kind == "bm25" and run.geometry is None
    assert run.config["window_words"] == 358
    for key in run.keys:
        for qid, ranked in run.rankings[key].items():
            assert qid not in [d for d, _ in ranked]
            scores = [score for _, score in ranked]  # unscored candidates (no shared term) follow at 0
            assert scores == sorted(scores, reverse=True) and min(scores) >= 0


def test_corpus_without_splits_is_refused(tmp_path) -> None:
    with pytest.raises(CorpusError, match="no splits"):
        build_citation_benchmark(tmp_path)


def test_unknown_scenario_is_refused(bench, fake_encoder) -> None:
    with pytest.raises(ValueError, match="unknown scenario 'abstract'"):
        evaluate_encoder(fake_encoder, bench, scenarios=("abstract",), show_progress=False)


def test_anchor_queries_and_their_relevant_sets(anchored_corpus) -> None:
    """A hand-built test split: anchors A and D seeded the balls {A, C, E} and {D, G}; B–F is a link
    between two non-anchors. Anchor mode asks A and D only; linked mode asks every linked paper."""
    root = anchored_corpus
    bench = build_citation_benchmark(root)
    assert bench.query_mode == "anchors" and bench.query_ids == ["A", "D"]
    task = bench.task(("ta_ta", None), 50)
    assert task.qrels == {"A": {"C": 1, "E": 1}, "D": {"G": 1}}
    assert task.doc_ids == list("ABCDEFG")  # every split paper stays a candidate
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


@pytest.mark.parametrize("model", ["fake", "bm25"])
def test_full_list_mrr_does_not_depend_on_the_cut(bench, fake_encoder, model) -> None:
    """k = 1 keeps one candidate per query: MRR@1 loses every first hit below rank 1, MRR (full list) does not."""
    encoder = fake_encoder if model == "fake" else "bm25"
    cut = evaluate_encoder(encoder, bench, scenarios=("ta_ta",), k=1, show_progress=False, geometry=False)
    deep = evaluate_encoder(encoder, bench, scenarios=("ta_ta",), k=100, show_progress=False, geometry=False)
    full, at_1 = cut.per_query["ta_ta"]["mrr"], cut.per_query["ta_ta"]["mrr@1"]  # names carry the cut
    assert full == pytest.approx(deep.per_query["ta_ta"]["mrr"])  # 7 candidates: the top 100 is the full list
    assert "mrr@100" not in deep.per_query["ta_ta"] and "map@1" in cut.per_query["ta_ta"]
    if model == "fake":
        assert any(full[q] > at_1[q] for q in full)  # a query whose first relevant paper is below rank 1
    assert cut.aggregates["ta_ta"]["mrr"] == pytest.approx(sum(full.values()) / len(full))


def test_window_length_follows_window_tokens_not_max_seq_length(bench, fake_encoder) -> None:
    """ModernBERT rows of Table 5: full sections at the encoder's budget, windows from 512 tokens."""
    own = evaluate_encoder(fake_encoder, bench, body_modes=("windowed",), show_progress=False, geometry=False)
    set_ = evaluate_encoder(fake_encoder, bench, body_modes=("windowed",), show_progress=False, geometry=False,
                            window_tokens=512)
    assert own.config["window_words"] == target_words(fake_encoder.max_seq_length)
    assert set_.config["window_words"] == target_words(512) == 358
    assert fake_encoder.max_seq_length == 20  # the encoder itself is untouched

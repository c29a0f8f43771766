"""BM25Index (bm25s): lexical ranking, zero-score documents left out, exclusion, rebuild after add."""

from __future__ import annotations

import json

import pytest

from sciembed.retrieval import BM25Index


def test_term_overlap_ranks_and_zero_scores_are_not_hits():
    index = BM25Index()
    index.add(["d0", "d1", "d2"], ["apple banana apple", "banana cherry", "cherry date"])
    hits = index.search(["apple banana"], 3)[0]
    assert [d for d, _ in hits] == ["d0", "d1"]  # d2 shares no term with the query
    assert hits[0][1] > hits[1][1] > 0
    assert index.search(["zebra"], 3) == [[]]


def test_exclusion_and_rebuild_after_add():
    index = BM25Index()
    index.add(["d0", "d1"], ["apple banana", "banana cherry"])
    assert [d for d, _ in index.search(["banana"], 2, exclude=["d0"])[0]] == ["d1"]
    index.add(["d2"], ["banana banana banana split"])
    assert index.search(["banana split"], 1)[0][0][0] == "d2"
    with pytest.raises(TypeError, match="not one string"):
        index.search("banana", 1)
    with pytest.raises(ValueError, match="2 ids but 1 texts"):
        index.add(["a", "b"], ["text"])


def test_titles_find_their_abstracts_in_real_papers(shared_data):
    path = shared_data / "unarxive-sample" / "arXiv_src_2212_086.jsonl"
    with open(path, encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    ids = [r["paper_id"] for r in records]
    index = BM25Index()
    index.add(ids, [r["abstract"]["text"] for r in records])
    hits = index.search([r["metadata"]["title"] for r in records], 1)
    top1 = sum(h[0][0] == pid for h, pid in zip(hits, ids, strict=True) if h)
    assert top1 >= 0.8 * len(ids)


def test_saved_index_answers_as_built_without_rebuilding(tmp_path, monkeypatch):
    texts = ["apple banana apple", "banana cherry", "cherry date", "the apple of my eye"]
    index = BM25Index()
    index.add(["d0", "d1", "d2", "d0"], texts)
    queries = ["apple banana", "cherry", "eye apple", "zebra"]
    expected = index.search(queries, 3, exclude=[None, "d1", None, None])
    index.save(tmp_path / "bm25")
    assert (tmp_path / "bm25" / "params.index.json").is_file()  # bm25s's own format
    monkeypatch.setattr(BM25Index, "_build", lambda self: pytest.fail("a loaded index must not be rebuilt"))
    loaded = BM25Index.load(tmp_path / "bm25")
    assert loaded.search(queries, 3, exclude=[None, "d1", None, None]) == expected
    assert loaded.rows("d0") == [0, 3] and loaded.text(3) == "the apple of my eye"
    with pytest.raises(ValueError, match="read-only"):
        loaded.add(["d9"], ["more"])


@pytest.mark.parametrize("with_stats", [True, False])
def test_a_loaded_index_weights_live_texts_as_the_built_one(tmp_path, with_stats):
    texts = ["apple banana apple", "banana cherry", "cherry date", "the apple of my eye"]
    index = BM25Index()
    index.add(["d0", "d1", "d2", "d3"], texts)
    live = ["banana cherry", "apple date date"]
    expected = index.term_weights(live).toarray()
    index.save(tmp_path / "bm25")
    if not with_stats:  # saved before the mean length was kept: counted once from the corpus
        (tmp_path / "bm25" / "stats.json").unlink()
    loaded = BM25Index.load(tmp_path / "bm25")
    assert loaded.term_weights(live).toarray() == pytest.approx(expected)


# Query-term pruning. Document frequencies: alpha 3, beta 3, gamma 2, delta 1, epsilon 1 (of 4 documents), so the
# query's BM25 weights rank delta = epsilon (idf 1.20) > gamma (0.69) > alpha (0.36, twice) > beta (0.36, once).
PRUNE_DOCS = ["alpha beta gamma", "alpha beta delta", "alpha epsilon zeta zeta", "beta gamma eta eta"]
PRUNE_QUERY = "alpha alpha beta gamma delta epsilon"


def prune_index(query_terms: int | None) -> BM25Index:
    index = BM25Index(query_terms=query_terms)
    index.add(["d0", "d1", "d2", "d3"], PRUNE_DOCS)
    return index


def test_a_long_query_keeps_its_best_terms_and_scores_as_those_terms_alone():
    pruned = prune_index(3).search([PRUNE_QUERY], 4)[0]
    assert [d for d, _ in pruned] == ["d1", "d2", "d0", "d3"]  # delta, epsilon, gamma; alpha and beta dropped
    assert pruned == prune_index(None).search(["gamma delta epsilon"], 4)[0]
    whole = prune_index(None).search([PRUNE_QUERY], 4)[0]
    assert [d for d, _ in whole] == ["d1", "d0", "d2", "d3"]  # alpha and beta lift d0 above d2
    four = prune_index(4).search([PRUNE_QUERY], 4)[0]  # alpha kept, every occurrence of it
    assert four == prune_index(None).search(["alpha alpha gamma delta epsilon"], 4)[0]


def test_a_query_within_the_limit_is_scored_whole_and_ties_keep_the_lower_term_id():
    assert prune_index(5).search([PRUNE_QUERY], 4) == prune_index(None).search([PRUNE_QUERY], 4)
    index = prune_index(1)
    index.search(["warm"], 1)
    vocab = index._tokenizer.get_vocab_dict()
    ids = index._tokenizer.tokenize([PRUNE_QUERY], update_vocab=False, return_as="ids", show_progress=False)[0]
    assert index.pruned(ids, PRUNE_QUERY) == [vocab["delta"]]  # delta and epsilon weigh the same; delta came first
    with pytest.raises(ValueError, match="query_terms"):
        BM25Index(query_terms=0)


def test_live_texts_score_a_pruned_query_as_the_index_does(tmp_path):
    index = prune_index(3)
    counts, base = index.query_counts([PRUNE_QUERY])
    live = (counts @ index.term_weights(PRUNE_DOCS).T).toarray()[0] + base[0]
    expected = dict(zip(["d0", "d1", "d2", "d3"], live, strict=True))
    assert dict(index.search([PRUNE_QUERY], 4)[0]) == pytest.approx(expected)
    index.save(tmp_path / "bm25")
    assert BM25Index.load(tmp_path / "bm25").query_terms == BM25Index().query_terms


def test_scores_sum_each_query_word_once_per_occurrence_as_bm25s_does():
    index = prune_index(None)
    index.search(["warm"], 1)
    ids = index._tokenizer.tokenize([PRUNE_QUERY + " gamma"], update_vocab=False, return_as="ids",
                                    show_progress=False)[0]
    assert index.scores(ids) == pytest.approx(index._retriever.get_scores_from_ids(ids), rel=1e-6)
    assert index.scores([]).tolist() == [0.0] * 4

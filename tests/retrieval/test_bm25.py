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

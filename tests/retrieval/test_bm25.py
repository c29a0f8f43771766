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

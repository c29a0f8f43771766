"""Validation during training reads a fixed-size seeded subsample of the split."""

from __future__ import annotations

from sciembed.evaluation.citation import build_citation_benchmark
from sciembed.training.config import ValidationConfig
from sciembed.training.validation import CitationValidator, subsample


def test_subsample_keeps_every_relevant_paper_of_its_queries(tiny_corpus):
    full = build_citation_benchmark(tiny_corpus, split="val")
    assert len(full.query_ids) > 3
    cut = subsample(full, max_queries=3, max_candidates=12, seed=0)
    assert len(cut.query_ids) == 3 and set(cut.query_ids) <= set(full.query_ids)
    for q in cut.query_ids:
        assert cut.links[q] == full.links[q]
    needed = set(cut.query_ids).union(*(full.links[q] for q in cut.query_ids))
    assert needed <= set(cut.papers) and len(cut.papers) == max(12, len(needed))
    assert set(cut.paper_log) <= set(cut.papers)
    again = subsample(full, 3, 12, seed=0)
    assert again.query_ids == cut.query_ids and list(again.papers) == list(cut.papers)
    assert subsample(full, 3, 12, seed=1).query_ids != cut.query_ids or len(full.query_ids) <= 3
    assert subsample(full, None, None) is full
    assert subsample(full, 10_000, 10_000) is full


def test_validator_uses_the_configured_sample(tiny_corpus):
    assert (ValidationConfig().max_queries, ValidationConfig().max_candidates) == (3000, 30000)
    validator = CitationValidator(tiny_corpus, ValidationConfig(max_queries=2, max_candidates=8, self_retrieval=False))
    assert len(validator.benchmark.query_ids) == 2

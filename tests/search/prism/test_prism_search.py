"""PRISM: extractive aspect queries, fused search with duplicate segment hits, self-exclusion, queries file."""

from __future__ import annotations

import pytest

from fakes.models import HashingEncoder
from sciembed.papers.model import Paper, Section, SectionRole
from sciembed.search.prism import Aspect, PrismIndex, extractive_queries, read_query_sets, write_query_sets
from sciembed.search.prism.index import Candidate, abstract_text
from sciembed.search.prism.queries import QueryFileError
from sciembed.views import segment_views

from .conftest import paper


def candidates(papers, segment_tokens=12):
    return [Candidate(p.id, p.title, p.abstract, tuple(v.text for v in segment_views(p, segment_tokens)))
            for p in papers]


def test_extractive_queries_by_role_with_sources_and_budget():
    q = extractive_queries(paper("p", "graph neural networks"), words=12)
    assert set(q.queries) == {"research_question", "method", "experiment", "abstract"}
    assert q.sources["research_question"] == "extractive:introduction+conclusion"
    assert q.sources["method"] == "extractive:method" and q.sources["experiment"] == "extractive:results"
    assert q.sources["abstract"] == "paper:abstract"
    assert all(len(t.split()) <= 12 for a, t in q.queries.items() if a != "abstract")
    assert "We conclude" in q.queries["research_question"]  # half the budget from the conclusion


def test_extractive_fallbacks_and_no_body():
    odd = Paper(id="o", title="T", abstract="", sections=(
        Section("Overview of things", "A long enough first section about sparse coding and more words here.",
                SectionRole.INTRODUCTION),
        Section("Our approach", "We propose a sparse coding approach with enough words to be substantial.",
                SectionRole.OTHER),
        Section("Discussion of findings", "Findings show the sparse coding approach is good enough, we think.",
                SectionRole.OTHER),
    ))
    q = extractive_queries(odd)
    assert q.sources["method"] == "extractive-fallback:method-selector"
    assert q.sources["experiment"] == "extractive-fallback:results-selector"
    assert q.sources["abstract"] == "paper:title"
    bare = extractive_queries(paper("b", "x", body=False))
    assert set(bare.queries) == {"abstract"}
    assert "only the abstract query is possible" in bare.notes[-1]


def test_fused_search_counts_duplicate_segments_and_excludes_self(encoder):
    papers = [paper("q", "protein folding dynamics"), paper("a", "protein folding energy"),
              paper("b", "galaxy cluster lensing"), paper("c", "protein folding dynamics", title="A paper on X"),
              paper("twin", "unrelated topic words", title="A Paper on Protein-Folding Dynamics!")]
    index = PrismIndex.build(candidates(papers), encoder, show_progress=False)
    queries = extractive_queries(papers[0])
    result = index.search(queries, encoder)
    ids = [h.paper_id for h in result.hits]
    assert "q" not in ids and "twin" not in ids  # self by id, and by normalised title
    assert set(result.excluded) == {"q", "twin"}
    assert ids[0] == "c"  # same topic, different title
    top = result.hits[0]
    assert len(top.found_by["method"]) > 1  # several segments of c found by one aspect: several RRF terms
    deduped = index.search(queries, encoder, dedupe=True)
    assert all(len(r) == 1 for h in deduped.hits for r in h.found_by.values())
    assert deduped.hits[0].score < top.score
    only_abstract = index.search(queries, encoder, aspects=[], use_abstract=True)
    assert set(only_abstract.lists) == {"abstract"}


def test_l2_metric_and_prism_abstract_format(encoder):
    assert abstract_text("T", "A.", "prism") == "Title: T\nAbstract: A."
    with pytest.raises(ValueError):
        abstract_text("T", "A", "bibtex")
    l2 = HashingEncoder(metric="l2")
    index = PrismIndex.build(candidates([paper("a", "x y"), paper("b", "x y z")]), l2, abstract_format="prism",
                             show_progress=False)
    assert index.abstracts.metric == "l2" and index.segments.metric == "l2"
    assert [h.paper_id for h in index.search(extractive_queries(paper("a", "x y")), l2).hits] == ["b"]


def test_query_file_round_trip_and_errors(tmp_path):
    sets = [extractive_queries(paper("p1", "a b")), extractive_queries(paper("p2", "c d"))]
    path = tmp_path / "queries.jsonl"
    assert write_query_sets(sets, path) == 2
    back = read_query_sets(path)
    assert back[("p1", 0)].queries == sets[0].queries and back[("p2", 0)].sources == sets[1].sources
    path.write_text(path.read_text() + "{not json\n")
    with pytest.raises(QueryFileError, match=r"queries.jsonl:3"):
        read_query_sets(path)
    assert Aspect.ABSTRACT == "abstract"

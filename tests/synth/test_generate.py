"""Synthetic papers: structure, metadata, references, retrieval signal, determinism."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from sciembed.papers.model import SectionRole
from sciembed.papers.roles import role_of
from sciembed.synth import SOURCE, SyntheticCorpus, SynthOptions, generate_papers
from sciembed.synth.generate import (
    CONCLUSION_HEADS,
    EXPERIMENT_HEADS,
    INTRO_HEADS,
    METHOD_HEADS,
    METHOD_HEADS_BY_DOMAIN,
    RELATED_HEADS,
    RESULT_HEADS,
)
from sciembed.synth.graph import paper_id
from sciembed.synth.vocab import DOMAIN_INDEX, TOPICS

BACK_MATTER = re.compile(r"^(Acknowledge?ments|References|Appendix A)\b")
N = 400


@pytest.fixture(scope="module")
def corpus() -> SyntheticCorpus:
    return SyntheticCorpus(N, seed=11)


@pytest.fixture(scope="module")
def papers(corpus):
    return list(corpus)


def body(paper):
    return [s for s in paper.sections if not BACK_MATTER.match(s.heading)]


def test_vocabulary_is_well_formed():
    """A hand edit of data/vocabulary.json keeps every topic's domain known and its word lists long and distinct."""
    problems = []
    for i, topic in enumerate(TOPICS):
        if topic.domain not in DOMAIN_INDEX:
            problems.append(f"TOPICS[{i}] {topic.name!r}: unknown domain {topic.domain!r}")
        for kind, minimum in (("terms", 15), ("methods", 8), ("data", 6), ("measures", 5)):
            items = getattr(topic, kind)
            if len(items) < minimum:
                problems.append(f"TOPICS[{i}] {topic.name!r}: {len(items)} {kind}, need >= {minimum}")
            if len(set(items)) != len(items):
                problems.append(f"TOPICS[{i}] {topic.name!r}: duplicate {kind}")
    assert problems == []


@pytest.mark.parametrize(
    ("heads", "role"),
    [
        (INTRO_HEADS, SectionRole.INTRODUCTION),
        (RELATED_HEADS, SectionRole.RELATED_WORK),
        (METHOD_HEADS + sum(METHOD_HEADS_BY_DOMAIN.values(), ()), SectionRole.METHOD),
        (EXPERIMENT_HEADS + RESULT_HEADS, SectionRole.RESULTS),
        (CONCLUSION_HEADS, SectionRole.CONCLUSION),
    ],
)
def test_heading_variants_get_the_intended_role_from_role_of(heads, role):
    assert {h: role_of(f"3 {h}") for h in heads} == dict.fromkeys(heads, role)


def test_same_seed_same_papers_other_seed_other_papers():
    first = list(generate_papers(30, seed=4))
    assert first == list(generate_papers(30, seed=4))
    other = list(generate_papers(30, seed=5))
    assert [p.title for p in first] != [p.title for p in other]


def test_body_sections_are_numbered_and_sized(papers):
    with_body = [p for p in papers if p.sections]
    assert len(with_body) > 0.9 * N
    for p in with_body:
        sections = body(p)
        assert 5 <= len(sections) <= 10, (p.id, [s.heading for s in sections])
        top = 0
        for s in sections:
            assert s.heading.startswith(f"{s.number} "), (p.id, s.heading, s.number)
            major, _, minor = s.number.partition(".")
            if minor:
                assert int(major) == top, (p.id, s.heading)
            else:
                top += 1
                assert int(major) == top, (p.id, s.heading)
            assert 150 <= len(s.text.split()) <= 900, (p.id, s.heading, len(s.text.split()))
        assert sections[0].role is SectionRole.INTRODUCTION
        assert sections[-1].role is SectionRole.CONCLUSION
        assert any(s.role is SectionRole.METHOD for s in sections)


def test_back_matter_follows_the_body(papers):
    kinds = {"Acknowledgements": 0, "References": 0, "Appendix A": 0}
    for p in papers:
        if not p.sections:
            continue
        flags = [bool(BACK_MATTER.match(s.heading)) for s in p.sections]
        assert flags == sorted(flags), f"{p.id}: back matter must come after the body"
        for s in p.sections[flags.index(True) if True in flags else len(flags):]:
            key = "Acknowledgements" if s.heading.startswith("Acknowledg") else BACK_MATTER.match(s.heading).group(1)
            kinds[key] += 1
            assert s.role is SectionRole.OTHER
    assert kinds["References"] > 0.9 * N
    assert 0.5 * N < kinds["Acknowledgements"] < 0.9 * N
    assert 0.15 * N < kinds["Appendix A"] < 0.45 * N


def test_abstract_lengths_and_metadata(papers):
    for p in papers:
        assert p.source == SOURCE
        assert p.external_ids.s2 == p.id and re.fullmatch(r"synth-\d{7}", p.id)
        assert 1990 <= p.year <= 2024
        assert p.title and p.title[0].isupper()
        if p.abstract:
            assert 120 <= len(p.abstract.split()) <= 250, (p.id, len(p.abstract.split()))
        if p.venue is not None:
            assert "Synthetic" in p.venue
        if p.fields_of_study:
            assert p.domain == p.fields_of_study[0]


def test_missing_metadata_shares_follow_the_options():
    defaults = SynthOptions()
    assert all(0 < getattr(defaults, k) < 0.1 for k in ("missing_venue", "missing_field", "no_body", "empty_abstract"))
    papers = list(generate_papers(300, seed=2, missing_venue=0.3, missing_field=0.3, no_body=0.3, empty_abstract=0.3))
    counts = {
        "venue": sum(p.venue is None for p in papers),
        "field": sum(not p.fields_of_study and p.domain is None for p in papers),
        "body": sum(not p.sections for p in papers),
        "abstract": sum(p.abstract == "" for p in papers),
    }
    assert all(60 <= n <= 120 for n in counts.values()), counts
    assert sum("no_body" in p.flags for p in papers) == counts["body"]
    assert sum("empty_abstract" in p.flags for p in papers) == counts["abstract"]


def test_references_are_graph_citations_plus_outside_titles(corpus, papers):
    outside = 0
    for i, p in enumerate(papers):
        cited = sorted(paper_id(j) for j in corpus.graph.references_of(i).tolist())
        in_corpus = [r for r in p.references if r.external_ids.s2]
        assert sorted(r.external_ids.s2 for r in in_corpus) == cited
        for r in in_corpus:
            assert r.paper_id is None, "resolving is the corpus builder's job"
            assert r.title == papers[int(r.external_ids.s2.removeprefix("synth-"))].title
        for r in p.references:
            if not r.external_ids.s2:
                outside += 1
                assert r.title and r.paper_id is None and r.year is None
    assert outside > N  # a few per paper on average


def test_citing_papers_inherit_concepts_and_name_methods_only_in_bodies(corpus, papers):
    inherited = named = pairs = 0
    for i, p in enumerate(papers):
        front = f"{p.title} {p.abstract}"
        text = " ".join(s.text for s in body(p))
        if text:
            assert corpus.method_name(i) in text
            assert corpus.method_name(i) not in front
            assert all(c not in front for c in corpus.body_concepts(i))
        for j in set(corpus.graph.references_of(i).tolist()):
            pairs += 1
            inherited += any(c in f"{front} {text}" for c in corpus.concepts(j))
            named += corpus.method_name(j) in text
    assert 0.25 < inherited / pairs < 0.8, inherited / pairs
    assert 0.1 < named / pairs < 0.6, named / pairs


def test_bm25_finds_linked_papers_above_chance_but_not_perfectly():
    import bm25s
    import numpy as np

    corpus = SyntheticCorpus(1000, seed=0)  # ~25 papers per topic: topic alone does not find the links
    papers = list(corpus)

    ids = [p.id for p in papers if p.abstract]
    texts = [f"{p.title} {p.abstract}" for p in papers if p.abstract]
    linked: dict[str, set[str]] = {}
    for a, b in zip(corpus.graph.citing.tolist(), corpus.graph.cited.tolist(), strict=True):
        linked.setdefault(paper_id(a), set()).add(paper_id(b))
        linked.setdefault(paper_id(b), set()).add(paper_id(a))
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    docs, _ = retriever.retrieve(bm25s.tokenize(texts, stopwords="en", show_progress=False), k=11,
                                 show_progress=False, n_threads=1)
    hits = []
    for q, row in zip(ids, docs, strict=True):
        top = [ids[d] for d in row if ids[d] != q][:10]
        relevant = linked.get(q, set()) & set(ids)
        if relevant:
            hits.append(len(relevant & set(top)) / min(len(relevant), 10))
    recall_at_10 = float(np.mean(hits))
    chance = 10 / len(ids)
    assert recall_at_10 > 10 * chance, recall_at_10
    assert recall_at_10 < 0.6, recall_at_10


def test_unknown_or_invalid_options_are_rejected():
    with pytest.raises(ValidationError, match="bogus"):
        generate_papers(3, bogus=1)
    with pytest.raises(ValidationError, match="same_topic"):
        generate_papers(3, same_topic=2.0)
    with pytest.raises(ValueError, match="n_papers"):
        generate_papers(0)


@pytest.mark.parametrize("n", [1, 2])
def test_tiny_corpora_still_make_whole_papers(n):
    papers = list(generate_papers(n, seed=1, no_body=0, empty_abstract=0))
    assert len(papers) == n
    for p in papers:
        assert p.abstract and len(body(p)) >= 5
        assert "{" not in p.abstract + p.body_text, "no unfilled template slot"

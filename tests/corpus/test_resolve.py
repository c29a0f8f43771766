"""Reference resolution: by paper id, external ids, then normalized title; ambiguity is counted, never guessed."""

from __future__ import annotations

import duckdb

from sciembed.corpus.build import build_corpus
from sciembed.corpus.config import FunnelConfig
from sciembed.corpus.keys import install_macros, normalize_title
from sciembed.corpus.layout import CorpusDir
from sciembed.papers.model import ExternalIds, Reference


def test_title_key_folds_case_punctuation_whitespace_and_accents():
    assert normalize_title("  Über  die Théorie —\u00a0of α-β-Splines! ") == "uber die theorie of α β splines"
    assert normalize_title("Attention Is All You Need.") == normalize_title("attention is all you need")
    assert normalize_title("...") is None and normalize_title(None) is None


def normalize_external_id(kind: str, value: str | None) -> str | None:
    """The key the resolver's SQL macro ``norm_<kind>`` gives one external id."""
    with duckdb.connect(":memory:") as con:
        install_macros(con)
        return con.execute(f"SELECT norm_{kind}(?)", [value]).fetchall()[0][0]


def test_external_id_keys_drop_prefixes_versions_and_case():
    assert normalize_external_id("doi", "https://dx.doi.org/10.1000/ABC") == "10.1000/abc"
    assert normalize_external_id("doi", "doi: 10.1000/abc") == "10.1000/abc"
    assert normalize_external_id("arxiv", "https://arxiv.org/pdf/1706.03762v2.pdf") == "1706.03762"
    assert normalize_external_id("arxiv", "arXiv:hep-th/9901001v1") == "hep-th/9901001"
    assert normalize_external_id("pmc", "pmc 123") == "PMC123"
    assert normalize_external_id("pmc", "PMC") is None
    assert normalize_external_id("openalex", "https://openalex.org/w42") == "W42"
    assert normalize_external_id("pmid", "PMID: 99") == "99"


def test_references_resolve_in_key_order(paper, write_corpus, tmp_path):
    refs = [
        Reference(paper_id="p3"),  # paper_id
        Reference(external_ids=ExternalIds(doi="https://doi.org/10.1/ABC")),  # doi -> p1
        Reference(title="wrong title", external_ids=ExternalIds(arxiv="arXiv:1706.03762v3")),  # arxiv -> p2
        Reference(title="ATTENTION is all you need!"),  # title -> p2 (a duplicate edge)
        Reference(title="a survey"),  # two corpus papers have this title: ambiguous_title
        Reference(title="uber cafe"),  # title -> p5
        Reference(external_ids=ExternalIds(doi="10.9/dup")),  # two corpus papers share the DOI: ambiguous_id
        Reference(title="Deep learning for cats", external_ids=ExternalIds(doi="10.9/dup")),  # title -> p1
        Reference(title="Not in corpus"),  # not_in_corpus
        Reference(raw="Smith et al. 2020"),  # no_key
        Reference(paper_id="nope", external_ids=ExternalIds(pmc="pmc123")),  # pmc -> p5
        Reference(paper_id="citer"),  # paper_id -> itself (a self-citation)
    ]
    papers = [
        paper("citer", references=refs),
        paper("p1", title="Deep Learning for Cats", external_ids=ExternalIds(doi="10.1/abc")),
        paper("p2", title="Attention Is All You Need", external_ids=ExternalIds(arxiv="1706.03762")),
        paper("p3", title="A Survey"),
        paper("p4", title="A survey."),
        paper("p5", title="Über Café", external_ids=ExternalIds(pmc="PMC123")),
        paper("p6", external_ids=ExternalIds(doi="10.9/dup")),
        paper("p7", external_ids=ExternalIds(doi="10.9/DUP")),
    ]
    result = build_corpus(write_corpus(papers), tmp_path / "out", FunnelConfig(test_size=0, val_size=0))
    assert result.references.read == 12
    assert result.references.resolved == {"arxiv": 1, "doi": 1, "paper_id": 2, "pmc": 1, "title": 3}
    assert result.references.unresolved == {"ambiguous_id": 1, "ambiguous_title": 1, "no_key": 1, "not_in_corpus": 1}
    assert result.report.stage("input").pairs == 8
    assert result.report.stage("input").removed_pairs == {
        "ref_ambiguous_id": 1, "ref_ambiguous_title": 1, "ref_no_key": 1, "ref_not_in_corpus": 1}
    assert result.report.stage("dedup").removed_pairs == {"duplicate_edge": 3, "self_citation": 1}
    pairs = CorpusDir(tmp_path / "out").pairs("train")
    assert pairs == [("citer", "p1"), ("citer", "p2"), ("citer", "p3"), ("citer", "p5")]

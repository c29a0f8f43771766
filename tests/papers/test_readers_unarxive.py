"""unarXive reader on the 49-paper sample: placeholders stripped, citations kept as references."""

from __future__ import annotations

import json
import re

import pytest

from sciembed.papers.model import Paper, SectionRole
from sciembed.papers.readers import Accepted, Rejection, detect_format, read_papers
from sciembed.papers.readers.unarxive import strip_placeholders

PLACEHOLDER = re.compile(r"\{\{(?:formula|cite|figure|table):")


@pytest.fixture(scope="module")
def sample(shared_data):
    return shared_data / "unarxive-sample" / "arXiv_src_2212_086.jsonl"


@pytest.fixture(scope="module")
def papers(sample) -> dict[str, Paper]:
    records = list(read_papers(sample))
    assert not [str(r) for r in records if isinstance(r, Rejection)]
    return {r.paper.id: r.paper for r in records if isinstance(r, Accepted)}


def _all_text(paper: Paper) -> list[str]:
    return [paper.title, paper.abstract, *(s.heading for s in paper.sections), *(s.text for s in paper.sections),
            *(r.raw or "" for r in paper.references)]


def test_every_paper_accepted_with_sections_and_clean_text(sample, papers):
    assert detect_format(sample) == "unarxive"
    assert len(papers) == 49
    for paper in papers.values():
        assert paper.sections and all(s.text for s in paper.sections), paper.id
        assert not any(PLACEHOLDER.search(t) for t in _all_text(paper)), paper.id


def test_metadata_ids_domain_and_references(sample, papers):
    raw = {r["paper_id"]: r for r in map(json.loads, sample.read_text().splitlines())}
    paper = papers["2212.11867"]
    assert paper.title == "Zeros of a growing number of derivatives of random polynomials with independent roots"
    assert paper.external_ids.arxiv == "2212.11867" and paper.year == 2022 and paper.venue == "arXiv"
    assert paper.domain == "Mathematics"
    assert paper.fields_of_study == ("Mathematics", "math.PR", "math.CA", "math.CV")
    assert paper.abstract.startswith("Let $X_1,X_2,\\ldots$ be independent")  # whitespace collapsed, LaTeX kept
    assert sum(len(p.references) for p in papers.values()) == sum(len(r["bib_entries"]) for r in raw.values())
    first = paper.references[0]
    assert (first.external_ids.openalex, first.external_ids.arxiv) == ("W4225968159", "2104.06921")
    assert first.raw.startswith("T. Alazard, O. Lazar, and Q. H. Nguyen.") and first.year == 2022
    assert any(r.external_ids.doi == "10.1090/tran/8674" for r in paper.references)


def test_section_titles_numbers_and_back_matter(papers):
    kuranishi = papers["2212.11797"]
    # the paper's rule: a run-in "Acknowledgements:" paragraph inside the introduction cuts to the end
    # (sciembed's earlier rule, finalize(run_in="alone"), kept the 20 sections after it)
    assert [(s.number, s.heading) for s in kuranishi.sections] == [("1", "Introduction")]
    assert "thanks her advisor" not in kuranishi.body_text
    assert [s.heading for s in papers["2212.11867"].sections][-1] == "Comments and Open Problems"  # ack cut
    assert papers["2212.11783"].sections[-1].heading == "Conclusion and outlook"  # lettered appendix "A" cut
    slam = {s.number: s for s in papers["2212.11770"].sections}
    assert slam["3.1"].heading == "Robot Odometry"  # bare sub-number "1" completed with its section's "3"
    assert slam["1.1"].role is SectionRole.INTRODUCTION  # role hint from the enclosing section
    casino = papers["2212.11766"]
    assert "Data Availability" not in [s.heading for s in casino.sections]


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("as shown in [{{cite:ab12}}, {{cite:cd34}}].", "as shown in."),
        ("Let {{formula:61df-c976}}  be a measure on {{formula:1a2b}} .", "Let be a measure on."),
        ("see Fig. {{figure:9f}} and ({{table:77}})", "see Fig. and"),
        ("Useful Formulas for {{formula:a22f}}", "Useful Formulas for"),
        ("no placeholders here", "no placeholders here"),
    ],
)
def test_strip_placeholders(raw, clean):
    assert " ".join(strip_placeholders(raw).split()) == clean  # readers collapse whitespace afterwards

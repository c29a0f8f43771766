"""science-parse reader on the two PeerRead samples."""

from __future__ import annotations

import pytest

from sciembed.papers.model import Paper, SectionRole
from sciembed.papers.readers import Accepted, Rejection, detect_format, read_papers


def one_paper(path) -> Paper:
    records = list(read_papers(path))
    assert not [str(r) for r in records if isinstance(r, Rejection)]
    (paper,) = [r.paper for r in records if isinstance(r, Accepted)]
    return paper


@pytest.fixture(scope="module")
def sp(shared_data):
    return shared_data / "formats" / "science-parse"


def test_numbered_caps_headings_captions_and_appendix(sp):
    path = sp / "peerread_iclr_2017_train_304.pdf.json"
    assert detect_format(path) == "science-parse"
    paper = one_paper(path)
    assert paper.id == "peerread_iclr_2017_train_304"
    assert paper.title == "MAKING NEURAL PROGRAMMING ARCHITECTURES GENERALIZE VIA RECURSION"
    assert paper.year == 2017
    assert paper.abstract.startswith("Empirically, neural networks that attempt to learn programs")
    pairs = [(s.number, s.heading) for s in paper.sections]
    assert pairs[:3] == [("1", "INTRODUCTION"), ("2.1", "THE PROBLEM OF GENERALIZATION"),
                         ("2.2", "OUR APPROACH USING RECURSION")]
    assert pairs[-1] == ("5", "CONCLUSION")  # ACKNOWLEDGMENTS and the A.* appendix are cut
    assert not any("Length of Array" in h or "Number of Vertices" in h for _, h in pairs)  # captions demoted
    experiments = next(s for s in paper.sections if s.heading == "EXPERIMENTS")
    assert "Length of Array Non-Recursive Partially Recursive Full Recursive" in experiments.text
    assert paper.sections[1].role is SectionRole.METHOD  # from the empty parent "2 … OUR APPROACH"
    assert "provid-\u0020ing" in paper.body_text or "provid- ing" in paper.body_text  # hyphenation left as is
    assert len(paper.references) == 6
    assert paper.references[0].title == "Learning efficient algorithms with hierarchical attentive memory"


def test_degenerate_review_draft(sp):
    paper = one_paper(sp / "peerread_conll_2016_train_11.pdf.json")
    assert paper.title == "Coreference in Wikipedia: Main Concept Resolution"
    assert paper.sections[0].heading == "Introduction"  # the null-heading line-number block is an artefact
    assert "Sch\u00e4fer" in paper.body_text and "a\u0308" not in paper.body_text  # NFC
    assert paper.sections[-1].heading == "Conclusion"  # empty "Acknowledgments" cut
    assert paper.references == ()

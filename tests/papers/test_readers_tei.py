"""GROBID TEI reader on the real sample files."""

from __future__ import annotations

import pytest

from sciembed.papers.model import Paper, SectionRole
from sciembed.papers.readers import Accepted, Rejection, detect_format, read_papers


def _papers(path, fmt: str = "auto") -> list[Paper]:
    records = list(read_papers(path, fmt))
    assert not [str(r) for r in records if isinstance(r, Rejection)]
    return [r.paper for r in records if isinstance(r, Accepted)]


def one_paper(path, fmt: str = "auto") -> Paper:
    (paper,) = _papers(path, fmt)
    return paper


def headings(paper: Paper) -> list[str]:
    return [s.heading for s in paper.sections]


@pytest.fixture(scope="module")
def tei(shared_data):
    return shared_data / "formats" / "grobid-tei"


def test_flat_divs_become_numbered_sections(tei):
    paper = one_paper(tei / "N18-3011.tei.xml")
    assert detect_format(tei / "N18-3011.tei.xml") == "tei"
    assert paper.id == "N18-3011"  # no DOI in the header: the file name
    assert paper.title == "Construction of the Literature Graph in Semantic Scholar"
    assert paper.abstract.startswith("We describe a deployed scalable system")
    assert [(s.number, s.heading) for s in paper.sections][:4] == [
        ("1", "Introduction"), ("2", "Structure of The Literature Graph"), ("2.1", "Node Types"), ("2.2", "Edge Types")
    ]
    assert paper.sections[-1].heading == "Conclusion and Future Work"
    assert paper.sections[-1].role is SectionRole.CONCLUSION
    assert "allenai.org/software" not in paper.body_text  # <note place="foot"> is not body text
    assert len(paper.references) == 27
    assert paper.references[0].title.startswith("The ai2 system at semeval-2017 task 10")
    assert paper.references[0].year == 2017
    assert "Bhagavat" in paper.references[0].raw


def test_back_matter_stays_out_and_the_doi_is_an_external_id(tei):
    paper = one_paper(tei / "0046d83a-edd6-4631-b57c-755cdcce8b7f.tei.xml")
    assert paper.id == "0046d83a-edd6-4631-b57c-755cdcce8b7f"  # the file stem; never the DOI
    assert paper.external_ids.doi == "10.1186/s12984-016-0129-6"
    assert paper.year == 2016
    assert paper.venue == "Journal of NeuroEngineering and Rehabilitation"
    assert headings(paper)[0] == "Background" and headings(paper)[-1] == "Conclusions"
    assert "Participants" in headings(paper)  # unnumbered subsection kept as its own section
    assert "declare that they have no competing interests" not in paper.body_text  # <back> annex
    assert not any(h.startswith("Fig.") for h in headings(paper))  # body-level <figure> heads are not sections
    assert len(paper.references) == 49
    assert paper.references[0].external_ids.doi == "10.1186/2040-7378-6-9"
    assert sum(1 for r in paper.references if r.external_ids.doi) >= 30


def test_heading_segmentation_errors_are_repaired(tei):
    paper = one_paper(tei / "2020.acl-main.207.tei.xml")
    pairs = [(s.number, s.heading) for s in paper.sections]
    assert ("2.1", "Overview") in pairs  # "Model 2.1 Overview" with n="2" split; "Model" alone has no text
    assert all(h not in ("Document Representation", "ELMo ELMo", "Model 2.1 Overview") for _, h in pairs)
    background = next(s for s in paper.sections if s.number == "2.2")
    assert "Document Representation\n\nOur goal is to represent a given paper P" in background.text
    assert pairs[-1] == ("8", "Conclusions and Future Work")
    assert "6. Citeomatic The most relevant baseline" in paper.sections[-1].text  # bogus section's words kept
    assert "acknowledg" not in paper.body_text.lower()[-2000:]
    assert len(paper.references) == 57


def test_tei_corpus_holds_several_documents(tei, tmp_path):
    names = ("N18-3011.tei.xml", "2020.acl-main.207.tei.xml")
    bodies = [(tei / n).read_text().replace('xml:id="', f'xml:id="d{i}_') for i, n in enumerate(names)]
    corpus = tmp_path / "corpus.tei.xml"
    corpus.write_text('<teiCorpus xmlns="http://www.tei-c.org/ns/1.0">'
                      + "".join(b[b.index("<TEI"):] for b in bodies) + "</teiCorpus>")
    records = list(read_papers(corpus))
    assert [r.loc.element for r in records] == ["/teiCorpus/TEI[1]", "/teiCorpus/TEI[2]"]
    assert [r.paper.sections for r in records] == [one_paper(tei / n).sections for n in names]


def test_root_that_is_not_tei_is_one_rejection_and_an_empty_corpus_none(tmp_path):
    from sciembed.papers.readers import tei
    from sciembed.papers.readers.records import INVALID_RECORD

    xml = tmp_path / "doc.xml"
    xml.write_text("<html><body/></html>")
    (record,) = list(tei.read(xml, "doc.xml"))
    assert isinstance(record, Rejection)
    assert (record.reason, record.message, record.loc.element) == (INVALID_RECORD, "root is <html>, not <TEI>", "/html")
    xml.write_text('<teiCorpus xmlns="http://www.tei-c.org/ns/1.0"/>')
    assert list(tei.read(xml, "doc.xml")) == []

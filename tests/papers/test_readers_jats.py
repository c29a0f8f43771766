"""JATS reader on the real PMC / eLife / PLOS samples, plus a safe-parsing check."""

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
def jats(shared_data):
    return shared_data / "formats" / "jats"


def test_elife_sub_articles_are_not_body(jats):
    paper = one_paper(jats / "elife06003.xml")
    assert detect_format(jats / "elife06003.xml") == "jats"
    assert paper.id == "elife06003" and paper.external_ids.doi == "10.7554/elife.06003"  # the file stem
    assert paper.title == "No turnover in lens lipids for the entire human lifespan"
    body = paper.body_text
    assert "Thank you for sending your work entitled" not in body  # decision letter
    assert "given the known metabolic inactivity of mature lens fiber cells" not in body  # author reply
    assert paper.abstract.startswith("Lipids are critical to cellular function")  # no object-id DOI, not the digest
    assert "eLife digest" not in paper.abstract
    assert headings(paper) == ["Introduction", "Results and discussion", "Materials", "Labware treatment",
                               "Lipid extraction and AMS analysis", "Residual protein determination"]
    assert paper.sections[2].role is SectionRole.METHOD  # nested under "Materials and methods"
    assert paper.fields_of_study == ("Cell biology", "Human biology and medicine")
    assert paper.venue == "eLife" and paper.year == 2015
    assert len(paper.references) == 32
    assert paper.references[0].title == "Radiocarbon calibration"


def test_pmc_ids_ethics_subsection_and_summary_abstract(jats):
    paper = one_paper(jats / "pntd.0002065.nxml")
    assert paper.id == "PMC3585041"
    assert (paper.external_ids.pmc, paper.external_ids.pmid, paper.external_ids.doi) == (
        "PMC3585041", "23469300", "10.1371/journal.pntd.0002065")
    assert "Zambézia" in paper.title  # numeric character references decoded
    assert not paper.abstract.startswith("Author Summary")
    assert "Ethical approval" not in headings(paper)
    assert headings(paper)[-1] == "Discussion"  # the body continues after the ethics subsection
    assert "Veterinary Science" in paper.fields_of_study and "Research Article" not in paper.fields_of_study
    assert len(paper.references) == 32 and all(r.raw for r in paper.references)


def test_nested_sections_flattened_and_appendices_cut(jats):
    paper = one_paper(jats / "pone.0000217.nxml")
    names = headings(paper)
    assert names[:3] == ["Introduction", "Model and Results", "Linear Fitness Decline"]
    assert "Estimates of Phenotypic Complexity for VSV and ΦX174" in names
    assert not any(n.startswith("Appendix") for n in names)
    assert names[-1] == "Viral Evolution"  # Methods' first subsection; Appendix A-C after it are cut
    assert paper.sections[2].role is SectionRole.RESULTS  # from the parent "Model and Results"
    assert "Methodology/Principal Findings" not in paper.abstract  # structured-abstract titles left out
    assert paper.abstract.startswith("Various definitions of biological complexity")


def test_external_entities_and_dtds_are_not_loaded(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    xml = tmp_path / "evil.xml"
    xml.write_text(
        f'<?xml version="1.0"?>\n<!DOCTYPE article SYSTEM "http://example.invalid/jats.dtd" '
        f'[<!ENTITY xxe SYSTEM "file://{secret}">]>\n'
        "<article><front><article-meta><title-group><article-title>Safe &amp; sound</article-title>"
        "</title-group></article-meta></front><body><sec><title>Intro</title><p>Before &xxe; after.</p></sec>"
        "</body></article>"
    )
    (record,) = list(read_papers(xml))
    assert isinstance(record, Accepted)
    assert record.paper.title == "Safe & sound"
    assert "TOP-SECRET" not in record.paper.body_text
    assert record.paper.sections[0].text == "Before after."


def test_root_without_article_is_one_rejection(tmp_path):
    from sciembed.papers.readers import jats
    from sciembed.papers.readers.records import INVALID_RECORD, MALFORMED_XML

    xml = tmp_path / "set.xml"
    xml.write_text("<pmc-articleset><other/></pmc-articleset>")
    (record,) = list(jats.read(xml, "set.xml"))
    assert isinstance(record, Rejection)
    assert (record.reason, record.message, record.loc.element) == (
        INVALID_RECORD, "no <article> under <pmc-articleset>", "/pmc-articleset")
    xml.write_text("<article><front>")
    (record,) = list(jats.read(xml, "set.xml"))
    assert isinstance(record, Rejection) and record.reason == MALFORMED_XML

"""S2ORC reader: the 2019 / 2020 release records, doc2json output, and the S2 Datasets shape."""

from __future__ import annotations

import copy
import gzip
import json

import pytest

from sciembed.papers.model import Paper, SectionRole
from sciembed.papers.readers import Accepted, Rejection, detect_format, read_papers, s2orc
from sciembed.papers.readers.records import MISSING_TITLE, Loc
from sciembed.papers.sections import finalize


def _papers(path, fmt: str = "auto") -> list[Paper]:
    records = list(read_papers(path, fmt))
    assert not [str(r) for r in records if isinstance(r, Rejection)]
    return [r.paper for r in records if isinstance(r, Accepted)]


def headings(paper: Paper) -> list[str]:
    return [s.heading for s in paper.sections]


@pytest.fixture(scope="module")
def s2dir(shared_data):
    return shared_data / "formats" / "s2orc"


def test_doc2json_paragraphs_grouped_by_section_and_number(s2dir):
    (paper,) = _papers(s2dir / "N18-3011.json")
    assert detect_format(s2dir / "N18-3011.json") == "s2orc"
    assert paper.id == "N18-3011" and paper.external_ids.s2 is None  # doc2json ids are file names
    assert paper.year is None  # "year": ""
    assert [(s.number, s.heading) for s in paper.sections][:3] == [
        ("1", "Introduction"), ("2", "Structure of The Literature Graph"), ("2.1", "Node Types")
    ]
    intro = paper.sections[0]
    assert intro.text.count("\n\n") == 6  # seven paragraphs
    assert intro.text.startswith("The goal of this work is to facilitate algorithmic discovery")
    assert len(paper.references) == 27
    assert paper.references[0].raw.startswith("Waleed Ammar, Matthew E. Peters, Chandra Bhagavat- ula")


def test_2019_null_sections_become_one_unnamed_section(s2dir):
    """No paragraph of the 2019 record looks like a heading (GROBID dropped them): one unnamed section."""
    path = s2dir / "s2orc_20190928_10002293.json"
    (paper,) = _papers(path)
    raw = json.loads(path.read_text())
    paragraphs = raw["grobid_parse"]["body_text"]
    assert all(p["section"] is None for p in paragraphs)
    assert headings(paper) == [""]
    assert len(paper.sections[0].text.split()) == sum(len(p["text"].split()) for p in paragraphs)
    assert paper.sections[0].text.count("\n\n") == len(paragraphs) - 1
    ids = paper.external_ids
    assert (ids.s2, ids.doi, ids.pmc, ids.pmid) == ("10002293", "10.3389/fmicb.2017.00498", "PMC5371592", "28424663")
    assert paper.venue == "Frontiers in microbiology" and paper.year == 2017
    first = paper.references[0]
    assert (first.external_ids.doi, first.external_ids.s2, first.year) == ("10.1039/c3pp50195g", "25540194", 2014)


def test_2019_header_detection_when_headings_survive_as_paragraphs(s2dir):
    raw = json.loads((s2dir / "s2orc_20190928_10002293.json").read_text())
    record = copy.deepcopy(raw)
    body = record["grobid_parse"]["body_text"]
    for index, heading in [(len(body) - 1, "Author Contributions"), (len(body) - 2, "CONCLUSION"),
                           (1, "2. Materials and Methods"), (0, "Introduction")]:
        body.insert(index, {"text": heading, "cite_spans": [], "ref_spans": [], "eq_spans": [], "section": None})
    paper = finalize(s2orc.parse(record, Loc("x.json", 1)), noisy_headings=True)
    assert [(s.number, s.heading, s.role) for s in paper.sections] == [
        (None, "Introduction", SectionRole.INTRODUCTION),
        ("2", "Materials and Methods", SectionRole.METHOD),
        (None, "CONCLUSION", SectionRole.CONCLUSION),
    ]
    assert "were responsible for the conception" not in paper.body_text  # author contributions cut


def test_2020_pdf_parses_sections_and_missing_title(s2dir):
    path = s2dir / "s2orc_20200705_18980463.json"
    (record,) = list(read_papers(path))
    assert isinstance(record, Rejection) and record.reason == MISSING_TITLE
    assert record.id == "18980463" and "metadata" in record.message
    merged = {**json.loads(path.read_text()), "title": "Larval photoreceptor subtypes", "year": 2006}  # + metadata
    paper = finalize(s2orc.parse(merged, Loc(str(path), 1)), noisy_headings=True)
    assert (paper.title, paper.year, paper.external_ids.s2) == ("Larval photoreceptor subtypes", 2006, "18980463")
    assert paper.sections[0].heading == ""  # the introduction has section ""
    named = {s.heading: s for s in paper.sections}
    assert named["Sal and Svp are expressed in distinct PR subtypes"].role is SectionRole.RESULTS  # under "Results"
    assert named["Drosophila strains and genetics"].role is SectionRole.METHOD  # under "Materials and methods"
    assert "P1" not in named and ", and UAS-yan (Bloomington)" in named["Drosophila strains and genetics"].text
    assert "Results" not in named  # heading-only parent: no text of its own
    assert paper.references[0].external_ids.s2 == "3239892"


def _datasets_record(section_key: str = "sectionheader", with_headers: bool = True) -> dict:
    """A Semantic Scholar Datasets s2orc record: annotation values are JSON-encoded span lists."""
    parts: list[tuple[str, str | None, dict]] = [
        ("Graph Neural Networks for Citation Recommendation", "title", {}),
        ("We study citation recommendation with graph neural networks and show gains.", "abstract", {}),
        ("Introduction", "header", {"n": "1"}),
        ("Citation recommendation helps researchers find prior work [1].", "paragraph", {}),
        ("Method", "header", {"n": "2"}),
        ("We train a graph network on the citation graph of the corpus.", "paragraph", {}),
        ("Acknowledgments", "header", {}),
        ("We thank the reviewers for their comments.", "paragraph", {}),
        ("[1] J. Doe. Finding papers with graphs. In Proc. of Graphs, 2020.", "bibentry",
         {"id": "b0", "matched_paper_id": 215814273}),
    ]
    text, spans = "", {"title": [], "abstract": [], "header": [], "paragraph": [], "bibentry": []}
    for chunk, kind, attrs in parts:
        start = len(text)
        text += chunk + "\n"
        spans[kind].append({"start": start, "end": start + len(chunk), **({"attributes": attrs} if attrs else {})})
    entry = spans["bibentry"][0]
    title_start = text.index("Finding papers with graphs")
    annotations = {
        "title": json.dumps(spans["title"]),
        "abstract": json.dumps(spans["abstract"]),
        "paragraph": json.dumps(spans["paragraph"]),
        section_key: json.dumps(spans["header"]) if with_headers else None,
        "bibentry": json.dumps([entry]),
        "bibtitle": json.dumps([{"start": title_start, "end": title_start + len("Finding papers with graphs")}]),
        "bibref": json.dumps([{"start": text.index("[1]"), "end": text.index("[1]") + 3,
                               "attributes": {"ref_id": "b0"}}]),
        "figure": None,
        "formula": "[]",
    }
    return {
        "corpusid": 123456789,
        "externalids": {"ArXiv": "2101.00001v2", "DOI": "10.1000/XYZ.1", "MAG": None, "CorpusId": "123456789",
                        "PubMed": None, "PubMedCentral": None, "ACL": None, "DBLP": None},
        "content": {"source": {"pdfurls": None, "pdfsha": "abc", "oainfo": None}, "text": text,
                    "annotations": annotations},
    }


@pytest.mark.parametrize("section_key", ["sectionheader", "section_header"])
def test_semantic_scholar_datasets_shape(tmp_path, section_key):
    path = tmp_path / "s2orc-2023.jsonl"
    path.write_text(json.dumps(_datasets_record(section_key)) + "\n")
    assert detect_format(path) == "s2orc"
    (paper,) = _papers(path)
    assert paper.id == "123456789"
    assert paper.title == "Graph Neural Networks for Citation Recommendation"
    assert paper.abstract == "We study citation recommendation with graph neural networks and show gains."
    assert [(s.number, s.heading, s.role) for s in paper.sections] == [
        ("1", "Introduction", SectionRole.INTRODUCTION), ("2", "Method", SectionRole.METHOD)
    ]
    assert "reviewers" not in paper.body_text
    ids = paper.external_ids
    assert (ids.s2, ids.arxiv, ids.doi) == ("123456789", "2101.00001", "10.1000/xyz.1")
    (ref,) = paper.references
    assert (ref.title, ref.year, ref.external_ids.s2) == ("Finding papers with graphs", 2020, "215814273")


def test_semantic_scholar_datasets_without_headers_uses_header_detection():
    paper = finalize(s2orc.parse(_datasets_record(with_headers=False), Loc("x.jsonl", 1)), noisy_headings=True)
    assert paper.sections[0].heading == ""  # no sectionheader spans, and no paragraph is a heading
    assert "graph network" in paper.body_text


def test_pes2o_text_with_header_detection(tmp_path):
    body = ["Graph Kernels Revisited", "We revisit graph kernels and find them strong.", "1 Introduction",
            "Kernels compare graphs by their substructures, which is useful for molecules.", "2 Experiments",
            "We run kernels on twelve benchmark datasets and report accuracy.", "Acknowledgments",
            "We thank our colleagues."]
    records = [{"id": "77", "text": "\n\n".join(body), "source": "s2orc/train", "added": "2023-01-03",
                "created": "2019-05-01T00:00:00Z", "version": "v2"},
               {"id": "78", "text": "Only A Title\n\nAnd an abstract.", "source": "s2ag/train", "version": "v2"}]
    path = tmp_path / "pes2o.json.gz"
    with gzip.open(path, "wt") as out:
        out.write("\n".join(json.dumps(r) for r in records) + "\n")
    assert detect_format(path) == "s2orc"
    full, title_only = _papers(path)
    assert (full.id, full.title, full.year, full.external_ids.s2) == ("77", "Graph Kernels Revisited", 2019, "77")
    assert full.abstract == "We revisit graph kernels and find them strong."
    assert [(s.number, s.heading, s.role) for s in full.sections] == [
        ("1", "Introduction", SectionRole.INTRODUCTION), ("2", "Experiments", SectionRole.RESULTS)
    ]
    assert title_only.flags == ("no_body",) and title_only.abstract == "And an abstract."


def test_2020_metadata_record_alone_is_title_and_abstract(tmp_path):
    meta = {"paper_id": "18980463", "title": "Larval photoreceptor subtypes", "abstract": "Abstract text.",
            "year": 2006, "doi": "10.1101/gad.1", "pubmed_id": "16951255", "mag_field_of_study": ["Biology"],
            "outbound_citations": ["3239892"], "has_pdf_parse": True}
    path = tmp_path / "metadata_0.jsonl"
    path.write_text(json.dumps(meta) + "\n")
    assert detect_format(path) == "s2orc"
    (paper,) = _papers(path)
    assert (paper.title, paper.fields_of_study, paper.flags) == ("Larval photoreceptor subtypes", ("Biology",),
                                                                 ("no_body",))
    assert (paper.external_ids.s2, paper.external_ids.pmid) == ("18980463", "16951255")


def test_s2orc_arxiv_record_shape_prefers_the_latex_parse(tmp_path):
    """The S2ORC arXiv subset (SciJEPA's training data): a 2019-release record (allenai/s2orc
    data/example_paper.json: paper_id, metadata, s2_pdf_hash, grobid_parse) whose paper has an arxiv_id and a
    ``latex_parse`` beside the GROBID one (same paragraph schema as data/v2020-07-05/README.md). Sections come
    from the LaTeX parse, which keeps the section names GROBID lost; ids, fields and bib links are kept."""
    from pathlib import Path

    path = Path(__file__).parent / "fixtures" / "s2orc_arxiv_2019.json"
    assert detect_format(path) == "s2orc"
    (paper,) = _papers(path)
    assert headings(paper) == ["Introduction", "Method", "Results"]
    assert [s.role for s in paper.sections] == [SectionRole.INTRODUCTION, SectionRole.METHOD, SectionRole.RESULTS]
    assert (paper.external_ids.arxiv, paper.external_ids.s2) == ("1910.01234", "204512345")
    assert paper.fields_of_study == ("Computer Science", "Mathematics") and paper.year == 2019
    (ref,) = paper.references
    assert ref.external_ids.s2 == "49670925" and ref.year == 2018
    raw = json.loads(path.read_text())
    del raw["latex_parse"]  # the same record without its LaTeX parse: GROBID's paragraphs, no section names
    alone = tmp_path / "s2orc_grobid_only.json"
    alone.write_text(json.dumps(raw))
    (grobid,) = _papers(alone)
    assert headings(grobid) == [""]

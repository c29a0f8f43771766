"""Issue 31 item 1: the source's own id is the paper id; header DOIs are validated offline, kept only when trusted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakes.tei import tei
from sciembed.corpus.layout import CorpusDir
from sciembed.papers.ingest import ingest
from sciembed.papers.readers import Accepted, read_papers
from sciembed.papers.readers.id_policy import (
    ACL_ID_MISMATCH,
    CITED_BY_PAPER,
    NOT_ANTHOLOGY_DOI,
    TRAILING_PUNCTUATION,
    YEAR_MISMATCH,
    doi_problem,
    source_id,
    untrusted_dois,
)


def read_one(path: Path):
    records = list(read_papers(path))
    assert len(records) == 1
    return records[0]


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_tei_with_a_wrong_acl_doi_keeps_its_file_id_and_not_the_doi(tmp_path):
    # As GROBID gives it: the header DOI is another Anthology paper's.
    paper = read_one(write(tmp_path, "P17-2090.tei.xml", tei("Graphs", "10.18653/v1/P17-2091"))).paper
    assert paper.id == "P17-2090" and paper.external_ids.acl == "P17-2090"
    assert paper.external_ids.doi is None
    assert untrusted_dois(paper) == [(ACL_ID_MISMATCH, "10.18653/v1/p17-2091")]


def test_a_right_doi_is_kept_as_an_external_id(tmp_path):
    paper = read_one(write(tmp_path, "P17-2090.tei.xml", tei("Graphs", "10.18653/v1/P17-2090"))).paper
    assert paper.id == "P17-2090" and paper.external_ids.doi == "10.18653/v1/p17-2090"
    assert not untrusted_dois(paper)


@pytest.mark.parametrize(("name", "doi", "kwargs", "reason"), [
    ("D15-1194.tei.xml", "10.5281/zenodo.27354)", {}, TRAILING_PUNCTUATION),  # as in the real file
    ("D18-1219.tei.xml", "10.5281/zenodo.1403164", {}, NOT_ANTHOLOGY_DOI),  # a dataset's DOI on a 2018 paper
    ("D14-1030.tei.xml", "10.1016/j.clinph.2006.07.316", {"year": "2014"}, YEAR_MISMATCH),  # a 2006 journal's
    ("lab-paper.tei.xml", "10.1000/xyz123", {"cited_doi": "10.1000/xyz123"}, CITED_BY_PAPER),
])
def test_untrustworthy_dois_are_recorded_not_kept(tmp_path, name, doi, kwargs, reason):
    paper = read_one(write(tmp_path, name, tei("Graphs", doi, **kwargs))).paper
    assert paper.id == source_id(name) and paper.external_ids.doi is None
    assert [r for r, _ in untrusted_dois(paper)] == [reason]


def test_a_doi_that_does_not_parse_is_dropped(tmp_path):
    paper = read_one(write(tmp_path, "x.tei.xml", tei("Graphs", "not a doi"))).paper
    assert paper.external_ids.doi is None and not untrusted_dois(paper)


def test_doi_rules_leave_good_dois_alone():
    assert doi_problem("10.48550/arxiv.2005.14165", year=2020) is None  # "2005" is no year here
    assert doi_problem("10.1101/2020.03.01.123456", year=2021) is None
    assert doi_problem("10.1162/tacl_a_00001", acl="Q18-1001") is None  # TACL: MIT Press DOIs
    assert doi_problem("10.1145/123.456", acl="P15-1001") is None  # before 2016 the Anthology gave no DOIs


def test_a_doi_claimed_by_several_papers_of_one_ingest_is_trusted_for_none(tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    for stem in ("a", "b", "c"):
        write(inputs, f"{stem}.tei.xml", tei(f"Paper {stem}", "10.1000/shared" if stem != "c" else "10.1000/own"))
    result = ingest([inputs], tmp_path / "out", progress=False)
    papers = CorpusDir(tmp_path / "out").papers()
    assert sorted(papers) == ["a", "b", "c"]
    assert papers["a"].external_ids.doi is None and papers["b"].external_ids.doi is None
    assert papers["c"].external_ids.doi == "10.1000/own"
    assert untrusted_dois(papers["a"]) == [("shared_doi", "10.1000/shared")]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["shared_dois"]["papers_affected"] == 2 and manifest["flags"]["untrusted_doi:shared_doi"] == 2
    assert manifest["metadata_coverage"]["doi"] == 1 and result.read == result.accepted == 3


def test_the_id_is_the_stem_through_every_suffix():
    assert source_id("a/b/P17-2090.tei.xml.gz") == source_id("P17-2090.pdf") == "P17-2090"
    assert source_id("2020.acl-main.207.pdf") == "2020.acl-main.207"


def test_real_acl_files_keep_their_anthology_ids(shared_data):
    folder = shared_data / "acl-grobid" / "tei"
    p17 = read_one(folder / "P17-1001.tei.xml.gz").paper  # its header DOI is right: kept, not the id
    assert p17.id == "P17-1001" and p17.external_ids.doi == "10.18653/v1/p17-1001"
    wrong = read_one(folder / "D14-1030.tei.xml.gz")
    assert isinstance(wrong, Accepted) and wrong.paper.id == "D14-1030" and wrong.paper.external_ids.doi is None
    assert untrusted_dois(wrong.paper) == [(YEAR_MISMATCH, "10.1016/j.clinph.2006.07.316")]


def test_file_names_with_spaces_become_ids_with_underscores(tmp_path):
    paper = read_one(write(tmp_path, "My lab paper (v2).tei.xml", tei("Graphs"))).paper
    assert paper.id == "My_lab_paper_(v2)" == source_id("My lab paper (v2).pdf")

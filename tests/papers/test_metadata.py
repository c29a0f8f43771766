"""`ingest --metadata`: Semantic Scholar `papers` records joined by corpus id, every outcome counted."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.corpus.layout import CorpusDir
from sciembed.papers.io import write_jsonl
from sciembed.papers.metadata import MetadataError, MetadataJoin, primary_fields
from sciembed.papers.model import ExternalIds, Paper, Section

BODY = (Section("Introduction", "Words of the introduction. " * 20), Section("Methods", "Words of the method. " * 20))


def _papers(tmp_path: Path) -> Path:
    papers = [
        Paper("101", "Gene networks", "An abstract.", BODY),
        Paper("102", "Kernel methods", "An abstract.", BODY, year=2019),
        Paper("p-103", "No record", "An abstract.", BODY),
        Paper("p-104", "Joined by its S2 id", "An abstract.", BODY, external_ids=ExternalIds(s2="104")),
    ]
    path = tmp_path / "fulltext.jsonl"
    write_jsonl(papers, path)
    return path


def _metadata(tmp_path: Path, lines: list[object]) -> Path:
    path = tmp_path / "papers-meta.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.writelines((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    return path


RECORDS = [
    {"corpusid": 101, "venue": "", "publicationvenue": {"name": "Nature Genetics"}, "year": 2020,
     "s2fieldsofstudy": [{"category": "Education", "source": "s2-fos-model"},
                         {"category": "Biology", "source": "s2-fos-model"},
                         {"category": "Medicine", "source": "external"}],
     "externalids": {"DOI": "10.1/x", "PubMed": "555", "CorpusId": 101}},
    {"corpusid": 102, "venue": "NeurIPS", "year": 2021, "s2fieldsofstudy": [{"category": "Computer Science",
                                                                              "source": "external"}]},
    {"corpusid": 104, "venue": "ACL", "year": 2018, "s2fieldsofstudy": [{"category": "Linguistics",
                                                                          "source": "s2-fos-model"}]},
    {"corpusid": 101, "venue": "Second record", "year": 1999},  # duplicate: the first is kept
    {"corpusid": 999, "venue": "Nobody's", "year": 2000},  # matches no paper
]


def test_join_counts_and_fields(tmp_path):
    out = tmp_path / "corpus"
    run = CliRunner().invoke(app, ["corpus", "ingest", str(_papers(tmp_path)), "--out", str(out), "--no-progress",
                                   "--metadata", str(_metadata(tmp_path, RECORDS))])
    assert run.exit_code == 0, run.output
    assert "joined 3, missing 1, conflicting 1" in " ".join(run.output.split())
    meta = CorpusDir(out).manifest()["metadata"]
    assert {k: meta[k] for k in ("records", "joined", "missing", "conflicting", "unmatched_records",
                                 "duplicate_records")} == {"records": 5, "joined": 3, "missing": 1, "conflicting": 1,
                                                           "unmatched_records": 1, "duplicate_records": 1}
    assert meta["examples"]["conflicting"] == ["102: year"] and meta["examples"]["unmatched_records"] == ["999"]
    papers = CorpusDir(out).papers()
    gene = papers["101"]
    # MAG fields only, `external` before the model's guess; the primary field is the funnel's domain
    assert (gene.venue, gene.year, gene.fields_of_study, gene.domain) == ("Nature Genetics", 2020,
                                                                          ("Medicine", "Biology"), "Medicine")
    assert (gene.external_ids.doi, gene.external_ids.pmid, gene.external_ids.s2) == ("10.1/x", "555", "101")
    assert (papers["102"].year, papers["102"].venue) == (2021, "NeurIPS")  # the record wins a conflict
    assert papers["p-104"].venue == "ACL" and papers["p-104"].fields_of_study == ()  # Linguistics is not MAG-19
    assert papers["p-103"].venue is None


def test_primary_field_rule():
    assert primary_fields([{"category": "Physics", "source": "s2-fos-model"},
                           {"category": "Mathematics", "source": "external"}]) == ("Mathematics", "Physics")
    assert primary_fields(["computer science", "Law"]) == ("Computer Science",)


def test_bad_metadata_is_one_message_before_any_work(tmp_path):
    bad = _metadata(tmp_path, [RECORDS[0], "{not json", {"venue": "no id"}])
    with pytest.raises(MetadataError, match=r"2 malformed metadata line\(s\); first: .*jsonl.gz:2: .*jsonl.gz:3: no "
                                            r"corpusid"):
        MetadataJoin.load(bad)
    out = tmp_path / "never"
    run = CliRunner().invoke(app, ["corpus", "ingest", str(_papers(tmp_path)), "--out", str(out), "--no-progress",
                                   "--metadata", str(bad)])
    assert run.exit_code == 2 and "malformed metadata" in run.output
    assert not (out / "manifest.json").exists()

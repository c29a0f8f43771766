"""A slice of the real ACL GROBID corpus (`shared/data/acl-grobid`) ingested and built end to end.

Twenty real files: P16-1101 (Ma & Hovy, "End-to-end Sequence Labeling via Bi-directional
LSTM-CNNs-CRF"), seventeen papers that cite it, one file GROBID left without a title, one
whose XML does not parse, and two volumes' front matter (one untitled, one whose table of
contents GROBID made a 4,940-character title). Real GROBID output has no field of study: the build skips that stage.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sciembed.corpus.build import build_corpus
from sciembed.corpus.config import FunnelConfig
from sciembed.corpus.layout import CorpusDir
from sciembed.papers.ingest import ingest

CITED = "P16-1101"
CITING = ("P17-1002", "D16-1153", "D17-1035", "D17-1075", "D17-1179", "D17-1211", "D17-1280", "D17-1283",
          "D18-1014", "D18-1019", "D18-1034", "D18-1109", "D18-1124", "D18-1153", "D18-1226", "D18-1230",
          "P16-1228")
UNTITLED, MALFORMED = "D18-1031", "D18-1237"
FRONT_MATTER = ("D17-2000", "P15-2000")


@pytest.fixture(scope="module")
def ingested(shared_data: Path, tmp_path_factory: pytest.TempPathFactory):
    tei = shared_data / "acl-grobid" / "tei"
    files = [tei / f"{name}.tei.xml.gz" for name in (CITED, *CITING, UNTITLED, MALFORMED, *FRONT_MATTER)]
    out = tmp_path_factory.mktemp("acl") / "ingested"
    return ingest(files, out, progress=False), out


def test_every_file_is_accepted_or_rejected_with_its_reason(ingested):
    result, out = ingested
    assert (result.read, result.accepted, result.rejected) == (22, 18, 4)
    assert dict(result.reasons) == {"missing_title": 1, "malformed_xml": 1, "front_matter": 2}
    rejects = {Path(json.loads(line)["file"]).name: json.loads(line) for line in (out / "rejects.jsonl").open()}
    assert rejects[f"{MALFORMED}.tei.xml.gz"]["line"] == 113  # "ID formula_12 already defined"
    assert rejects[f"{UNTITLED}.tei.xml.gz"]["reason"] == "missing_title"
    assert all(rejects[f"{name}.tei.xml.gz"]["reason"] == "front_matter" for name in FRONT_MATTER)
    assert "4,940-character title" in rejects["P15-2000.tei.xml.gz"]["message"]
    report = (out / "ingest_report.md").read_text()
    assert "pass --keep-untitled to keep them" in report
    # What the headers have: a venue (proceedings title, meeting or publisher) and a year; never a field.
    coverage = json.loads((out / "manifest.json").read_text())["metadata_coverage"]
    assert coverage["field_of_study"] == 0 and coverage["venue"] == 18 and coverage["year"] >= 17
    papers = CorpusDir(out).papers()
    assert papers[CITED].title.startswith("End-to-end Sequence Labeling via Bi-directional LSTM-CNNs-CRF")
    assert papers[CITED].year == 2016 and "Association for Computational Linguistics" in papers[CITED].venue
    assert len(papers[CITED].sections) >= 5 and len(papers[CITED].references) >= 30


def test_the_slice_builds_with_its_citations_resolved(ingested, tmp_path):
    _, out = ingested
    result = build_corpus(out, tmp_path / "built", FunnelConfig(test_size=0, val_size=0))
    field = result.report.stage("field")
    assert field.skipped and "no paper has a field of study" in field.skipped and not field.removed_papers
    assert result.references.resolved.get("title", 0) >= len(CITING)
    built = CorpusDir(tmp_path / "built")
    pairs = set(built.pairs("train"))
    for citing in ("D17-1035", "D18-1019", "P16-1228"):
        assert tuple(sorted((citing, CITED))) in pairs, citing

"""The project's own JSONL: validated, normalised, finalised like every other format."""

from __future__ import annotations

import gzip
import json

from sciembed.papers.io import write_jsonl
from sciembed.papers.model import ExternalIds, Paper, Reference, Section, SectionRole
from sciembed.papers.readers import Accepted, Rejection, detect_format, read_papers
from sciembed.papers.readers.records import INVALID_RECORD, MISSING_ID

BODY = "Body text with enough words to count as a real section of a paper. " * 4


def _paper(pid: str = "synth-0000001", **changes) -> Paper:
    base = Paper(
        id=pid,
        title="A synthetic study of graph kernels",
        abstract="We study graph kernels.",
        sections=(Section("1 Introduction", BODY, SectionRole.INTRODUCTION, "1"), Section("2 Method", BODY),
                  Section("Acknowledgements", "We thank the funders."), Section("References", "[1] A. B. 2020.")),
        references=(Reference(title="Kernels", external_ids=ExternalIds(s2="synth-0000009", doi="DOI:10.1/ABC")),),
        venue="Synthetic Journal of Graphs",
        year=2021,
        domain="Computer Science",
        fields_of_study=("Computer Science",),
        external_ids=ExternalIds(s2=pid, arxiv="arXiv:2101.00001v3"),
        source="synthetic:sciembed-synth",
    )
    return Paper(**{**{f: getattr(base, f) for f in base.__dataclass_fields__}, **changes})


def test_own_jsonl_round_trip_with_back_matter_cut_and_ids_normalised(tmp_path):
    path = tmp_path / "papers.jsonl.gz"
    write_jsonl([_paper(), _paper("synth-0000002", abstract="")], path)
    assert detect_format(path) == "jsonl"
    records = list(read_papers(path))
    assert all(isinstance(r, Accepted) for r in records)
    first, second = (r.paper for r in records)
    assert [(s.number, s.heading, s.role) for s in first.sections] == [
        ("1", "Introduction", SectionRole.INTRODUCTION), ("2", "Method", SectionRole.METHOD)
    ]
    assert first.source == "synthetic:sciembed-synth"
    assert (first.external_ids.arxiv, first.references[0].external_ids.doi) == ("2101.00001", "10.1/abc")
    assert records[0].loc.line == 1 and records[1].loc.line == 2
    assert second.flags == ("empty_abstract",)
    # An already ingested paper goes through unchanged (re-ingesting an export is lossless).
    again = tmp_path / "again.jsonl"
    write_jsonl([first], again)
    assert [r.paper for r in read_papers(again)] == [first]


def test_invalid_records_are_rejected_with_the_field_path(tmp_path):
    good = _paper().to_dict()
    bad_role = json.loads(json.dumps(good))
    bad_role["sections"][1]["role"] = "discussion"
    bad_year = {**good, "id": "y", "year": "next year"}
    no_id = {**good, "id": ""}
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (bad_role, bad_year, no_id)) + "\n")
    records = list(read_papers(path, "jsonl"))
    assert all(isinstance(r, Rejection) for r in records)
    assert [(r.loc.line, r.reason) for r in records] == [(1, INVALID_RECORD), (2, INVALID_RECORD), (3, MISSING_ID)]
    assert "sections.1.role" in records[0].message and records[0].id == "synth-0000001"
    assert "year" in records[1].message
    # Unknown keys are ignored and flagged, not rejected (tests/hardening/test_ingest_inputs.py)


def test_gzip_and_integer_ids(tmp_path):
    path = tmp_path / "ids.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(json.dumps({**_paper().to_dict(), "id": 42}) + "\n")
    (record,) = list(read_papers(path))
    assert record.paper.id == "42"


def test_declared_extra_keys_are_not_flagged(tmp_path) -> None:
    """`ingest --extra-keys`: keys a JSONL is known to carry are ignored without the unknown_keys flag."""
    import json

    from sciembed.corpus.layout import CorpusDir
    from sciembed.papers.ingest import ingest

    src = tmp_path / "papers.jsonl"
    src.write_text("\n".join(json.dumps({"id": f"p{i}", "title": "T", "abstract": "A.", "benchmark_id": i,
                                         "sections": [{"heading": "Intro", "text": "Body.", "page": 1}]})
                             for i in range(3)) + "\n")
    flagged = ingest([src], tmp_path / "a", progress=False)
    assert flagged.flags.get("unknown_keys") == 3
    declared = ingest([src], tmp_path / "b", progress=False, extra_keys=("benchmark_id", "sections.page"))
    assert declared.accepted == 3 and "unknown_keys" not in declared.flags
    assert CorpusDir(tmp_path / "b").manifest()["extra_keys"] == ["benchmark_id", "sections.page"]
    partly = ingest([src], tmp_path / "c", progress=False, extra_keys=("benchmark_id",))
    assert partly.flags.get("unknown_keys") == 3  # sections.N.page is still unknown

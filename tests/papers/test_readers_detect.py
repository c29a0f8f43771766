"""Format detection, directory walking and located errors for broken input."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest

from sciembed.papers.readers import FORMAT_NAMES, Accepted, Rejection, detect_format, read_papers, walk_inputs
from sciembed.papers.readers.records import (
    INVALID_RECORD,
    INVALID_UTF8,
    MALFORMED_JSON,
    MALFORMED_XML,
    TRUNCATED_GZIP,
    UNKNOWN_FORMAT,
)

EXPECTED = {
    "grobid-tei/N18-3011.tei.xml": "tei",
    "grobid-tei/2020.acl-main.207.tei.xml": "tei",
    "jats/elife06003.xml": "jats",
    "jats/pntd.0002065.nxml": "jats",
    "s2orc/N18-3011.json": "s2orc",
    "s2orc/s2orc_20190928_10002293.json": "s2orc",
    "s2orc/s2orc_20200705_18980463.json": "s2orc",
    "science-parse/peerread_conll_2016_train_11.pdf.json": "science-parse",
    "pdf/N18-3011.pdf": "pdf",
}


def test_formats_are_detected_from_content(shared_data):
    assert set(EXPECTED.values()) < set(FORMAT_NAMES)
    for rel, fmt in EXPECTED.items():
        assert detect_format(shared_data / "formats" / rel) == fmt, rel
    assert detect_format(shared_data / "unarxive-sample" / "arXiv_src_2212_086.jsonl") == "unarxive"


def test_gzipped_files_are_read_directly(shared_data, tmp_path):
    source = shared_data / "formats" / "jats" / "pone.0000217.nxml"
    target = tmp_path / "pone.nxml.gz"
    with open(source, "rb") as src, gzip.open(target, "wb") as dst:
        shutil.copyfileobj(src, dst)
    assert detect_format(target) == "jats"
    (plain,), (zipped,) = list(read_papers(source)), list(read_papers(target))
    assert isinstance(zipped, Accepted) and zipped.paper.sections == plain.paper.sections


def test_directories_are_walked_and_non_data_files_listed(shared_data):
    # the full-text samples only: shared/data also holds datasets of other kinds (scitldr/)
    found = list(walk_inputs([shared_data / "formats", shared_data / "unarxive-sample"]))
    skipped = sorted(p.name for p, data in found if not data)
    assert skipped == ["LICENSE", "README", "README.md"]
    assert sum(1 for _, data in found if data) == 14  # 12 JSON / XML files and the 2 PDFs
    assert [p for p, _ in found] == sorted(p for p, _ in found)


def test_malformed_json_line_and_invalid_utf8_are_located(tmp_path):
    good = '{"id": "a", "title": "T", "sections": []}'
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join([good.encode(), b'{"id": "b", "title": ', b'{"id": "c\xff\xfe", "title": "T"}',
                                 b"[1, 2]", b"", good.replace('"a"', '"d"').encode()]) + b"\n")
    records = list(read_papers(path, "jsonl"))
    assert [(r.loc.line, r.reason) for r in records if isinstance(r, Rejection)] == [
        (2, MALFORMED_JSON), (3, INVALID_UTF8), (4, INVALID_RECORD)
    ]
    assert [r.paper.id for r in records if isinstance(r, Accepted)] == ["a", "d"]
    assert "column" in records[1].message and "byte" in records[2].message


def test_truncated_gzip_keeps_the_complete_lines(tmp_path):
    lines = [f'{{"id": "p{i}", "title": "Paper {i}", "sections": [], "abstract": "{"x" * 400}"}}' for i in range(200)]
    whole = gzip.compress(("\n".join(lines) + "\n").encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(whole[: len(whole) // 2])
    records = list(read_papers(path, "jsonl"))
    *accepted, last = records
    assert accepted and all(isinstance(r, Accepted) for r in accepted)
    assert isinstance(last, Rejection) and last.reason == TRUNCATED_GZIP
    assert last.loc.line == len(accepted) + 1 and "ends early" in last.message


def test_malformed_xml_and_unknown_files(tmp_path):
    broken = tmp_path / "broken.xml"
    broken.write_text('<?xml version="1.0"?>\n<article>\n<front><article-meta>\n</front></article>\n')
    (record,) = list(read_papers(broken, "jats"))
    assert isinstance(record, Rejection) and record.reason == MALFORMED_XML and record.loc.line == 4
    notes = tmp_path / "notes.json"
    notes.write_text('{"hello": "world"}')
    assert detect_format(notes) is None
    (unknown,) = list(read_papers(notes))
    assert unknown.reason == UNKNOWN_FORMAT and "--format" in unknown.message


def test_forced_format_that_does_not_fit_is_a_rejection(shared_data):
    (record,) = list(read_papers(shared_data / "formats" / "grobid-tei" / "N18-3011.tei.xml", "jats"))
    assert isinstance(record, Rejection) and record.reason == INVALID_RECORD and "<TEI>" in record.message


def test_unknown_format_name_is_a_usage_error(shared_data):
    with pytest.raises(ValueError, match="unknown format"):
        list(read_papers(shared_data / "formats" / "jats" / "elife06003.xml", "docx"))


def test_json_array_of_records(tmp_path):
    good = {"id": "a", "title": "T", "sections": []}
    path = tmp_path / "array.json"
    path.write_text(json.dumps([good, 7, {**good, "id": "b"}]))
    assert detect_format(path) == "jsonl"
    records = list(read_papers(path))
    assert [(r.loc.element, type(r).__name__) for r in records] == [
        ("[0]", "Accepted"), ("[1]", "Rejection"), ("[2]", "Accepted")
    ]


def test_fields_of_unexpected_types_reject_the_record_not_the_run(tmp_path):
    record = {"paper_id": "9", "title": "T", "abstract": "A",
              "body_text": [{"text": "Some text.", "section": 5}, {"text": 3, "section": "Intro"}]}
    path = tmp_path / "odd.jsonl"
    path.write_text(json.dumps(record) + "\n" + json.dumps({**record, "paper_id": "10", "body_text": []}) + "\n")
    first, second = list(read_papers(path, "s2orc"))
    assert isinstance(first, Rejection) and first.reason == INVALID_RECORD and first.id == "9"
    assert isinstance(second, Accepted) and second.paper.id == "10"


def test_gzip_is_recognised_by_content_not_only_by_suffix(tmp_path):
    path = tmp_path / "no-suffix.jsonl"
    path.write_bytes(gzip.compress(json.dumps({"id": "a", "title": "T", "sections": []}).encode() + b"\n"))
    (record,) = list(read_papers(path))
    assert isinstance(record, Accepted) and record.paper.id == "a"


def test_plain_title_abstract_jsonl_is_detected_as_sciembeds_own(tmp_path):
    """The common dataset layout (id, title, abstract; no sections) needs no --format."""
    path = tmp_path / "papers.jsonl"
    path.write_text('{"id": 7, "title": "Graph attention", "abstract": "We attend over graphs.", "year": 2020}\n')
    assert detect_format(path) == "jsonl"
    (record,) = list(read_papers(path))
    assert isinstance(record, Accepted) and record.paper.id == "7" and record.paper.abstract == "We attend over graphs."
    pes2o = tmp_path / "pes2o.jsonl"
    pes2o.write_text('{"id": "1", "title": "T", "abstract": "A", "text": "Body.", "source": "s2orc/train"}\n')
    assert detect_format(pes2o) == "s2orc"
    (tmp_path / "other.jsonl").write_text('{"id": "1", "name": "not a paper"}\n')
    assert detect_format(tmp_path / "other.jsonl") is None

"""The offline PDF reader: structure from layout, and every bad PDF a counted, bounded rejection."""

from __future__ import annotations

import io
import json
import time
import zlib

import pytest
from pdfminer.pdfdocument import PDFDocument
from pdfminer.pdfparser import PDFParser
from pdfminer.pdftypes import resolve1

from fakes import pdfs as testing
from sciembed.papers.ingest import ingest
from sciembed.papers.pdf.checks import PdfLimits
from sciembed.papers.pdf.offline import OfflineBackend
from sciembed.papers.pdf.structure import join_lines
from sciembed.papers.readers import Accepted, Rejection, read_papers
from sciembed.papers.readers.pdf import using_pdf_backend

SMALL = PdfLimits(max_pages=300, timeout_s=30, max_memory_bytes=128 << 20, max_file_bytes=8 << 20)


def test_layout_gives_title_abstract_headings_and_cuts_references(tmp_path):
    path = tmp_path / "paper.pdf"
    path.write_bytes(testing.paper_pdf())
    (record,) = list(read_papers(path))
    assert isinstance(record, Accepted), record
    paper = record.paper
    assert paper.id == "paper" and paper.source == f"pdf-offline:{path}"
    assert paper.title == "A Study of Layout Heuristics"
    assert paper.abstract == ("We read papers from their page layout alone and measure how well titles and "
                              "headings survive.")
    assert [(s.number, s.heading) for s in paper.sections] == [("1", "Introduction"), ("2", "Method"),
                                                               ("3", "Conclusion")]
    intro = paper.sections[0].text
    assert "The literature on this is large, and state-of-the-art systems" in intro  # hyphenation repaired
    text = " ".join(s.text for s in paper.sections)
    assert "footnote" not in text and "Layout Heuristics" not in text  # footnote and running head dropped
    assert "Knuth" not in text and not any(word == "2" for word in text.split())  # references, page numbers


def test_line_end_hyphens():
    assert join_lines(["the litera-", "ture"]) == "the literature"
    assert join_lines(["state-of-the-", "art"]) == "state-of-the-art"
    assert join_lines(["see Section-", "Two"]) == "see Section- Two"
    assert join_lines(["a", "b"]) == "a b"


def test_real_pdf_reads_offline(shared_data):
    # one of the two real PDFs (the benchmark reads both); a generous time limit: CI machines are shared
    with using_pdf_backend(OfflineBackend(PdfLimits(timeout_s=300))):
        (record,) = list(read_papers(shared_data / "formats" / "pdf" / "N18-3011.pdf"))
    paper = record.paper
    assert paper.id == "N18-3011" and paper.title == "Construction of the Literature Graph in Semantic Scholar"
    assert paper.abstract.startswith("We describe a deployed scalable system for organizing published")
    headings = [s.heading for s in paper.sections]
    assert headings[:3] == ["Introduction", "Structure of The Literature Graph", "Node Types"]
    assert len(paper.sections) == 12 and not paper.references


def _bad_files(tmp_path, shared_data):
    real = (shared_data / "formats" / "pdf" / "N18-3011.pdf").read_bytes()
    files = {
        "truncated.pdf": (testing.truncated(real), "truncated_pdf"),
        "encrypted.pdf": (testing.encrypted_pdf(), "encrypted_pdf"),
        "empty.pdf": (b"", "empty_file"),
        "pages-bomb.pdf": (testing.many_pages_pdf(2000), "too_many_pages"),
        "stream-bomb.pdf": (testing.inflating_pdf(200), "pdf_resource_limit"),
        "object-stream-bomb.pdf": (testing.object_stream_bomb_pdf(200), "pdf_resource_limit"),
        "not-a-pdf.pdf": (b"<html><body>404 Not Found</body></html>\n" * 20, "not_a_pdf"),
    }
    folder = tmp_path / "bad"
    folder.mkdir()
    for name, (data, _) in files.items():
        (folder / name).write_bytes(data)
    return folder, {name: reason for name, (_, reason) in files.items()}


def test_bomb_fixtures_are_well_formed():
    assert zlib.decompress(testing.deflated_spaces(3, b"2 0 ")) == b"2 0 " + b" " * (3 << 20)
    small = testing.object_stream_bomb_pdf(1)  # the same structure, small enough to parse
    document = PDFDocument(PDFParser(io.BytesIO(small)))
    assert resolve1(resolve1(document.catalog["Pages"])["Count"]) == 1  # found in the object stream


def test_encrypted_fixture_is_really_encrypted():
    data = testing.encrypted_pdf(user_password="secret")
    document = PDFDocument(PDFParser(io.BytesIO(data)), password="secret")  # opens with the password
    assert document.encryption is not None


def test_every_bad_pdf_is_one_counted_bounded_rejection(tmp_path, shared_data):
    folder, expected = _bad_files(tmp_path, shared_data)
    good = folder / "good.pdf"
    good.write_bytes(testing.paper_pdf())
    started = time.monotonic()
    result = ingest([folder], tmp_path / "out", progress=False, pdf=OfflineBackend(SMALL, workers=2))
    assert time.monotonic() - started < 60
    assert (result.read, result.accepted, result.rejected) == (8, 1, 7)
    reasons = {name: result.files[str(folder / name)] for name in expected}
    assert all(c.rejected == 1 and c.read == 1 for c in reasons.values())
    rejects = [json.loads(line) for line in (tmp_path / "out" / "rejects.jsonl").read_text().splitlines()]
    found = {r["file"].rsplit("/", 1)[-1]: r["reason"] for r in rejects}
    assert found == expected
    assert result.manifest()["pdf"]["reader"].startswith("offline")
    report = (tmp_path / "out" / "ingest_report.md").read_text()
    assert "**offline** reader" in report and "pdf-offline" in report


def test_time_limit_stops_a_slow_parse(tmp_path, shared_data):
    path = shared_data / "formats" / "pdf" / "2020.acl-main.207.pdf"
    with using_pdf_backend(OfflineBackend(PdfLimits(timeout_s=0.05))):
        (record,) = list(read_papers(path))
    assert isinstance(record, Rejection) and record.reason == "pdf_timeout"


def test_limits_are_checked():
    with pytest.raises(ValueError):
        PdfLimits(max_pages=0)


def test_cli_reads_pdfs_offline_and_says_so(shared_data, tmp_path):
    from typer.testing import CliRunner

    from sciembed.cli.main import app

    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "paper.pdf").write_bytes(testing.paper_pdf())
    (folder / "empty.pdf").write_bytes(b"")
    run = CliRunner().invoke(app, ["corpus", "ingest", str(folder), "--out", str(tmp_path / "out"), "--no-progress",
                                   "--set", "pdf_timeout=30", "--set", "pdf_max_pages=50", "--set", "pdf_workers=2"])
    assert run.exit_code == 0, run.output
    assert "read 2 = accepted 1 + rejected 1" in run.output and "empty_file 1" in run.output
    assert "offline reader" in run.output

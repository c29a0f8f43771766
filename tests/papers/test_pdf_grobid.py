"""`ingest --grobid`: the real TEI of the real PDFs through a local fake GROBID that misbehaves on demand."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fakes import pdfs as testing
from fakes.grobid import FakeGrobid, pairs_from_dirs
from sciembed.cli.main import app
from sciembed.corpus.layout import CorpusDir
from sciembed.papers.ingest import ingest
from sciembed.papers.pdf.grobid import GrobidBackend, GrobidOptions, GrobidUnavailable
from sciembed.papers.readers import Accepted, read_papers


@pytest.fixture()
def grobid(shared_data):
    formats = shared_data / "formats"
    with FakeGrobid(pairs_from_dirs(formats / "pdf", formats / "grobid-tei"), slow_s=1.5).running() as server:
        yield server


def _backend(server, cache, **options):
    return GrobidBackend(GrobidOptions(server.url, backoff_s=0.01, **options), cache)


def _rejects(out):
    return [json.loads(line) for line in (out / "rejects.jsonl").read_text().splitlines()]


def test_real_pdfs_come_back_as_their_real_tei_and_are_sent_once(grobid, shared_data, tmp_path):
    pdfs = shared_data / "formats" / "pdf"
    cache = tmp_path / "tei-cache"
    result = ingest([pdfs], tmp_path / "out", progress=False, pdf=_backend(grobid, cache))
    assert (result.read, result.accepted, result.rejected) == (2, 2, 0)
    assert len(grobid.requests) == 2
    for request in grobid.requests:  # the request grobid-client-python sends
        assert request["content_type"] == "application/pdf" and request["filename"].endswith(".pdf")
        assert request["accept"] == "text/plain"
        assert request["fields"] == {"includeRawCitations": ["1"]}
    papers = {p.id: p for p in CorpusDir(tmp_path / "out").iter_papers()}
    for stem in ("N18-3011", "2020.acl-main.207"):
        (direct,) = [r.paper for r in read_papers(shared_data / "formats" / "grobid-tei" / f"{stem}.tei.xml")]
        assert papers[stem].title == direct.title and papers[stem].sections == direct.sections
        assert papers[stem].source == f"grobid:{pdfs / (stem + '.pdf')}"
    assert sorted(p.name for p in cache.glob("*.tei.xml")) == sorted(f"{r['sha256']}.tei.xml" for r in grobid.requests)
    assert result.manifest()["pdf"]["sent"] == 2 and "pdf-grobid" in result.manifest()["accepted_by_format"]

    again = ingest([pdfs], tmp_path / "out", progress=False, overwrite=True, pdf=_backend(grobid, cache))
    assert len(grobid.requests) == 2  # nothing sent twice
    assert again.manifest()["pdf"]["from_cache"] == 2 and again.accepted == 2
    assert {p.id: p for p in CorpusDir(tmp_path / "out").iter_papers()} == papers


def test_options_become_form_fields_and_a_cache_refuses_other_options(grobid, shared_data, tmp_path):
    pdf = shared_data / "formats" / "pdf" / "N18-3011.pdf"
    options = {"consolidate_header": True, "consolidate_citations": True, "tei_coordinates": ("persName", "ref"),
               "segment_sentences": True}
    ingest([pdf], tmp_path / "out", progress=False, pdf=_backend(grobid, tmp_path / "c", **options))
    assert grobid.requests[0]["fields"] == {"consolidateHeader": ["1"], "consolidateCitations": ["1"],
                                            "includeRawCitations": ["1"], "segmentSentences": ["1"],
                                            "teiCoordinates": ["persName", "ref"]}
    with pytest.raises(ValueError, match="other GROBID options"):
        ingest([pdf], tmp_path / "out2", progress=False, pdf=_backend(grobid, tmp_path / "c"))


def test_busy_server_is_retried_with_backoff(grobid, shared_data, tmp_path):
    grobid.fail_next("503", 2)
    pdf = shared_data / "formats" / "pdf" / "N18-3011.pdf"
    result = ingest([pdf], tmp_path / "out", progress=False, pdf=_backend(grobid, tmp_path / "c", workers=1))
    assert result.accepted == 1 and result.manifest()["pdf"]["retries"] == 2 and len(grobid.requests) == 3


def test_misbehaving_server_gives_counted_rejections_and_caches_nothing_bad(grobid, shared_data, tmp_path):
    pdfs = shared_data / "formats" / "pdf"
    grobid.fail_next("503", 3)  # one file: busy through all its retries
    backend = _backend(grobid, tmp_path / "c", workers=1, retries=2)
    result = ingest([pdfs / "N18-3011.pdf"], tmp_path / "busy", progress=False, pdf=backend)
    assert result.reasons == {"grobid_busy": 1}

    grobid.fail_next("malformed")
    result = ingest([pdfs / "N18-3011.pdf"], tmp_path / "bad", progress=False, pdf=_backend(grobid, tmp_path / "c"))
    assert result.reasons == {"grobid_error": 1} and "malformed TEI" in _rejects(tmp_path / "bad")[0]["message"]
    assert not list((tmp_path / "c").glob("*.tei.xml"))

    grobid.fail_next("slow")
    result = ingest([pdfs / "N18-3011.pdf"], tmp_path / "slow", progress=False,
                    pdf=_backend(grobid, tmp_path / "c", timeout_s=0.3))
    assert result.reasons == {"grobid_timeout": 1}

    grobid.fail_next("500")
    result = ingest([pdfs / "N18-3011.pdf"], tmp_path / "e500", progress=False, pdf=_backend(grobid, tmp_path / "c"))
    assert result.reasons == {"grobid_error": 1} and "HTTP 500" in _rejects(tmp_path / "e500")[0]["message"]

    result = ingest([pdfs / "N18-3011.pdf"], tmp_path / "ok", progress=False, pdf=_backend(grobid, tmp_path / "c"))
    assert result.accepted == 1  # the earlier failures were not cached: now it is sent and read


def test_bad_files_are_refused_before_sending(grobid, shared_data, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    real = (shared_data / "formats" / "pdf" / "N18-3011.pdf").read_bytes()
    (folder / "empty.pdf").write_bytes(b"")
    (folder / "page.pdf").write_bytes(b"<html>not a pdf</html>")
    (folder / "cut.pdf").write_bytes(testing.truncated(real))
    (folder / "locked.pdf").write_bytes(testing.encrypted_pdf())
    (folder / "unknown.pdf").write_bytes(testing.paper_pdf())  # a PDF the fake server has no TEI for
    result = ingest([folder], tmp_path / "out", progress=False, pdf=_backend(grobid, tmp_path / "c"))
    assert result.read == 5 == result.rejected
    assert result.reasons == {"empty_file": 1, "not_a_pdf": 1, "truncated_pdf": 1, "encrypted_pdf": 1,
                              "grobid_error": 1}
    assert len(grobid.requests) == 1  # only the readable PDF was sent


def test_concurrency_is_bounded_by_workers(grobid, shared_data, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(4):
        (folder / f"copy{i}.pdf").write_bytes((shared_data / "formats" / "pdf" / "N18-3011.pdf").read_bytes())
    for _ in range(4):
        grobid.fail_next("slow")
    grobid.slow_s = 0.3
    result = ingest([folder], tmp_path / "out", progress=False, pdf=_backend(grobid, tmp_path / "c", workers=2))
    assert result.read == 4 == result.accepted  # ids are the file stems: copy0 … copy3
    assert grobid.max_in_flight == 2


def test_a_dead_server_stops_the_run_before_reading(tmp_path):
    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(testing.paper_pdf())
    backend = GrobidBackend(GrobidOptions("http://127.0.0.1:9", timeout_s=2), tmp_path / "c")
    with pytest.raises(GrobidUnavailable):
        ingest([pdf], tmp_path / "out", progress=False, pdf=backend)
    assert not (tmp_path / "out").exists()


def test_cli_ingest_with_grobid(grobid, shared_data, tmp_path):
    out = tmp_path / "corpus"
    run = CliRunner().invoke(app, ["corpus", "ingest", str(shared_data / "formats" / "pdf"), "--out", str(out),
                                   "--grobid",
                                   grobid.url, "--no-progress"])
    assert run.exit_code == 0, run.output
    assert "read 2 = accepted 2 + rejected 0" in run.output and "GROBID" in run.output
    assert (tmp_path / "corpus.grobid-tei").is_dir()  # the cache sits next to the corpus
    records = [r for r in read_papers(shared_data / "formats" / "pdf" / "N18-3011.pdf") if isinstance(r, Accepted)]
    assert records  # without --grobid the same file is read offline
    dead = CliRunner().invoke(app, ["corpus", "ingest", str(shared_data / "formats" / "pdf"), "--out",
                                    str(tmp_path / "x"),
                                    "--grobid", "http://127.0.0.1:9", "--no-progress"])
    assert dead.exit_code == 2 and "does not answer" in dead.output

"""Issue 33, defects 3 and 4: GROBID's reply is bounded in bytes before it is parsed or cached, and
``pdf_timeout`` bounds the whole request (a server trickling its headers or body cannot hold a worker)."""

from __future__ import annotations

import json
import time

import pytest

from fakes.grobid import FakeGrobid, pairs_from_dirs
from sciembed.papers.ingest import ingest
from sciembed.papers.pdf.grobid import GrobidBackend, GrobidOptions

PDF = "N18-3011.pdf"
DRIP_S = 6.0


@pytest.fixture()
def grobid(shared_data):
    formats = shared_data / "formats"
    pairs = pairs_from_dirs(formats / "pdf", formats / "grobid-tei")
    with FakeGrobid(pairs, slow_s=DRIP_S, huge_bytes=3 << 20).running() as server:
        yield server


def _ingest(server, shared_data, out, cache, **options):
    backend = GrobidBackend(GrobidOptions(server.url, backoff_s=0.01, retries=0, **options), cache)
    return ingest([shared_data / "formats" / "pdf" / PDF], out, progress=False, pdf=backend)


def test_an_oversized_tei_is_refused_and_not_cached(grobid, shared_data, tmp_path):
    grobid.fail_next("huge")
    result = _ingest(grobid, shared_data, tmp_path / "big", tmp_path / "cache", max_tei_bytes=1 << 20)
    assert result.reasons == {"grobid_reply_too_large": 1}
    reject = json.loads((tmp_path / "big" / "rejects.jsonl").read_text())
    assert "1,048,576 bytes" in reject["message"]
    assert not list((tmp_path / "cache").glob("*.tei.xml"))
    result = _ingest(grobid, shared_data, tmp_path / "ok", tmp_path / "cache", max_tei_bytes=1 << 20)
    assert result.accepted == 1 and len(grobid.requests) == 2  # GROBID was asked again, not a cached rejection


def test_an_oversized_tei_cached_before_is_dropped_and_asked_for_again(grobid, shared_data, tmp_path):
    grobid.fail_next("huge")
    assert _ingest(grobid, shared_data, tmp_path / "a", tmp_path / "cache", max_tei_bytes=8 << 20).accepted == 1
    (cached,) = (tmp_path / "cache").glob("*.tei.xml")
    assert cached.stat().st_size > 1 << 20
    result = _ingest(grobid, shared_data, tmp_path / "b", tmp_path / "cache", max_tei_bytes=1 << 20)
    assert result.accepted == 1 and len(grobid.requests) == 2 and cached.stat().st_size < 1 << 20


@pytest.mark.parametrize("failure", ["slow_headers", "drip"])
def test_pdf_timeout_bounds_the_whole_request(grobid, shared_data, tmp_path, failure):
    grobid.fail_next(failure)
    started = time.monotonic()
    result = _ingest(grobid, shared_data, tmp_path / failure, tmp_path / "cache", timeout_s=1.0)
    assert result.reasons == {"grobid_timeout": 1}
    assert time.monotonic() - started < 3.5
    assert not list((tmp_path / "cache").glob("*.tei.xml"))

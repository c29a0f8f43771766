"""Issue 33, defects 1 and 2: a PDF upload's parse ends with its request, and with the server.

Before, `/search/file` parsed PDFs one at a time in one pool thread the request deadline did not reach: an
upload answered 503 kept parsing (up to its 60 s limit), the next upload queued behind it and got 503 too,
and a stopped server left its parses and upload directories behind.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from fakes import pdfs as testing
from sciembed.ioutil import deadline
from sciembed.papers.pdf import offline
from sciembed.papers.pdf.checks import PdfLimits
from sciembed.papers.pdf.offline import OfflineBackend
from sciembed.papers.readers.pdf import set_default_backend
from sciembed.server import ServerSettings, create_app, uploads

SLOW_PAGES = 40  # several seconds of layout work on any machine


@pytest.fixture()
def slow_pdf(tmp_path) -> Path:
    path = tmp_path / "slow.pdf"
    path.write_bytes(testing.dense_pdf(SLOW_PAGES))
    return path


@pytest.fixture()
def offline_reader():
    backend = OfflineBackend(PdfLimits(timeout_s=120))
    set_default_backend(backend)
    yield backend
    set_default_backend(None)
    backend.close()


def _upload_dirs() -> list[Path]:
    return list(Path(tempfile.gettempdir()).glob(f"{uploads.UPLOAD_PREFIX}{os.getpid()}-*"))


def test_the_request_deadline_kills_the_parse(slow_pdf, offline_reader):
    started = time.monotonic()
    with deadline.deadline(1.0), pytest.raises(deadline.DeadlineExceeded):
        list(offline_reader.read(slow_pdf, "slow.pdf"))
    assert time.monotonic() - started < 3.0
    assert not offline._LIVE  # the child was killed and reaped


def test_an_abandoned_upload_does_not_hold_the_next_one(collection, slow_pdf, offline_reader):
    client = TestClient(create_app(collection, ServerSettings(timeout_s=1.5)), base_url="http://localhost")
    before = set(_upload_dirs())
    started = time.monotonic()
    slow = client.post("/search/file", files={"file": ("slow.pdf", slow_pdf.read_bytes(), "application/pdf")})
    assert slow.status_code == 503, slow.text
    good = client.post("/search/file", files={"file": ("good.pdf", testing.paper_pdf(), "application/pdf")})
    assert good.status_code == 200, good.text  # not queued behind the abandoned parse
    assert time.monotonic() - started < 8.0
    time.sleep(0.5)
    assert not offline._LIVE and set(_upload_dirs()) <= before  # nothing parsing, no upload directory left


def test_stopping_the_server_kills_parses_in_flight(collection, slow_pdf, offline_reader, tmp_path):
    abandoned = Path(tempfile.gettempdir()) / f"{uploads.UPLOAD_PREFIX}999999999-x"
    abandoned.mkdir(exist_ok=True)  # a directory left by a server that was killed (no such pid)
    (abandoned / "upload-1.pdf").write_bytes(b"%PDF-")
    outcome: list[object] = []

    def parse() -> None:
        outcome.extend(offline_reader.read(slow_pdf, "slow.pdf"))

    with TestClient(create_app(collection, ServerSettings(timeout_s=60)), base_url="http://localhost"):
        assert not abandoned.exists()  # removed when the server started
        worker = threading.Thread(target=parse)
        worker.start()
        for _ in range(100):
            if offline._LIVE:
                break
            time.sleep(0.05)
        assert offline._LIVE
        started = time.monotonic()
    worker.join(10)  # the server stopped: its parse was killed, the reader answers at once
    assert not worker.is_alive() and time.monotonic() - started < 5.0
    assert not offline._LIVE and outcome and outcome[0].reason == "pdf_resource_limit"

"""PDF uploads: read offline by default, through GROBID when the server was started with --grobid."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from fakes import pdfs as testing
from fakes.grobid import FakeGrobid, pairs_from_dirs
from sciembed.cli.serve import use_pdf_reader
from sciembed.papers.readers.pdf import set_default_backend
from sciembed.server import ServerSettings, create_app
from sciembed.server.uploads import upload_label


@pytest.fixture()
def client(collection):
    yield TestClient(create_app(collection, ServerSettings(max_body_bytes=5 << 20, allow_open_writes=True)),
                     base_url="http://localhost")
    set_default_backend(None)


def _search(client, name, data):
    return client.post("/search/file", files={"file": (name, data, "application/pdf")}, data={"k": "3"})


def test_pdf_upload_is_read_offline(client, shared_data):
    data = (shared_data / "formats" / "pdf" / "N18-3011.pdf").read_bytes()
    response = _search(client, "paper.bin", data)  # told by its bytes, not its name
    assert response.status_code == 200, response.text
    paper = response.json()["paper"]
    assert paper["title"] == "Construction of the Literature Graph in Semantic Scholar"
    assert paper["id"] == "paper.bin" and len(response.json()["hits"]) == 3  # the name's stem, as ingest
    nameless = _search(client, "...", data).json()["paper"]["id"]
    assert nameless == upload_label(None, data).removesuffix(".pdf")  # no usable name: upload-<sha256 prefix>
    assert [s["heading"] for s in paper["sections"]][:2] == ["Introduction", "Structure of The Literature Graph"]


def test_bad_pdf_uploads_are_refused_with_the_reason(client, shared_data):
    real = (shared_data / "formats" / "pdf" / "N18-3011.pdf").read_bytes()
    for data, reason in ((testing.encrypted_pdf(), "encrypted_pdf"), (testing.truncated(real), "truncated_pdf"),
                         (testing.many_pages_pdf(1000), "too_many_pages")):
        response = _search(client, "bad.pdf", data)
        assert response.status_code == 400, response.text
        assert response.json()["error"]["details"]["reasons"][0]["reason"] == reason


def test_pdf_upload_through_grobid(client, shared_data, tmp_path):
    formats = shared_data / "formats"
    with FakeGrobid(pairs_from_dirs(formats / "pdf", formats / "grobid-tei")).running() as grobid:
        use_pdf_reader(tmp_path / "index", grobid.url)
        data = (formats / "pdf" / "2020.acl-main.207.pdf").read_bytes()
        first = _search(client, "specter.pdf", data)
        second = _search(client, "specter.pdf", data)
    assert first.status_code == 200 == second.status_code, first.text
    assert first.json()["paper"]["title"] == ("SPECTER: Document-level Representation Learning using "
                                              "Citation-informed Transformers")
    assert len(grobid.requests) == 1  # the second upload came from the TEI cache
    assert (tmp_path / "index.grobid-tei").is_dir()

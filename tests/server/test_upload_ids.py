"""Issue 31 item 1 on the server: uploads take an id (default: the file name's stem, as ingest gives), and papers
are found by any external id, with near ids and titles suggested when none matches."""

from __future__ import annotations

import shutil

import pytest
from fastapi.testclient import TestClient

from fakes.tei import tei
from sciembed.corpus.layout import CorpusDir
from sciembed.papers.ingest import ingest
from sciembed.papers.readers.pdf import set_default_backend
from sciembed.server import ServerSettings, create_app


@pytest.fixture()
def client(collection):
    yield TestClient(create_app(collection, ServerSettings(max_body_bytes=5 << 20, allow_open_writes=True)),
                     base_url="http://localhost")
    set_default_backend(None)


def test_an_upload_takes_the_id_it_is_given(client):
    data = tei("Exoplanet atmospheres from transit spectra", "10.1000/exo.1").encode()
    added = client.post("/papers/file", files={"file": ("whatever.tei.xml", data)}, data={"id": "lab-2024-07"})
    assert added.status_code == 200 and added.json()["added"] == 1, added.text
    card = client.get("/papers/lab-2024-07").json()
    assert card["id"] == "lab-2024-07" and card["external_ids"]["doi"] == "10.1000/exo.1"
    assert client.get("/papers/10.1000/exo.1").json()["id"] == "lab-2024-07"  # by its DOI
    assert client.get("/papers/https://doi.org/10.1000/EXO.1").json()["id"] == "lab-2024-07"
    searched = client.post("/search/file", files={"file": ("x.tei.xml", data)}, data={"id": "mine", "k": "2"})
    assert searched.status_code == 200 and searched.json()["paper"]["id"] == "mine"


def test_without_an_id_the_file_stem_is_the_id(client):
    data = tei("Exoplanet atmospheres from transit spectra").encode()
    added = client.post("/papers/file", files={"file": ("dir/P17-2090.tei.xml", data)})
    assert added.status_code == 200, added.text
    assert client.get("/papers/P17-2090").json()["external_ids"]["acl"] == "P17-2090"
    assert client.get("/papers/p17-2090").json()["id"] == "P17-2090"  # any letter case, when only one matches


def test_bad_ids_and_ids_for_many_papers_are_refused(client):
    data = tei("Exoplanet atmospheres").encode()
    bad = client.post("/papers/file", files={"file": ("a.tei.xml", data)}, data={"id": "two words"})
    assert bad.status_code == 422 and "whitespace" in bad.json()["error"]["message"]
    lines = b'{"id": "a", "title": "A", "abstract": "x y z"}\n{"id": "b", "title": "B", "abstract": "x y z"}\n'
    many = client.post("/papers/file", files={"file": ("two.jsonl", lines)}, data={"id": "one"})
    assert many.status_code == 422 and "an id names one paper" in many.json()["error"]["message"]


def test_an_unknown_paper_gets_near_ids_and_titles(client, collection):
    some = next(iter(collection.catalog.titles()))
    typo = some[:-1] + ("0" if some[-1] != "0" else "1")
    for response in (client.get(f"/papers/{typo}"), client.post("/search", json={"paper_id": typo})):
        assert response.status_code == 404
        error = response.json()["error"]
        assert error["message"].startswith(f"no paper {typo!r} in this collection")
        assert "did you mean" in error["message"]
        assert some in [s["id"] for s in error["details"]["suggestions"]]


def test_similar_papers_by_external_id(client):
    data = tei("Exoplanet atmospheres from transit spectra", "10.1000/exo.2").encode()
    assert client.post("/papers/file", files={"file": ("exo.tei.xml", data)}).status_code == 200
    response = client.post("/search", json={"paper_id": "doi:10.1000/exo.2", "k": 3})
    assert response.status_code == 200, response.text
    hits = [h["id"] for h in response.json()["hits"]]
    assert hits and "exo" not in hits  # the query paper never finds itself


def test_the_same_pdf_gets_the_same_id_ingested_and_uploaded(client, shared_data, tmp_path):
    pdf = shutil.copy(shared_data / "formats" / "pdf" / "N18-3011.pdf", tmp_path / "N18-3011.pdf")
    ingest([tmp_path / "N18-3011.pdf"], tmp_path / "corpus", progress=False)
    (ingested,) = CorpusDir(tmp_path / "corpus").papers()
    with open(pdf, "rb") as handle:
        uploaded = client.post("/search/file", files={"file": ("N18-3011.pdf", handle.read())}, data={"k": "1"})
    assert uploaded.status_code == 200, uploaded.text
    assert ingested == uploaded.json()["paper"]["id"] == "N18-3011"


def test_the_same_pdf_gets_the_same_id_through_grobid(client, shared_data, tmp_path):
    from fakes.grobid import FakeGrobid, pairs_from_dirs
    from sciembed.cli.serve import use_pdf_reader
    from sciembed.papers.pdf.grobid import GrobidBackend, GrobidOptions

    formats = shared_data / "formats"
    pdf = formats / "pdf" / "2020.acl-main.207.pdf"
    with FakeGrobid(pairs_from_dirs(formats / "pdf", formats / "grobid-tei")).running() as grobid:
        backend = GrobidBackend(GrobidOptions(grobid.url, backoff_s=0.01), tmp_path / "tei-cache")
        ingest([pdf], tmp_path / "corpus", progress=False, pdf=backend)
        use_pdf_reader(tmp_path / "index", grobid.url)
        uploaded = client.post("/search/file", files={"file": (pdf.name, pdf.read_bytes())}, data={"k": "1"})
    assert uploaded.status_code == 200, uploaded.text
    (ingested,) = CorpusDir(tmp_path / "corpus").papers()
    assert ingested == uploaded.json()["paper"]["id"] == "2020.acl-main.207"


def test_upload_names_give_the_ids_ingest_gives(client):
    data = tei("Exoplanet atmospheres from transit spectra").encode()
    for name, expected in (("C:\\papers\\My paper (v2).tei.xml", "My_paper_(v2)"), ("résumé.tei.xml", "résumé")):
        added = client.post("/papers/file", files={"file": (name, data)})
        assert added.status_code == 200, added.text
        assert client.get(f"/papers/{expected}").json()["id"] == expected

"""Issue 23: the service against hostile clients (defects 1-3, 6, 7, 18-21), one test per defect."""

from __future__ import annotations

import gzip
import json
import threading
import time

import pytest
from fastapi.testclient import TestClient

from sciembed.index.collection import Collection
from sciembed.retrieval.dense import IndexLoadError
from sciembed.server import ServerSettings, create_app, uploads

KEY = "k3y-for-tests"
QUERY = "exoplanet atmosphere transmission spectroscopy"


def record(pid: str, words: int = 200) -> dict:
    return {"id": pid, "title": f"Paper {pid} on exoplanet spectra", "abstract": "An exoplanet abstract.",
            "sections": [{"heading": "Introduction", "text": "exoplanet atmosphere spectra " * (words // 3)}]}


def client_for(collection, **settings) -> TestClient:
    settings = {"api_key": KEY, **settings}
    return TestClient(create_app(collection, ServerSettings(**settings)), base_url="http://localhost")


def count_records(monkeypatch) -> list[int]:
    """How many records the upload reader has produced so far (one counter, shared with the test)."""
    seen = [0]
    real = uploads.read_papers

    def counting(*args, **kwargs):
        for item in real(*args, **kwargs):
            seen[0] += 1
            yield item

    monkeypatch.setattr(uploads, "read_papers", counting)
    return seen


# -- 1: a gzip upload is streamed, /search/file stops after its first paper, decompressed bytes are capped ----


def test_search_file_reads_only_the_first_paper_of_a_large_gzip(collection, monkeypatch):
    seen = count_records(monkeypatch)
    lines = "\n".join(json.dumps(record(f"u{i}", 30)) for i in range(3000)).encode()
    client = client_for(collection)
    response = client.post("/search/file", files={"file": ("many.jsonl.gz", gzip.compress(lines))}, data={"k": "3"})
    assert response.status_code == 200, response.text
    assert response.json()["paper"]["id"] == "u0" and seen[0] <= 2


def test_decompressed_upload_bytes_are_capped(collection):
    lines = "\n".join(json.dumps(record(f"u{i}", 300)) for i in range(400)).encode()  # ~1 MB expanded
    client = client_for(collection, max_upload_expanded_bytes=200_000)
    response = client.post("/papers/file", files={"file": ("big.jsonl.gz", gzip.compress(lines))},
                           headers={"X-API-Key": KEY})
    assert response.status_code == 413, response.text
    assert "200,000" in response.json()["error"]["message"]


# -- 2: the record count is bounded while reading ----------------------------------------------------------


def test_papers_file_stops_reading_past_the_batch_limit(collection, monkeypatch):
    seen = count_records(monkeypatch)
    lines = "\n".join(json.dumps(record(f"u{i}", 30)) for i in range(500)).encode()
    client = client_for(collection, max_batch=10)
    response = client.post("/papers/file", files={"file": ("many.jsonl", lines)}, headers={"X-API-Key": KEY})
    assert response.status_code == 413 and "10" in response.json()["error"]["message"]
    assert seen[0] <= 11


# -- 3: a timed-out request stops its work, not just its response ------------------------------------------


class SlowEncoder:
    """The collection's encoder, 50 ms per text, counting texts (a stand-in for a busy CPU)."""

    def __init__(self, inner) -> None:
        self.inner, self.texts = inner, 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def encode(self, texts, **kwargs):
        for _ in texts:
            time.sleep(0.05)
            self.texts += 1
        return self.inner.encode(texts, **kwargs)


def test_timed_out_search_stops_encoding(collection):
    slow = SlowEncoder(collection.encoder)
    collection.encoder = slow
    paper = {"id": "long", "title": "A long paper", "abstract": "An abstract about exoplanets.",
             "sections": [{"heading": f"Section {i}", "text": "exoplanet atmosphere spectra " * 40}
                          for i in range(64)]}
    client = client_for(collection, timeout_s=0.3)
    response = client.post("/search", json={"paper": paper, "k": 3})
    assert response.status_code == 503
    time.sleep(3.5)  # all 65 views would take 3.25 s
    assert slow.texts <= 32, f"{slow.texts} texts encoded after the request timed out"


# -- 6: ids with a slash (DOIs) can be fetched and deleted --------------------------------------------------


def test_ids_with_slashes_can_be_fetched_and_deleted(collection):
    client = client_for(collection)
    doi = "10.18653/v1/2020.acl-main.207"
    assert client.post("/papers", json={"papers": [record(doi)]}, headers={"X-API-Key": KEY}).status_code == 200
    assert client.get(f"/papers/{doi}").json()["id"] == doi
    assert client.delete(f"/papers/{doi}", headers={"X-API-Key": KEY}).json() == {"deleted": doi}
    assert client.get(f"/papers/{doi}").status_code == 404


# -- 7: a lone surrogate is a counted reject (writes) or a 422 (searches), never a 500 ---------------------


def test_lone_surrogates_never_give_500(collection):
    client = client_for(collection)
    bad = json.dumps({"papers": [record("ok"), {**record("bad"), "title": "PLACE"}]}).replace("PLACE", "x\\ud800")
    added = client.post("/papers", content=bad, headers={"X-API-Key": KEY, "Content-Type": "application/json"})
    assert added.status_code == 200, added.text
    assert added.json()["added"] == 1 and added.json()["rejected"] == 1
    for body in ('{"query": "a \\ud800"}', '{"paper_id": "\\ud800"}', '{"paper": {"id": "p", "title": "\\ud800"}}'):
        response = client.post("/search", content=body, headers={"Content-Type": "application/json"})
        assert response.status_code in (404, 422), (body, response.status_code, response.text)
    surrogate_file = (b'{"id": "f", "title": "\\udfff", "abstract": "x"}\n')
    upload = client.post("/search/file", files={"file": ("x.jsonl", surrogate_file)})
    assert upload.status_code == 400, upload.text


# -- 18: one writer per collection -------------------------------------------------------------------------


def test_a_second_writer_on_the_same_directory_is_refused(collection, index_dir):
    with pytest.raises(IndexLoadError, match="another process"):
        Collection.open(index_dir)
    reader = Collection.open(index_dir, read_only=True)  # readers (e.g. `sciembed search`) are welcome
    try:
        assert reader.stats()["papers"] == 49
        with pytest.raises(PermissionError):
            reader.delete(next(iter(reader.index.papers)))
    finally:
        reader.close()


# -- 19: writes need a key unless allowed open; Host checked; security headers ---------------------------------


def test_writes_need_a_key_unless_explicitly_open(collection):
    closed = TestClient(create_app(collection, ServerSettings()), base_url="http://localhost")
    refused = closed.post("/papers", json={"papers": [record("w1")]})
    assert refused.status_code == 403 and "--allow-open-writes" in refused.json()["error"]["message"]
    assert closed.delete("/papers/w1").status_code == 403
    assert closed.post("/search", json={"query": QUERY, "k": 1}).status_code == 200  # reads stay open
    opened = TestClient(create_app(collection, ServerSettings(allow_open_writes=True)), base_url="http://localhost")
    assert opened.post("/papers", json={"papers": [record("w1")]}).status_code == 200


def test_cross_site_form_posts_are_refused(collection):
    client = TestClient(create_app(collection, ServerSettings(allow_open_writes=True)), base_url="http://localhost")
    form = client.post("/papers/file", files={"file": ("x.jsonl", json.dumps(record("x")).encode())},
                       headers={"Origin": "http://evil.example"})
    assert form.status_code == 403 and "origin" in form.json()["error"]["message"].lower()
    same = client.post("/papers/file", files={"file": ("x.jsonl", json.dumps(record("x")).encode())},
                       headers={"Origin": "http://localhost"})
    assert same.status_code == 200, same.text


def test_host_header_is_checked(collection):
    client = client_for(collection)
    rebound = client.post("/search", json={"query": QUERY}, headers={"Host": "attacker.example"})
    assert rebound.status_code == 421 and "--allowed-hosts" in rebound.json()["error"]["message"]
    listed = client_for(collection, allowed_hosts=("search.lab.example",))
    assert listed.post("/search", json={"query": QUERY}, headers={"Host": "search.lab.example:8000"}).status_code == 200


def test_security_headers_on_every_response(collection):
    client = client_for(collection)
    for response in (client.get("/"), client.post("/search", json={"query": QUERY}), client.get("/nope")):
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["x-frame-options"] == "DENY"
        assert "default-src 'self'" in response.headers["content-security-policy"]


# -- 20: the key is checked before the body ----------------------------------------------------------------


def test_unauthenticated_clients_learn_nothing_about_the_schema(collection):
    client = client_for(collection)
    json_type = {"Content-Type": "application/json"}
    for body in ('{"nope": 1}', '{"papers": "x"}', "not json", "{"):
        response = client.post("/papers", content=body, headers=json_type)
        assert response.status_code == 401 and "details" not in response.json()["error"], response.text
    form = client.post("/papers/file", data={"format": "nope"})
    assert form.status_code == 401 and "details" not in form.json()["error"], form.text


# -- 21: the same id twice in one batch is a counted duplicate ---------------------------------------------


def test_repeated_id_in_one_batch_is_counted(collection):
    client = client_for(collection)
    body = client.post("/papers", json={"papers": [record("twice"), {**record("twice"), "title": "Second copy"}]},
                       headers={"X-API-Key": KEY}).json()
    assert body["added"] == 1 and body["rejected"] == 1
    assert body["rejections"][0]["reason"] == "duplicate_id" and body["rejections"][0]["line"] == 2
    assert client.get("/papers/twice").json()["title"] == "Paper twice on exoplanet spectra"


def test_overload_sheds_with_retry_after(collection):
    """Micro-batching: a full encode queue answers 503 with Retry-After instead of queueing without bound."""
    slow = SlowEncoder(collection.encoder)
    collection.encoder = slow
    client = client_for(collection, max_queue=2, timeout_s=30)
    codes: list[tuple[int, str | None]] = []

    def one(i: int) -> None:
        response = client.post("/search", json={"query": f"{QUERY} {i}", "k": 1})
        codes.append((response.status_code, response.headers.get("retry-after")))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {c for c, _ in codes} <= {200, 503} and any(c == 503 for c, _ in codes)
    assert all(r is not None and int(r) >= 1 for c, r in codes if c == 503)

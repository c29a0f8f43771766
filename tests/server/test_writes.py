"""Live updates: add, replace, delete, durability across a reopen, API keys, searches during writes."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from fastapi.testclient import TestClient

from fakes.live_papers import new_paper
from sciembed.index.collection import Collection
from sciembed.server import ServerSettings, create_app

KEY = "s3cret-key"


@pytest.fixture()
def client(collection):
    return TestClient(create_app(collection, ServerSettings(api_key=KEY)), base_url="http://localhost")


def auth() -> dict:
    return {"X-API-Key": KEY}


def test_add_replace_delete_round_trip(client, index_dir):
    added = client.post("/papers", json={"papers": [new_paper("live-1"), new_paper("live-2")]}, headers=auth())
    assert added.status_code == 200, added.text
    assert added.json() | {"rejections": []} == {
        "added": 2, "replaced": 0, "views": added.json()["views"], "skipped_no_text": 0, "rejected": 0,
        "rejections": [], "papers": 51, "queued": 0, "waiting": 0,
        "ids": [{"id": f"live-{n}", "title": "Transmission spectroscopy of a hot exoplanet"} for n in (1, 2)]}
    hits = client.post("/search", json={"query": "x", "k": 5, "filters": {"venue": "live journal"}}).json()["hits"]
    assert {h["id"] for h in hits} == {"live-1", "live-2"}
    assert client.get("/papers/live-1").json()["venue"] == "Live Journal"

    replaced = client.post("/papers", json={"papers": [new_paper("live-1", "A replaced title", 900)]}, headers=auth())
    assert replaced.json()["replaced"] == 1 and replaced.json()["papers"] == 51
    assert client.get("/papers/live-1").json()["title"] == "A replaced title"
    assert client.get("/stats").json()["papers"] == 51

    assert client.delete("/papers/live-2", headers=auth()).json() == {"deleted": "live-2"}
    assert client.delete("/papers/live-2", headers=auth()).status_code == 404
    assert client.get("/papers/live-2").status_code == 404
    hits = client.post("/search", json={"query": "exoplanet", "k": 60}).json()["hits"]
    assert "live-2" not in {h["id"] for h in hits} and "live-1" in {h["id"] for h in hits}

    # durability: a fresh process (here: a fresh open) sees exactly the committed state
    reopened = Collection.open(index_dir, read_only=True)  # beside the running writer
    assert len(reopened.index) == 50 and reopened.catalog.card("live-1")["title"] == "A replaced title"
    assert not reopened.holds("live-2")
    assert reopened.stats()["vectors"] == client.get("/stats").json()["vectors"]
    reopened.close()


def test_delete_of_a_base_paper_survives_a_reopen(client, index_dir):
    pid = client.post("/search", json={"query": "spectra", "k": 1}).json()["hits"][0]["id"]
    assert client.delete(f"/papers/{pid}", headers=auth()).status_code == 200
    reopened = Collection.open(index_dir, read_only=True)  # beside the running writer
    assert len(reopened.index) == 48 and not reopened.holds(pid)
    assert pid not in {h.id for h in reopened.search(query="spectra", k=48).hits}
    reopened.close()


def test_concurrent_deletes_of_the_same_id(client):
    pid = client.post("/search", json={"query": "spectra", "k": 1}).json()["hits"][0]["id"]
    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(lambda _: client.delete(f"/papers/{pid}", headers=auth()).status_code, range(8)))
    assert sorted(codes) == [200] + [404] * 7
    assert client.get("/stats").json()["papers"] == 48


def test_searches_keep_running_while_papers_are_added(client):
    errors: list[str] = []
    stop = threading.Event()

    def searcher() -> None:
        while not stop.is_set():
            response = client.post("/search", json={"query": "spectra", "k": 10})
            if response.status_code != 200 or len(response.json()["hits"]) != 10:
                errors.append(response.text)

    threads = [threading.Thread(target=searcher) for _ in range(3)]
    for t in threads:
        t.start()
    for batch in range(4):
        papers = [new_paper(f"w{batch}-{i}") for i in range(5)]
        assert client.post("/papers", json={"papers": papers}, headers=auth()).status_code == 200
    stop.set()
    for t in threads:
        t.join()
    assert errors == [] and client.get("/stats").json()["papers"] == 69


def test_bad_writes(client):
    assert client.post("/papers", json={"papers": [{"title": "no id"}]}, headers=auth()).json()["rejected"] == 1
    mixed = client.post("/papers", json={"papers": [new_paper("ok-1"), {"id": "t"}]}, headers=auth()).json()
    assert mixed["added"] == 1 and mixed["rejected"] == 1 and mixed["rejections"][0]["reason"] == "missing_title"
    empty = client.post("/papers", json={"papers": [{"id": "e", "title": ""}]}, headers=auth()).json()
    assert empty["added"] == 0 and empty["rejected"] == 1
    assert client.post("/papers", json={"paper": {}}, headers=auth()).status_code == 422
    too_many = client.post("/papers", json={"papers": [{"id": str(i)} for i in range(1001)]}, headers=auth())
    assert too_many.status_code == 413


def test_upload_a_file_into_the_collection(client, shared_data):
    path = shared_data / "formats" / "jats" / "elife06003.xml"
    response = client.post("/papers/file", files={"file": (path.name, path.read_bytes())}, headers=auth())
    assert response.status_code == 200 and response.json()["added"] == 1 and response.json()["papers"] == 50


def test_api_key_on_writes_and_optionally_on_reads(collection):
    writes_only = TestClient(create_app(collection, ServerSettings(api_key=KEY)), base_url="http://localhost")
    assert writes_only.post("/papers", json={"papers": [new_paper("k1")]}).status_code == 401
    assert writes_only.post("/papers", json={"papers": [new_paper("k1")]},
                            headers={"X-API-Key": "wrong"}).status_code == 401
    assert writes_only.delete("/papers/k1").json()["error"]["code"] == "unauthorized"
    assert writes_only.post("/search", json={"query": "x"}).status_code == 200
    everything = TestClient(create_app(collection, ServerSettings(api_key=KEY, protect_reads=True)),
                            base_url="http://localhost")
    assert everything.post("/search", json={"query": "x"}).status_code == 401
    assert everything.get("/stats").status_code == 401
    assert everything.get("/stats", headers=auth()).status_code == 200
    assert everything.get("/health").status_code == 200 and everything.get("/").status_code == 200


def test_an_index_built_with_another_model_is_refused(index_dir, tmp_path):
    from fakes.models import build_tiny_bert
    from sciembed.models import load_encoder
    from sciembed.retrieval.dense import IndexLoadError

    other = load_encoder(str(build_tiny_bert(tmp_path / "other", ["spectra", "planet"], seed=1)))
    with pytest.raises(IndexLoadError, match="configured model"):
        Collection.open(index_dir, other)


def test_writes_encode_on_a_second_copy_of_the_model_with_the_same_vectors(collection):
    """The served encoder's write copy (`write_encoder` "separate", the default) is another instance of the same
    model and tokenizer, makes the searches' vectors, and encodes the adds; "shared" keeps one copy."""
    client = TestClient(create_app(collection, ServerSettings(api_key=KEY)), base_url="http://localhost")
    batcher = collection.encoder
    search, writes = batcher.encoder, batcher.write_encoder
    assert writes is not None and writes is not search and writes.model is not search.model
    assert writes.model.tokenizer is not search.model.tokenizer and writes.fingerprint == search.fingerprint
    texts = ["Transmission spectroscopy of a hot exoplanet", "we reduce the spectra with a pipeline " * 40]
    assert np.allclose(writes.encode(texts, show_progress=False), search.encode(texts, show_progress=False),
                       atol=1e-5)
    assert client.post("/papers", json={"papers": [new_paper("second-copy")]}, headers=auth()).status_code == 200
    batching = client.get("/stats").json()["batching"]
    assert batching["writes"]["batches"] >= 1 and batching["writes"]["texts"] >= 1 and batching["texts"] == 0
    assert client.post("/search", json={"paper_id": "second-copy", "k": 3}).status_code == 200


def test_a_shared_write_encoder_queues_writes_with_the_searches(index_dir):
    opened = Collection.open(index_dir)
    try:
        client = TestClient(create_app(opened, ServerSettings(api_key=KEY, write_encoder="shared")),
                            base_url="http://localhost")
        assert opened.encoder.write_encoder is None
        assert client.post("/papers", json={"papers": [new_paper("one-copy")]}, headers=auth()).status_code == 200
        batching = client.get("/stats").json()["batching"]
        assert "writes" not in batching and batching["texts"] >= 1
    finally:
        opened.close()


def test_searches_take_turns_at_the_gate_and_writes_pass_it(collection):
    """`searches_at_once` = 1: one search runs at a time, and a one-paper add goes through while it runs."""
    client = TestClient(create_app(collection, ServerSettings(api_key=KEY, searches_at_once=1)),
                        base_url="http://localhost")
    lock, release = threading.Lock(), threading.Event()
    inside, most = [0], [0]
    search = collection.search

    def held(**kwargs):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        try:
            release.wait(30)
            return search(**kwargs)
        finally:
            with lock:
                inside[0] -= 1

    collection.search = held
    with ThreadPoolExecutor(4) as pool:
        searches = [pool.submit(client.post, "/search", json={"query": "spectra", "k": 3}) for _ in range(4)]
        for _ in range(300):  # until one search holds the only turn
            if inside[0]:
                break
            threading.Event().wait(0.01)
        added = client.post("/papers", json={"papers": [new_paper("past-the-gate")]}, headers=auth())
        assert added.status_code == 200 and not release.is_set()
        release.set()
        assert [f.result().status_code for f in searches] == [200] * 4
    assert most[0] == 1

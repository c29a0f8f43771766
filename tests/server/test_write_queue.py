"""Queued adds (`"wait": false`, issue 33 item 14): answered once on disk, indexed by the write queue in order;
nothing acknowledged is lost (a stop, a compaction), nothing deleted or superseded comes back, a paper that
cannot be indexed is kept with its error while the others go on."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from fakes.live_papers import new_paper
from sciembed.index.collection import Collection
from sciembed.papers.model import Paper
from sciembed.server import ServerSettings, create_app

KEY = "s3cret-key"


def auth() -> dict:
    return {"X-API-Key": KEY}


@pytest.fixture()
def paused(collection, monkeypatch):
    """The collection with its write queue's thread held back (papers stay queued until `release`)."""
    wake = collection.queue.wake
    monkeypatch.setattr(collection.queue, "wake", lambda: None)
    collection.release = lambda: (monkeypatch.setattr(collection.queue, "wake", wake), wake())
    return collection


def client_of(collection) -> TestClient:
    return TestClient(create_app(collection, ServerSettings(api_key=KEY)), base_url="http://localhost")


def test_a_queued_add_is_answered_on_disk_and_searchable_once_indexed(paused):
    client = client_of(paused)
    answered = client.post("/papers", json={"papers": [new_paper("q-1"), new_paper("q-2")], "wait": False},
                           headers=auth())
    assert answered.status_code == 200, answered.text
    body = answered.json()
    assert (body["queued"], body["added"], body["waiting"], body["papers"]) == (2, 0, 2, 49)
    assert body["views"] > 0
    gone = client.get("/papers/q-2")
    assert gone.status_code == 404 and "queued to be indexed (1 papers ahead" in gone.text
    assert client.get("/stats").json()["queue"]["waiting"] == 2
    paused.release()
    assert paused.queue.drain(60)
    assert client.get("/papers/q-2").json()["title"].startswith("Transmission")
    hits = client.post("/search", json={"query": "x", "k": 5, "filters": {"venue": "live journal"}}).json()["hits"]
    assert {h["id"] for h in hits} == {"q-1", "q-2"}
    queue = client.get("/stats").json()["queue"]
    assert queue["waiting"] == 0 and queue["failed"] == 0 and queue["indexed_recently"] == 2 and queue["p99_ms"] >= 0


def test_papers_queued_before_a_stop_are_indexed_at_the_next_open(paused, index_dir):
    paused.queue.enqueue([Paper.from_dict(new_paper("kept-1")), Paper.from_dict(new_paper("kept-2"))])
    paused.compact()  # the compacted catalog keeps the queue
    paused.close()
    reopened = Collection.open(index_dir)
    try:
        assert not reopened.holds("kept-1") and reopened.queue.resume() == 2  # what the server does at start
        assert reopened.queue.drain(60)
        assert reopened.holds("kept-1") and reopened.holds("kept-2")
        assert reopened.catalog.pending_counts() == (0, 0)
    finally:
        reopened.close()


def test_a_delete_or_a_direct_add_wins_over_an_older_queued_copy(paused):
    paused.queue.enqueue([Paper.from_dict(new_paper("del-1")), Paper.from_dict(new_paper("rep-1", "Queued title"))])
    assert paused.delete("del-1")  # only queued: still a delete
    paused.add_papers([Paper.from_dict(new_paper("rep-1", "Direct title"))])
    paused.release()
    assert paused.queue.drain(60)
    assert not paused.holds("del-1")
    assert paused.paper("rep-1")["title"] == "Direct title"
    assert paused.catalog.pending_counts() == (0, 0)


def test_a_paper_that_cannot_be_indexed_keeps_its_error_and_the_others_go_on(paused, monkeypatch):
    encode = paused.encode_in_turns

    def failing(texts, *args, **kwargs):
        if any("poison" in t for t in texts):
            raise RuntimeError("the encoder failed on this paper")
        return encode(texts, *args, **kwargs)

    monkeypatch.setattr(paused, "encode_in_turns", failing)
    bad = new_paper("bad-1")
    bad["sections"][0]["text"] = "poison " + bad["sections"][0]["text"]
    papers = [new_paper("ok-1"), bad, new_paper("ok-2")]
    paused.queue.enqueue([Paper.from_dict(p) for p in papers])
    paused.release()
    assert paused.queue.drain(60)
    assert paused.holds("ok-1") and paused.holds("ok-2") and not paused.holds("bad-1")
    assert paused.catalog.pending_counts() == (0, 1)
    failed = client_of(paused).get("/papers/bad-1")
    assert failed.status_code == 422 and "the encoder failed on this paper" in failed.text
    monkeypatch.setattr(paused, "encode_in_turns", encode)
    paused.add_papers([Paper.from_dict(new_paper("bad-1"))])  # added directly: the failed copy is superseded
    assert paused.catalog.pending_counts() == (0, 0) and "queued" not in paused.paper("bad-1")


def test_of_a_paper_queued_twice_the_last_copy_is_indexed(paused):
    paused.queue.enqueue([Paper.from_dict(new_paper("twice", "First copy")),
                          Paper.from_dict(new_paper("twice", "Second copy"))])
    paused.release()
    assert paused.queue.drain(60)
    assert paused.paper("twice")["title"] == "Second copy" and paused.catalog.pending_counts() == (0, 0)

"""Issue 31, item 5: authors and the venue's short name through the API (hits, paper cards, the venue filter)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from sciembed.server import ServerSettings, create_app

KEY = "metadata-key"
TEXT = "exoplanet atmosphere transmission spectra " * 60


def paper(pid: str, venue: str, authors: list) -> dict:
    return {"id": pid, "title": f"Transmission spectroscopy of hot exoplanets ({pid})", "venue": venue,
            "abstract": "We observe the atmosphere of an exoplanet during its transit.", "year": 2017,
            "authors": authors, "sections": [{"heading": "Introduction", "text": TEXT}]}


@pytest.fixture()
def client(collection):
    client = TestClient(create_app(collection, ServerSettings(api_key=KEY)), base_url="http://localhost")
    added = client.post("/papers", headers={"X-API-Key": KEY}, json={"papers": [
        paper("P17-2090", "Natural Language Processing",  # GROBID's cut meeting name; the ACL id says ACL
              ["Ada Lovelace", {"name": "Alan Turing", "affiliation": "University of Manchester"}]),
        paper("mine-emnlp", "Proceedings of the 2017 Conference on Empirical Methods in Natural Language "
                            "Processing", [{"first": "Grace", "middle": ["B."], "last": "Hopper"}]),
    ]})
    assert added.status_code == 200 and added.json()["added"] == 2, added.text
    return client


def test_hits_carry_authors_and_the_short_venue(client):
    hits = client.post("/search", json={"query": "transmission spectroscopy of hot exoplanets", "k": 20,
                                        "filters": {"year_max": 2017}}).json()  # the sample's papers are 2022
    found = {h["id"]: h for h in hits["hits"]}
    assert found["P17-2090"]["authors"] == ["Ada Lovelace", "Alan Turing"]
    assert found["P17-2090"]["venue_short"] == "ACL" and found["P17-2090"]["venue"] == "Natural Language Processing"
    assert found["mine-emnlp"]["venue_short"] == "EMNLP" and found["mine-emnlp"]["authors"] == ["Grace B. Hopper"]


def test_the_venue_filter_takes_the_short_name_or_the_raw_text(client):
    def ids(venue: str) -> set[str]:
        body = {"query": "exoplanet transit", "k": 20, "filters": {"venue": venue}}
        return {h["id"] for h in client.post("/search", json=body).json()["hits"]}

    assert ids("emnlp") == {"mine-emnlp"}
    assert ids("ACL") == {"P17-2090"}
    assert ids("natural language processing") == {"P17-2090"}  # the raw text still matches


def test_the_paper_card_shows_authors_with_affiliations(client):
    card = client.get("/papers/P17-2090").json()
    assert card["authors"] == [{"name": "Ada Lovelace", "affiliation": None},
                               {"name": "Alan Turing", "affiliation": "University of Manchester"}]
    assert card["venue_short"] == "ACL" and card["venue"] == "Natural Language Processing"

"""``DELETE /papers/{id}`` takes what ``GET /papers/{id}`` takes: any letter case or external id; 404 with hints."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from fakes.tei import tei
from sciembed.server import ServerSettings, create_app


@pytest.fixture()
def client(collection):
    return TestClient(create_app(collection, ServerSettings(max_body_bytes=5 << 20, allow_open_writes=True)),
                      base_url="http://localhost")


@pytest.mark.parametrize("key", ["10.1000/exo.9", "https://doi.org/10.1000/EXO.9", "LAB-2024-09"])
def test_delete_by_doi_or_other_case_removes_the_paper(client, key):
    data = tei("Exoplanet atmospheres from transit spectra", "10.1000/exo.9").encode()
    added = client.post("/papers/file", files={"file": ("x.tei.xml", data)}, data={"id": "lab-2024-09"})
    assert added.status_code == 200, added.text
    deleted = client.delete(f"/papers/{key}")
    assert deleted.status_code == 200, deleted.text
    assert deleted.json() == {"deleted": "lab-2024-09"}
    assert client.get("/papers/lab-2024-09").status_code == 404


def test_deleting_an_unknown_paper_suggests_near_ids(client, collection):
    some = next(iter(collection.catalog.titles()))
    typo = some[:-1] + ("0" if some[-1] != "0" else "1")
    response = client.delete(f"/papers/{typo}")
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["message"].startswith(f"no paper {typo!r} in this collection") and "did you mean" in error["message"]
    assert some in [s["id"] for s in error["details"]["suggestions"]]
    assert some in collection.catalog.titles()  # nothing else was deleted

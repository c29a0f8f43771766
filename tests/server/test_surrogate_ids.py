"""Issue 33, defect 7: a lone surrogate in a paper id is a counted reject or a 4xx on every route, never a 500.

The rejection quotes the id; before, the reply could not be encoded, so POST /papers answered 500 after its
good papers were already committed.
"""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from sciembed.server import ServerSettings, create_app

KEY = "k3y-for-tests"
JSON = {"X-API-Key": KEY, "Content-Type": "application/json"}


def record(pid: str) -> dict:
    return {"id": pid, "title": f"Paper {pid} on exoplanet spectra", "abstract": "An exoplanet abstract.",
            "sections": [{"heading": "Introduction", "text": "exoplanet atmosphere spectra " * 60}]}


def with_surrogate_id(*good: str) -> str:
    """A JSON list of papers: the good ids, then one whose id holds a lone surrogate (valid JSON)."""
    return json.dumps([record(g) for g in good] + [record("PLACE")]).replace("PLACE", "bad\\ud800")


def test_surrogate_ids_get_a_reject_or_a_4xx_on_every_route(collection):
    client = TestClient(create_app(collection, ServerSettings(api_key=KEY)), base_url="http://localhost",
                        raise_server_exceptions=False)
    added = client.post("/papers", content='{"papers": ' + with_surrogate_id("ok") + "}", headers=JSON)
    assert added.status_code == 200, added.text
    assert added.json()["added"] == 1 and added.json()["rejected"] == 1
    assert added.json()["rejections"][0]["id"] == "bad\\ud800"
    lines = "\n".join(json.dumps(r) for r in json.loads(with_surrogate_id("ok2"))).encode()
    filed = client.post("/papers/file", files={"file": ("p.jsonl", lines)}, headers={"X-API-Key": KEY})
    assert filed.status_code == 200 and filed.json()["rejected"] == 1, filed.text
    only_bad = json.dumps(record("PLACE")).replace("PLACE", "\\udfff").encode()
    upload = client.post("/search/file", files={"file": ("x.jsonl", only_bad)})
    assert upload.status_code == 400 and "udfff" in upload.text, upload.text
    refused = client.post("/papers/file", files={"file": ("x.jsonl", only_bad)}, headers={"X-API-Key": KEY})
    assert refused.status_code == 400, refused.text
    whole = client.post("/search", content='{"paper": ' + json.dumps(record("P")).replace('"P"', '"\\ud800"') + "}",
                        headers={"Content-Type": "application/json"})
    assert whole.status_code == 422, whole.text
    for path in ("/papers/%ED%A0%80", "/papers/bad%5Cud800"):
        assert client.get(path).status_code in (404, 422)
        assert client.delete(path, headers={"X-API-Key": KEY}).status_code in (404, 422)
    assert client.get("/papers/ok").status_code == 200 and client.get("/papers/ok2").status_code == 200

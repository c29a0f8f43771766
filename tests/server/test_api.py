"""Every read endpoint through FastAPI's test client, and the bad inputs the issue lists."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from sciembed.server import ServerSettings, create_app

QUERY = "exoplanet atmosphere transmission spectroscopy"


@pytest.fixture()
def client(collection):
    return TestClient(create_app(collection, ServerSettings(max_k=20)), base_url="http://localhost")


def test_health_stats_docs_and_page(client):
    assert client.get("/health").json() == {"status": "ok"}
    stats = client.get("/stats").json()
    assert stats["papers"] == 49 and stats["vectors"] == stats["rows"] > 49
    assert stats["index"]["kind"] == "flat" and stats["view"] == "window" and len(stats["fingerprint"]) == 32
    assert "/search" in client.get("/openapi.json").json()["paths"]
    assert client.get("/docs").status_code == 200
    page = client.get("/")
    assert page.status_code == 200 and 'id="query"' in page.text and "/static/app.js" in page.text
    assert "similar papers" in client.get("/static/app.js").text
    assert client.get("/static/..%2Fapp.py").status_code == 404


def test_query_search_hits_have_view_and_snippet(client):
    body = client.post("/search", json={"query": QUERY, "k": 5}).json()
    assert len(body["hits"]) == 5 and body["more"] and body["took_ms"] > 0
    scores = [h["score"] for h in body["hits"]]
    assert scores == sorted(scores, reverse=True)
    for hit in body["hits"]:
        assert hit["title"] and hit["year"] == 2022 and hit["venue"] == "arXiv"
        assert hit["view"] in ("window", "ta") and hit["snippet"]
    assert len({h["id"] for h in body["hits"]}) == 5


def test_offset_paging_is_disjoint_and_consistent(client):
    whole = client.post("/search", json={"query": QUERY, "k": 12}).json()["hits"]
    first = client.post("/search", json={"query": QUERY, "k": 6}).json()["hits"]
    second = client.post("/search", json={"query": QUERY, "k": 6, "offset": 6}).json()["hits"]
    assert [h["id"] for h in first + second] == [h["id"] for h in whole]
    last = client.post("/search", json={"query": QUERY, "k": 10, "offset": 45}).json()
    assert len(last["hits"]) == 4 and not last["more"]


def test_filters_year_venue_domain(client, collection):
    domains = {p[2] for p in collection._fields.values()}
    assert "physics" in domains
    hits = client.post("/search", json={"query": QUERY, "k": 20, "filters": {"domain": "Physics"}}).json()["hits"]
    assert hits and all(h["domain"] == "Physics" for h in hits)
    none = client.post("/search", json={"query": QUERY, "filters": {"year_min": 2023}}).json()
    assert none["hits"] == [] and not none["more"]
    assert client.post("/search", json={"query": QUERY, "filters": {"venue": "nowhere"}}).json()["hits"] == []
    bad = client.post("/search", json={"query": QUERY, "filters": {"year_min": 2023, "year_max": 2020}})
    assert bad.status_code == 422 and "year_min" in bad.json()["error"]["message"]


def test_more_like_this_excludes_the_paper_itself(client):
    pid = client.post("/search", json={"query": QUERY, "k": 1}).json()["hits"][0]["id"]
    body = client.post("/search", json={"paper_id": pid, "k": 5}).json()
    assert len(body["hits"]) == 5 and pid not in [h["id"] for h in body["hits"]]
    assert body["query_views"] > 1  # searched with every stored view of the paper


def test_search_with_a_whole_paper_as_json(client):
    paper = {"id": "mine", "title": "Transmission spectroscopy of a hot exoplanet",
             "abstract": "We observe the atmosphere of an exoplanet during transit.",
             "sections": [{"heading": "Introduction", "text": "Exoplanet atmospheres " * 120}]}
    body = client.post("/search", json={"paper": paper, "k": 3}).json()
    assert len(body["hits"]) == 3 and body["query_views"] >= 2  # TA + a window


def test_get_paper_sections_with_roles(client):
    pid = client.post("/search", json={"query": QUERY, "k": 1}).json()["hits"][0]["id"]
    card = client.get(f"/papers/{pid}").json()
    assert card["id"] == pid and card["sections"] and card["views"] >= 1
    assert {s["role"] for s in card["sections"]} <= {"introduction", "related_work", "method", "results",
                                                     "conclusion", "other"}
    assert "/" not in (card["source"] or "")  # no server file path in a response


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        ({"query": "   "}, 422, "empty"),
        ({"query": QUERY, "k": 0}, 422, "k must be at least 1"),
        ({"query": QUERY, "k": -3}, 422, "k must be at least 1"),
        ({"query": QUERY, "offset": -1}, 422, "offset"),
        ({"query": QUERY, "offset": 10**6}, 422, "offset"),
        ({}, 422, "exactly one of"),
        ({"query": QUERY, "paper_id": "x"}, 422, "exactly one of"),
        ({"query": QUERY, "colour": "red"}, 422, "colour"),
        ({"paper_id": "no-such-paper"}, 404, "no-such-paper"),
        ({"paper": {"title": "no id"}}, 422, "not a paper"),
    ],
)
def test_bad_search_requests_get_structured_errors(client, body, status, needle):
    response = client.post("/search", json=body)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert needle in error["message"] and error["code"]
    assert "Traceback" not in response.text


def test_huge_k_is_clamped_with_a_note(client):
    body = client.post("/search", json={"query": QUERY, "k": 10**9}).json()
    assert body["k"] == 20 and len(body["hits"]) == 20 and "clamped" in body["notes"][0]


def test_malformed_json_and_unknown_paper(client):
    response = client.post("/search", content=b'{"query": "x", ', headers={"content-type": "application/json"})
    assert response.status_code == 422 and response.json()["error"]["code"] == "invalid_request"
    missing = client.get("/papers/nope")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert missing.json()["error"]["message"].startswith("no paper 'nope' in this collection")
    assert client.get("/no/such/route").json()["error"]["code"] == "not_found"


def test_internal_errors_never_show_a_traceback(collection):
    def broken(**_):
        raise RuntimeError("secret internals")

    collection.search = broken
    client = TestClient(create_app(collection), raise_server_exceptions=False, base_url="http://localhost")
    response = client.post("/search", json={"query": QUERY})
    assert response.status_code == 500 and "secret" not in response.text and "Traceback" not in response.text


def test_cors_is_off_by_default(client, collection):
    headers = {"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}
    assert "access-control-allow-origin" not in client.options("/search", headers=headers).headers
    opened = TestClient(create_app(collection, ServerSettings(cors_origins=("http://ok.example",))),
                        base_url="http://localhost")
    allowed = opened.options("/search", headers={**headers, "Origin": "http://ok.example"})
    assert allowed.headers["access-control-allow-origin"] == "http://ok.example"


def test_concurrent_searches_are_gathered_and_answer_as_alone(collection):
    """The service searches concurrent queries together (one index search) with each query's own hits."""
    from concurrent.futures import ThreadPoolExecutor

    queries = [f"{QUERY} {word}" for word in ("dust", "clouds", "hydrogen", "transit", "stellar", "noise")]
    alone = {q: collection.search(query=q, k=8).hits for q in queries}
    paper_id = next(iter(alone.values()))[0].id
    like_alone = collection.search(paper_id=paper_id, k=8).hits
    create_app(collection, ServerSettings())  # puts the encoder behind the batcher and gathers searches
    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(lambda q: collection.search(query=q, k=8), queries * 3))
        like = pool.submit(collection.search, paper_id=paper_id, k=8).result()

    def same(hits, expected):  # a query encoded in a batch differs from one encoded alone by float rounding
        assert [h.id for h in hits] == [h.id for h in expected]
        assert [h.score for h in hits] == pytest.approx([h.score for h in expected], abs=1e-4)

    for query, result in zip(queries * 3, together, strict=True):
        same(result.hits, alone[query])
    same(like.hits, like_alone)
    gathered = collection.gathering_stats()
    assert gathered["searches"] == len(together) + 1 and gathered["calls"] < gathered["searches"]

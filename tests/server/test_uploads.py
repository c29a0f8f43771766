"""Uploads: every real format searches; non-papers, truncated files, XML bombs and huge bodies are refused."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient

from sciembed.server import ServerSettings, create_app
from sciembed.server.uploads import safe_suffix

FILES = [
    "jats/elife06003.xml",
    "jats/pone.0000217.nxml",
    "grobid-tei/2020.acl-main.207.tei.xml",
    "s2orc/N18-3011.json",
    "science-parse/peerread_iclr_2017_train_304.pdf.json",
]

BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
<!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
<!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
<!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
<!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
<!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
<!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]>
<article><front><article-meta><title-group><article-title>&lol9;</article-title></title-group>
</article-meta></front></article>"""

EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE article [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<article><front><article-meta><title-group><article-title>&xxe;</article-title></title-group>
<article-id pub-id-type="doi">10.1/x</article-id></article-meta></front></article>"""


@pytest.fixture()
def client(collection):
    settings = ServerSettings(max_body_bytes=5 << 20, allow_open_writes=True)
    return TestClient(create_app(collection, settings), base_url="http://localhost")


@pytest.mark.parametrize("name", FILES)
def test_every_real_format_searches(client, shared_data, name):
    path = shared_data / "formats" / name
    response = client.post("/search/file", files={"file": (path.name, path.read_bytes())}, data={"k": "3"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert len(body["hits"]) == 3 and body["paper"]["title"] and body["query_views"] >= 1


def test_upload_with_filters_and_paging(client, shared_data):
    path = shared_data / "formats" / FILES[0]
    page2 = client.post("/search/file", files={"file": (path.name, path.read_bytes())},
                        data={"k": "2", "offset": "2", "domain": "Physics"}).json()
    assert page2["offset"] == 2 and all(h["domain"] == "Physics" for h in page2["hits"])


@pytest.mark.parametrize(
    ("content", "filename", "needle"),
    [
        (b"just some words, not a paper", "notes.txt", "unknown_format"),
        (b'{"hello": "world"}', "x.json", "unknown_format"),
        (b"", "empty.json", "empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "figure.png", "unknown_format"),
    ],
)
def test_not_a_paper_is_400_with_the_readers_reason(client, content, filename, needle):
    response = client.post("/search/file", files={"file": (filename, content)})
    assert response.status_code == 400, response.text
    assert needle in response.json()["error"]["message"] or needle in str(response.json()["error"].get("details"))


def test_truncated_files_are_400(client, shared_data):
    for name in ("jats/pntd.0002065.nxml", "s2orc/s2orc_20190928_10002293.json"):
        data = (shared_data / "formats" / name).read_bytes()
        response = client.post("/search/file", files={"file": (name.split("/")[1], data[: len(data) // 3])})
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] == "not_a_paper"


def test_xml_bomb_and_external_entity_do_not_expand(client):
    started = time.perf_counter()
    response = client.post("/search/file", files={"file": ("bomb.xml", BOMB)})
    assert response.status_code == 400 and time.perf_counter() - started < 10
    leak = client.post("/search/file", files={"file": ("xxe.nxml", EXTERNAL)})
    assert "root:" not in leak.text
    assert client.get("/health").status_code == 200


def test_hundred_megabyte_upload_is_413_before_reading(client):
    response = client.post("/search/file", files={"file": ("big.json", b"x" * (100 << 20))})
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large" and "limit" in response.json()["error"]["message"]
    assert client.get("/health").status_code == 200


def test_the_clients_file_name_never_becomes_a_path(client, shared_data, tmp_path):
    data = (shared_data / "formats" / FILES[0]).read_bytes()
    response = client.post("/search/file", files={"file": ("../../../../tmp/evil.xml", data)})
    assert response.status_code == 200
    assert safe_suffix("../../etc/passwd", b"{") == ".json"
    assert safe_suffix("..\\..\\x.tei.xml.gz", b"\x1f\x8b") == ".tei.xml.gz"

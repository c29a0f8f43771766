"""Compaction: hidden rows dropped, results unchanged, and a process killed at any step leaves before or after."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from sciembed.cli.main import app as cli
from sciembed.index.collection import Collection
from sciembed.index.compaction import JOURNAL, compact_dir
from sciembed.papers.model import Paper
from sciembed.server import ServerSettings, create_app

BASE = 49  # papers in the test collection
KEY = "k3y"


def paper(pid: str, topic: str) -> Paper:
    return Paper.from_dict({
        "id": pid, "title": f"{topic} of a hot exoplanet", "abstract": f"We study the {topic} during transit.",
        "year": 2024, "sections": [{"heading": "Introduction", "text": f"{topic} atmosphere spectra " * 90}]})


def churn(index_dir: Path) -> dict:
    """Add 6 papers, replace 3 of them, delete 2 (one added, one of the base): hidden rows left behind."""
    collection = Collection.open(index_dir)
    try:
        collection.add_papers([paper(f"live-{i}", "spectra") for i in range(6)])
        collection.add_papers([paper(f"live-{i}", "winds") for i in range(3)])
        collection.delete("live-5")
        collection.delete(collection.index.papers[0])
        return snapshot(collection)
    finally:
        collection.close()


def snapshot(collection: Collection) -> dict:
    """What must not change across a compaction (papers, results, cards) and the row count that does."""
    results = [collection.search(query=q, k=8) for q in ("winds of a planet", "spectra")]
    results.append(collection.search(paper_id="live-1", k=5))
    stats = collection.stats()
    return {
        "rows": stats["rows"], "vectors": stats["vectors"], "papers": stats["papers"],
        "catalog_papers": collection.catalog.count_papers(),
        "results": [[(h.id, round(h.score, 5), h.view, h.snippet) for h in r.hits] for r in results],
        "card": collection.paper("live-1"),
    }


def reopened(index_dir: Path) -> dict:
    collection = Collection.open(index_dir)
    try:
        return snapshot(collection)
    finally:
        collection.close()


def test_compaction_drops_hidden_rows_and_keeps_every_result(index_dir):
    before = churn(index_dir)
    assert before["rows"] > before["vectors"]  # replaced and deleted views are still rows
    result = compact_dir(index_dir)
    assert result.rows_before == before["rows"] and result.rows_after == before["vectors"]
    after = reopened(index_dir)
    assert after["rows"] == after["vectors"] == before["vectors"]
    assert {k: v for k, v in after.items() if k != "rows"} == {k: v for k, v in before.items() if k != "rows"}
    collection = Collection.open(index_dir)  # writes go on after a compaction, and survive a reopen
    try:
        assert collection.stats()["hidden_rows"] == 0
        collection.add_papers([paper("late-1", "clouds")])
        collection.delete("live-0")
    finally:
        collection.close()
    again = reopened(index_dir)
    assert again["papers"] == before["papers"] and again["rows"] == again["vectors"] + 1  # live-0's one row hidden


KILLER = """
import os, signal, sys
from sciembed.index.compaction import compact_dir
target = sys.argv[2]
compact_dir(sys.argv[1], step=lambda name: os.kill(os.getpid(), signal.SIGKILL) if name == target else None)
"""


def kill_compaction_at(index_dir: Path, step: str) -> None:
    """Compact in a child process that SIGKILLs itself at `step`."""
    child = subprocess.run([sys.executable, "-c", KILLER, str(index_dir), step], env=os.environ.copy(),
                           capture_output=True, timeout=120)
    assert child.returncode == -9, child.stderr.decode()[-2000:]


@pytest.mark.parametrize(("step", "outcome"), [
    ("index_written", "before"), ("catalog_written", "before"),  # before the journal: rolled back
    ("journal_written", "after"), ("index_swapped", "after"), ("files_swapped", "after"),  # redone from it
])
def test_killed_during_compaction_leaves_before_or_after(index_dir, step, outcome):
    before = churn(index_dir)
    kill_compaction_at(index_dir, step)
    assert (index_dir / JOURNAL).exists() == (outcome == "after")
    state = reopened(index_dir)  # opening settles the interrupted compaction
    assert not (index_dir / JOURNAL).exists() and not (index_dir / "index.compact").exists()
    assert state["rows"] == (before["rows"] if outcome == "before" else before["vectors"])
    assert {k: v for k, v in state.items() if k != "rows"} == {k: v for k, v in before.items() if k != "rows"}


def test_compact_endpoint_cli_lock_and_automatic(index_dir):
    churn(index_dir)
    collection = Collection.open(index_dir)
    try:
        refused = CliRunner().invoke(cli, ["index", "compact", str(index_dir)])
        assert refused.exit_code == 2 and "open in another process" in refused.output
        client = TestClient(create_app(collection, ServerSettings(api_key=KEY)), base_url="http://localhost")
        assert client.post("/compact").status_code == 401
        first = client.post("/search", json={"query": "winds", "k": 10}).json()["hits"]
        done = client.post("/compact", headers={"X-API-Key": KEY})
        assert done.status_code == 200 and done.json()["rows_after"] == collection.stats()["vectors"]
        stats = client.get("/stats").json()
        assert stats["hidden_rows"] == 0 and stats["hidden_share"] == 0
        assert client.post("/search", json={"query": "winds", "k": 10}).json()["hits"] == first
    finally:
        collection.close()
    ran = CliRunner().invoke(cli, ["index", "compact", str(index_dir)])
    assert ran.exit_code == 0 and "rows ->" in ran.output, ran.output + repr(ran.exception)
    auto = Collection.open(index_dir, auto_compact=0.001)
    try:
        auto.add_papers([paper("live-1", "haze")])  # a replacement: its old rows go at once
        assert auto.stats()["hidden_rows"] == 0 and auto.stats()["papers"] == BASE + 6 - 2
    finally:
        auto.close()


QUERY = "winds of a hot exoplanet during transit"


def test_cli_search_sees_live_updates_and_settles_an_interrupted_compaction(index_dir):
    """`sciembed search` on a served collection: live adds found, deleted papers gone, a killed compaction redone."""
    churn(index_dir)  # live-0..4 added (live-0..2 replaced: title twins), live-5 and a base paper deleted
    collection = Collection.open(index_dir)
    try:
        expected = [h.id for h in collection.search(query=QUERY, k=5).hits]
        deleted = sorted(set(collection.index.dense.ids) - set(collection.index.papers))
        papers = collection.stats()["papers"]
    finally:
        collection.close()
    assert "live-5" in deleted and len(deleted) == 2
    kill_compaction_at(index_dir, "journal_written")
    assert (index_dir / JOURNAL).exists()
    ran = CliRunner().invoke(cli, ["index", "search", str(index_dir), "--query", QUERY, "--k", "5",
                                   "--output-format", "json"])
    assert ran.exit_code == 0, ran.output + repr(ran.exception)
    assert not (index_dir / JOURNAL).exists()  # settled by the search, rolled forward
    assert [h["paper_id"] for h in json.loads(ran.output)[0]["hits"]] == expected
    like = CliRunner().invoke(cli, ["index", "search", str(index_dir), "--paper", "live-1", "--k", str(papers),
                                    "--output-format", "json"])
    assert like.exit_code == 0, like.output + repr(like.exception)
    ranked = [h["paper_id"] for h in json.loads(like.output)[0]["hits"]]
    assert sorted(ranked[:2]) == ["live-3", "live-4"]  # the other live papers first (live-0, -2: its title twins)
    assert len(ranked) == papers - 3 and not {*deleted, "live-0", "live-2"} & set(ranked)
    gone = CliRunner().invoke(cli, ["index", "search", str(index_dir), "--paper", "live-5"])
    assert gone.exit_code == 2 and "no paper 'live-5' in the index" in " ".join(gone.output.split())

"""Kill a writer mid-add: on restart the collection is the state before the add or after it, never half.

Real processes and SIGKILL: one server killed while a batch is being added over HTTP, and one writer killed
at the worst moment, with the add's SQLite transaction written but not committed.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from sciembed.index.collection import Collection

BASE = 49  # papers in the test collection


def batch(n: int, tag: str) -> list[dict]:
    return [{"id": f"{tag}-{i}", "title": f"Spectra of planet {i}", "abstract": "transit spectra of exoplanets",
             "sections": [{"heading": "Introduction", "text": "we measure the spectra " * 80}]} for i in range(n)]


def assert_consistent(index_dir: Path) -> int:
    """The reopened collection: catalog and index agree paper for paper; returns the paper count."""
    reopened = Collection.open(index_dir)
    try:
        in_catalog = reopened.catalog.count_papers()
        assert len(reopened.index) == in_catalog
        assert all(reopened.holds(pid) for pid in reopened.catalog.filter_fields())
        return in_catalog
    finally:
        reopened.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_server_killed_during_an_add(index_dir):
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "sciembed.cli.main", "index", "serve", str(index_dir), "--port", str(port),
         "--allow-open-writes"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ.copy(),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 300  # a cold start (torch, the model) under a loaded machine took over 120 s
        while time.time() < deadline and server.poll() is None:
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        else:
            server.kill()  # before reading its stderr: a live server's pipe never ends
            raise AssertionError("server did not start: " + server.communicate(timeout=30)[1].decode()[-2000:])
        done = httpx.post(url + "/papers", json={"papers": batch(5, "first")}, timeout=60)
        assert done.status_code == 200 and done.json()["papers"] == BASE + 5  # answered: must survive the kill
        queued = httpx.post(url + "/papers", json={"papers": batch(20, "queued"), "wait": False}, timeout=60)
        assert queued.status_code == 200 and queued.json()["queued"] == 20  # acknowledged: on disk, maybe unindexed

        outcome: dict = {}

        def writer() -> None:
            try:
                outcome["response"] = httpx.post(url + "/papers", json={"papers": batch(300, "big")}, timeout=60)
            except httpx.TransportError as err:
                outcome["error"] = err

        thread = threading.Thread(target=writer)
        thread.start()
        time.sleep(1.0)  # the batch is being parsed / encoded / written
        server.send_signal(signal.SIGKILL)
        thread.join(30)
    finally:
        server.kill()
        server.wait(10)
    count = assert_consistent(index_dir)
    reopened = Collection.open(index_dir)
    try:
        indexed_before_the_kill = sum(reopened.holds(f"queued-{i}") for i in range(20))
        assert count - indexed_before_the_kill in (BASE + 5, BASE + 5 + 300)
        if "response" in outcome and outcome["response"].status_code == 200:
            assert count - indexed_before_the_kill == BASE + 5 + 300  # an answered add is on disk
        reopened.queue.resume()  # what the next `serve` does: every acknowledged queued paper gets indexed
        assert reopened.queue.drain(120)
        assert all(reopened.holds(f"queued-{i}") for i in range(20))
    finally:
        reopened.close()


CHILD = """
import os, sys, json, time
from sciembed.papers.model import Paper
from sciembed.index.collection import Collection

index_dir, marker, mode = sys.argv[1], sys.argv[2], sys.argv[3]
collection = Collection.open(index_dir)

class Hang:
    def __init__(self, con): self.con = con
    def __getattr__(self, name): return getattr(self.con, name)
    def execute(self, sql, *args):
        if sql == "COMMIT":
            open(marker, "w").write("in transaction")
            time.sleep(600)
        return self.con.execute(sql, *args)

if mode == "hang":
    collection.catalog._writer = Hang(collection.catalog._writer)
papers = [Paper.from_dict(p) for p in json.loads(sys.argv[4])]
collection.add_papers(papers)
open(marker, "w").write("added")
os._exit(0)  # no clean shutdown
"""


def run_child(index_dir: Path, tmp_path: Path, mode: str, papers: list[dict]) -> None:
    marker = tmp_path / f"marker-{mode}"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(index_dir), str(marker), mode, json.dumps(papers)],
                             env=os.environ.copy(), stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while not marker.exists() and child.poll() is None and time.time() < deadline:
        time.sleep(0.1)
    assert marker.exists(), child.stderr.read().decode()[-2000:]
    child.send_signal(signal.SIGKILL)
    child.wait(10)


def test_writer_killed_inside_the_transaction_leaves_the_previous_state(index_dir, tmp_path):
    run_child(index_dir, tmp_path, "hang", batch(20, "half"))
    assert assert_consistent(index_dir) == BASE
    run_child(index_dir, tmp_path, "full", batch(20, "whole"))
    assert assert_consistent(index_dir) == BASE + 20

"""A warm `sciembed index search --server URL` before and after a change, side by side in one run.

One server (this tree's `sciembed index serve IDX`) answers both; each side's CLI is the same console script
with ``PYTHONPATH`` at that side's ``src/`` (revision `before` exported with ``git archive``, and this tree).
Queries alternate between the sides (which goes first alternates too), so both see the same load; the load
average is recorded at every round, and each query's HTTP time straight from this process beside it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import numpy as np

from local_server import wait_up

ROOT = Path(__file__).resolve().parents[1]


def revision(rev: str) -> str:
    """The commit `rev` names, ``+dirty`` when it is this tree's HEAD and src/ has uncommitted changes."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", rev], capture_output=True, text=True,
                         check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "src"], capture_output=True,
                           text=True, check=True).stdout.strip()
    return sha + ("+dirty" if rev == "HEAD" and dirty else "")


def export_src(rev: str, into: Path) -> Path:
    """src/ of revision `rev`, written under `into`."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into / "src"


def _stats(values: list[float]) -> dict[str, float]:
    a = np.asarray(values)
    return {"p50": round(float(np.percentile(a, 50)), 3), "p90": round(float(np.percentile(a, 90)), 3),
            "min": round(float(a.min()), 3), "max": round(float(a.max()), 3)}


def _post_ms(url: str, query: str) -> float:
    request = urllib.request.Request(url + "/search", data=json.dumps({"query": query, "k": 10}).encode(),
                                     headers={"Content-Type": "application/json"})
    start = time.perf_counter()
    urllib.request.urlopen(request, timeout=120).read()
    return round(1000 * (time.perf_counter() - start), 2)


def compare_revisions(index: Path, before: str, runs: int, port: int, queries: list[str],
                      sciembed: Callable[..., float], cpu_s: list[float]) -> dict:
    """Wall and CPU seconds of `runs` warm `--server` queries per side; `sciembed(*args, env=)` times one
    command and appends its CPU seconds to `cpu_s`."""
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="warm-cli-") as tmp:
        sides = {"before": export_src(before, Path(tmp)), "after": ROOT / "src"}
        envs = {name: {**os.environ, "PYTHONPATH": str(src), "HF_HUB_OFFLINE": "1"} for name, src in sides.items()}
        server = subprocess.Popen([str(Path(sys.executable).with_name("sciembed")), "index", "serve", str(index),
                                   "--port", str(port)], env=envs["after"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
        times: dict[str, dict[str, list[float]]] = {name: {"wall_s": [], "cpu_s": []} for name in sides}
        http_ms, loads = [], []
        started = os.getloadavg()
        try:
            wait_up(url, server, poll_s=0.2)
            for name in sides:  # warm-up: the page cache holds each side's files
                sciembed("index", "search", "--server", url, "--query", "warm up", env=envs[name])
            for i in range(runs):
                query = queries[i % len(queries)] + f" {i}"  # never a server cache hit
                http_ms.append(_post_ms(url, query + " http"))
                for name in (("before", "after") if i % 2 == 0 else ("after", "before")):
                    wall = sciembed("index", "search", "--server", url, "--query", query, "--k", "10",
                                    env=envs[name])
                    times[name]["wall_s"].append(round(wall, 3))
                    times[name]["cpu_s"].append(round(cpu_s[-1], 3))
                loads.append(round(os.getloadavg()[0], 2))
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(30)
    manifest = json.loads((index / "manifest.json").read_text())
    revisions = {"before": revision(before), "after": revision("HEAD")}
    return {"what": "warm `sciembed index search --server URL --query TEXT --k 10` (table output), one server, "
                    "the two revisions' CLIs interleaved query by query; wall and CPU (user+system) seconds per "
                    "call, the load average (1 min) after each round",
            "index": {"papers": manifest["counts"], "views": manifest["views"]},
            "server_revision": revisions["after"], "queries_per_side": runs,
            **{name: {"revision": revisions[name], **times[name],
                      **{f"{k}_wall_s": v for k, v in _stats(times[name]["wall_s"]).items()},
                      **{f"{k}_cpu_s": v for k, v in _stats(times[name]["cpu_s"]).items()}} for name in sides},
            "http_query_ms": http_ms, "load_average_start": started, "load_average_per_round": loads,
            "load_average_end": os.getloadavg(), "cpus": os.cpu_count(), "goal_s": 1.0, "aim_s": 0.5}

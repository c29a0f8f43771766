"""The README path as a newcomer runs it, timed: ingest the ACL TEI folder, one `index build` (the full-text
default), three searches (by text, by paper id, by text again), then the warm query through `index serve`.

Every step is the `sciembed` command a user types, run as a subprocess, so each time includes what the user
waits for (Python start, imports, model and index loads). The load average is recorded before and after each
step, and each command's CPU seconds beside its wall time: the box is shared.

    nice -n 10 .venv/bin/python benchmarks/newcomer.py [--limit 600] [--work runs/newcomer]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from sciembed.ioutil.portable import portable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from local_server import free_port, wait_up

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "acl-grobid" / "tei"
QUERY = "neural machine translation with attention for low-resource languages"
BUILD = "index build (full-text default)"
QUERY_2 = "dependency parsing with graph-based neural models"


def sciembed() -> list[str]:
    return [str(Path(sys.executable).with_name("sciembed"))]


def step(name: str, args: list[str], log: list[dict], env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run one `sciembed` command, timed; its output lines kept (the progress lines: estimate and ETA)."""
    load = os.getloadavg()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([*sciembed(), *args], capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    lines = (done.stdout + done.stderr).splitlines()
    log.append({"step": name, "command": "sciembed " + " ".join(args), "seconds": round(seconds, 2),
                "cpu_seconds": round(cpu, 2),
                "exit_code": done.returncode, "load_average_before": load, "load_average_after": os.getloadavg(),
                "output_head": lines[:12], "output_tail": lines[-8:]})
    print(f"{name}: {seconds:.1f} s, CPU {cpu:.1f} s (exit {done.returncode}, load {load[0]:.1f})", flush=True)
    if done.returncode != 0:
        print(done.stdout + done.stderr, file=sys.stderr)
        raise SystemExit(f"{name} failed")
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=0, help="Only the first N TEI files (a loaded box).")
    parser.add_argument("--work", type=Path, default=ROOT / "runs" / "newcomer")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "newcomer.json")
    parser.add_argument("--searches-only", action="store_true", help="Keep the ingest and build of --out (same "
                        "--work) and time the searches again.")
    args = parser.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "SCIEMBED_PROGRESS_EVERY_S": "30"}
    corpus, index = args.work / "acl", args.work / "acl-index"
    log: list[dict] = []
    started = os.getloadavg()
    if args.searches_only:
        log = [s for s in json.loads(args.out.read_text())["steps"] if s["step"] in ("ingest", BUILD)]
    else:
        shutil.rmtree(args.work, ignore_errors=True)
        args.work.mkdir(parents=True)
        source = args.data
        if args.limit:
            source = args.work / "tei"
            source.mkdir()
            for path in sorted(args.data.iterdir())[: args.limit]:
                shutil.copy(path, source / path.name)
        step("ingest", ["corpus", "ingest", str(source), "--out", str(corpus)], log, env)
        step(BUILD, ["index", "build", str(corpus), "--out", str(index)], log, env)
    papers = json.loads((index / "ta" / "papers.json").read_text())
    paper_id = sorted(papers)[len(papers) // 2]
    step("search by text (cold CLI)", ["index", "search", str(index), "--query", QUERY, "--k", "5"], log, env)
    step("search by paper id (CLI)", ["index", "search", str(index), "--paper", paper_id, "--k", "5"], log, env)
    step("search by text again (CLI, files cached)", ["index", "search", str(index), "--query", QUERY_2, "--k", "5"],
         log, env)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([*sciembed(), "index", "serve", str(index), "--port", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        try:
            serve_ready_s = wait_up(url, server, poll_s=0.2)
        except RuntimeError as err:
            raise SystemExit(f"index serve: {err}") from None
        [step(f"search --server (warm) {i}", ["index", "search", "--server", url, "--query", q, "--k", "5"],
                     log, env) for i, q in enumerate((QUERY, QUERY_2, QUERY))]
        step("search --server by paper id (warm)", ["index", "search", "--server", url, "--paper", paper_id,
                                                     "--k", "5"], log, env)
        http_ms = []
        for q in (QUERY, QUERY_2, "sentiment analysis of tweets", "coreference resolution"):
            body = json.dumps({"query": q, "k": 5}).encode()
            request = urllib.request.Request(url + "/search", data=body, headers={"Content-Type": "application/json"})
            t0 = time.perf_counter()
            urllib.request.urlopen(request, timeout=60).read()
            http_ms.append(round(1000 * (time.perf_counter() - t0), 1))
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(30)
    manifest = json.loads((index / "manifest.json").read_text())
    build = next(s for s in log if s["step"] == BUILD)
    result = {
        "what": "the README path on the ACL GROBID folder: ingest, one `index build` (full-text default), "
                "searches by text and by paper id, then warm queries through `index serve` (`--server`)",
        "subset": (f"first {args.limit} TEI files of {len(list(args.data.iterdir()))} (the box was too loaded for "
                   "the whole folder)") if args.limit else None,
        "papers": manifest["counts"], "views": manifest["views"], "encoder": manifest["encoder"].get("backend"),
        "quantize": manifest["encoder"].get("quantize"), "build_timings": manifest["timings"],
        "index_build_s": build["seconds"], "goal_index_build_s": 600,
        "estimate_line": next((line for line in build["output_head"] + build["output_tail"]
                               if "on this machine" in line), None),
        "serve_ready_s": round(serve_ready_s, 1),
        "warm_cli_query_s": [w["seconds"] for w in log if w["step"].startswith("search --server (warm)")],
        "warm_cli_query_cpu_s": [w["cpu_seconds"] for w in log if w["step"].startswith("search --server (warm)")],
        "warm_http_query_ms": http_ms, "goal_warm_query_s": 1.0,
        "steps": log, "cpus": os.cpu_count(), "load_average_start": started, "load_average_end": os.getloadavg(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(portable(result, in_text=True), indent=1) + "\n")
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()

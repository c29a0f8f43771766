"""Both service benchmarks in one run: `ann.py` then `serve.py`, one run id, one machine record, one summary.

    python benchmarks/service_suite.py                      # full: 1M vectors; 100k papers, 32 clients, +10k papers
    python benchmarks/service_suite.py --small              # minutes: 100k vectors; 5k papers, 8 clients, +1k papers
    python benchmarks/service_suite.py --ann-args "--hnsw-variants flat:40" --serve-args "--seconds 30"

The two run one after the other (never at the same time: each would slow the
other) as separate processes, so neither inherits the other's memory. Each
writes its own JSON (``--ann-out``, ``--serve-out``) carrying the shared
``run_id``; ``--out`` gets the summary: run id, start and end, machine, git
commit, both commands, and the headline figures of each.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

from sciembed.ioutil.portable import portable_path, portable_text

HERE = Path(__file__).resolve().parent
FULL = {
    "ann": "--n 1000000 --queries 500 --hnsw-variants flat:80,flat:40",  # sq8:40 lost recall at 100k (0.977 cap)
    "serve": "--papers 100000 --clients 32 --seconds 60 --add 10000 --batch 100",
}
SMALL = {
    "ann": "--n 100000 --queries 300 --nlist 256 --train 20000 --hnsw-chunk 25000 --hnsw-budget 400",
    "serve": "--papers 5000 --clients 8 --seconds 15 --add 1000 --batch 100",
}


def machine() -> dict:
    info = {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
            "load_average": [round(x, 2) for x in os.getloadavg()]}
    try:
        import psutil

        info["memory_gb"] = round(psutil.virtual_memory().total / 2**30, 1)
    except ImportError:
        pass
    try:
        import faiss

        info["faiss"] = faiss.__version__
    except ImportError:
        pass
    return info


def git_commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=HERE).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def run(script: str, args: str, out: Path, run_id: str) -> tuple[list[str], float]:
    command = [sys.executable, str(HERE / script), *shlex.split(args), "--run-id", run_id, "--out", str(out)]
    print("$", shlex.join(command), flush=True)
    started = time.perf_counter()
    subprocess.run(command, check=True)
    return command, round(time.perf_counter() - started, 1)


def best(rows: list[dict], goal: float = 0.95) -> dict | None:
    """The fastest setting (p50) that reaches recall@10 ≥ `goal`."""
    good = [r for r in rows if r["recall@10"] >= goal]
    return min(good, key=lambda r: r["p50_ms"]) if good else None


def headline(ann: dict, serve: dict) -> dict:
    res = ann["results"]
    out: dict = {"flat_p50_ms": res["flat"]["search"][0]["p50_ms"]}
    if "ivf-pq" in res:
        ivf = res["ivf-pq"]
        out["ivf_pq"] = {"memory_vs_flat": ivf["memory_vs_flat"], "best_recall@10": max(
            r["recall@10"] for r in ivf["search"])}
        for refine, rows in ivf["refined"].items():
            out[f"ivf_pq_refine_{refine}"] = {"memory_vs_flat": rows["memory_vs_flat"],
                                              "fastest_at_recall@10>=0.95": best(rows["search"])}
    for variant, h in res.get("hnsw", {}).items():
        out[f"hnsw_{variant}"] = {"n": h["n"], "complete": h["complete"], "build_s": h["build_s"],
                                  "fastest_at_recall@10>=0.95": best(h["search"])}
    out["serve_reads"] = {k: serve["reads"][k] for k in ("requests_per_s", "p50_ms", "p99_ms", "errors")}
    out["serve_reads_while_writing"] = {k: serve["reads_while_writing"][k]
                                        for k in ("requests_per_s", "p50_ms", "p99_ms", "errors")}
    out["serve_writer"] = {k: serve["writer"][k] for k in ("added", "target", "complete", "papers_per_s", "seconds")}
    out["serve_memory_mb"] = serve["server_memory"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="the small preset (a few minutes on 2 cores)")
    parser.add_argument("--ann-args", default=None, help="arguments for ann.py (default: the preset's)")
    parser.add_argument("--serve-args", default=None, help="arguments for serve.py (default: the preset's)")
    parser.add_argument("--ann-out", type=Path, default=None, help="default results/ann.json (--small: ann_small)")
    parser.add_argument("--serve-out", type=Path, default=None, help="default results/serve.json (serve_small)")
    parser.add_argument("--out", type=Path, default=None, help="default results/service_suite.json (…_small)")
    args = parser.parse_args()
    preset = SMALL if args.small else FULL
    tag = "_small" if args.small else ""
    args.ann_out = args.ann_out or HERE / "results" / f"ann{tag}.json"
    args.serve_out = args.serve_out or HERE / "results" / f"serve{tag}.json"
    args.out = args.out or HERE / "results" / f"service_suite{tag}.json"

    commit = git_commit()  # the code the run starts with (a commit made during the run would not be it)
    run_id = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + (f"-{commit}" if commit else "")
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    before = machine()
    ann_cmd, ann_s = run("ann.py", args.ann_args or preset["ann"], args.ann_out, run_id)
    serve_cmd, serve_s = run("serve.py", args.serve_args or preset["serve"], args.serve_out, run_id)
    ann, serve = json.loads(args.ann_out.read_text()), json.loads(args.serve_out.read_text())
    summary = {
        "benchmark": "service_suite",
        "run_id": run_id,
        "preset": "small" if args.small else "full",
        "started": started,
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine_at_start": before,
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "git_commit": commit,
        "runs": {"ann": {"command": portable_text(shlex.join(ann_cmd)), "seconds": ann_s,
                         "out": portable_path(args.ann_out)},
                 "serve": {"command": portable_text(shlex.join(serve_cmd)), "seconds": serve_s,
                           "out": portable_path(args.serve_out)}},
        "headline": headline(ann, serve),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary["headline"], indent=2))
    print(f"wrote {args.ann_out}, {args.serve_out}, {args.out}")


if __name__ == "__main__":
    main()

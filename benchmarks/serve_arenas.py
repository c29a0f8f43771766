"""Server memory with glibc's default malloc arenas vs the cap `sciembed index serve` sets (2), in one run.

    python benchmarks/serve_arenas.py --out benchmarks/results/serve_arenas.json

Runs `benchmarks/serve.py` twice with the same seeded collection, clients and
writer: once with ``MALLOC_ARENA_MAX=16`` (glibc's default on 2 cores: 8 per
core; a user's setting wins over the server's cap) and once without it (the
server caps arenas at 2). Reports each run's server memory before and after
the reads and the writes, the growth per 1,000 papers written, and the read /
write rates, so the memory saved and its cost are read from one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_ARGS = "--papers 5000 --clients 8 --seconds 15 --add 1000 --batch 100"
GLIBC_DEFAULT = "16"  # 8 arenas per core on a 2-core machine


def one_run(label: str, arena_env: str | None, serve_args: str, tmp: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    if arena_env is not None:
        env["MALLOC_ARENA_MAX"] = arena_env
    out = tmp / f"{label}.json"
    command = [sys.executable, str(HERE / "serve.py"), *shlex.split(serve_args), "--out", str(out)]
    print("$", ("MALLOC_ARENA_MAX=" + arena_env + " " if arena_env else "") + shlex.join(command), flush=True)
    started = time.perf_counter()
    subprocess.run(command, check=True, env=env)
    report = json.loads(out.read_text())
    memory, writer = report["server_memory"], report["writer"]
    grown = memory["after_writes_mb"] - memory["before_writes_mb"]
    return {
        "malloc_arena_max": arena_env or "2 (sciembed index serve's cap)",
        "seconds": round(time.perf_counter() - started, 1),
        "server_memory_mb": memory,
        "write_growth_mb": round(grown, 1),
        "growth_mb_per_1000_papers": round(grown / writer["added"] * 1000, 1) if writer["added"] else None,
        "reads": {k: report["reads"][k] for k in ("requests_per_s", "p50_ms", "p99_ms", "errors")},
        "reads_while_writing": {k: report["reads_while_writing"][k]
                                for k in ("requests_per_s", "p50_ms", "p99_ms", "errors")},
        "writer": {k: writer[k] for k in ("added", "complete", "papers_per_s", "seconds")},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve-args", default=DEFAULT_ARGS, help="arguments for serve.py (both runs)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "serve_arenas.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sciembed-arenas-") as tmp:
        runs = {"glibc_default": one_run("glibc_default", GLIBC_DEFAULT, args.serve_args, Path(tmp)),
                "capped": one_run("capped", None, args.serve_args, Path(tmp))}
    default, capped = runs["glibc_default"], runs["capped"]
    report = {
        "benchmark": "serve_arenas",
        "what": "benchmarks/serve.py twice: glibc's default malloc arenas vs sciembed index serve's cap of 2",
        "serve_args": args.serve_args,
        "cpus": os.cpu_count(),
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "runs": runs,
        "write_growth_ratio_capped_vs_default": round(capped["write_growth_mb"] / default["write_growth_mb"], 3)
        if default["write_growth_mb"] else None,
        "reads_per_s_ratio_capped_vs_default": round(
            capped["reads"]["requests_per_s"] / default["reads"]["requests_per_s"], 3),
        "write_rate_ratio_capped_vs_default": round(
            capped["writer"]["papers_per_s"] / default["writer"]["papers_per_s"], 3),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "runs"}, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

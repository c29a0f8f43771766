"""The first `sciembed eval` on a fresh install: cold numba cache vs warm vs warmed at install time.

Each figure is a fresh process running ``sciembed eval run CORPUS --model bm25 --scenario ta_ta`` with
``NUMBA_CACHE_DIR`` pointed at:

1. cold: an empty directory (what a fresh install without the warm-up step meets);
2. warm: the same directory again (kernels now cached on disk);
3. installed: another empty directory after ``python -m sciembed.evaluation.warmup`` (what
   ``make install`` now runs), timed separately.

Wall time and the child's CPU time (user + sys) are recorded; the machine is shared, so CPU time
is the steadier figure.

    .venv/bin/python benchmarks/first_eval.py --corpus runs/demo/corpus [--out benchmarks/results/first_eval.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(cmd: list[str], env: dict[str, str]) -> dict[str, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=Path("runs/demo/corpus"))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "first_eval.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        evaluate = [sys.executable, "-m", "sciembed.cli.main", "eval", "run", str(args.corpus), "--model", "bm25",
                    "--scenario", "ta_ta", "--run-depth", "0"]
        cold_dir, installed_dir = tmp / "numba-cold", tmp / "numba-installed"
        cold_dir.mkdir()
        installed_dir.mkdir()
        env = dict(os.environ)
        results = {
            "cold": timed([*evaluate, "--out", str(tmp / "e1")], env | {"NUMBA_CACHE_DIR": str(cold_dir)}),
            "warm": timed([*evaluate, "--out", str(tmp / "e2")], env | {"NUMBA_CACHE_DIR": str(cold_dir)}),
            "install_warmup": timed([sys.executable, "-m", "sciembed.evaluation.warmup"],
                                    env | {"NUMBA_CACHE_DIR": str(installed_dir)}),
            "after_install_warmup": timed([*evaluate, "--out", str(tmp / "e3")],
                                          env | {"NUMBA_CACHE_DIR": str(installed_dir)}),
        }
    out = {"command": "sciembed eval run CORPUS --model bm25 --scenario ta_ta --run-depth 0",
           "corpus": str(args.corpus), "results": results, "cpu_count": os.cpu_count(),
           "load_average": os.getloadavg(), "python": platform.python_version()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

"""Long fuzz run over every reader, ingest's CLI, the edge loader, BEIR / pools loaders and config loading.

The same targets as `tests/fuzz` (see `fakes.fuzzing.driver`), driven by
seeded random inputs for longer, plus SIGKILL runs of `ingest` and `corpus
build` at random points. Writes inputs tried, crashes (must be 0, with the
first examples), kill outcomes and the peak resident memory of this process.

    .venv/bin/python benchmarks/fuzz.py [--inputs 3000] [--kills 4] [--service 300] [--out benchmarks/results/fuzz.json]

`--service N` also sends the service hostile HTTP requests (`fakes.fuzzing.service`):
the fixed probes of issue 23 and N seeded ones built from the same mutated inputs.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from sciembed.ioutil.memory import peak_mb
from sciembed.papers.ingest import ingest
from sciembed.synth import write_synthetic

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the fuzz driver lives with the tests
from fakes.fuzzing import driver, hostile
from fakes.fuzzing.kill import run_and_kill, state_of


def fuzz(n_inputs: int, seed: int) -> dict:
    tried: Counter[str] = Counter()
    crashes: dict[str, list[str]] = {}

    def note(target: str, outcome: str | None, example: str) -> None:
        tried[target] += 1
        if outcome is not None:
            crashes.setdefault(target, []).append(f"{example}: {outcome}")

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        src = hostile.write_lines(root / "p.jsonl", [hostile.own_record(f"p{i}") for i in range(10)])
        ingest([src], root / "corpus", progress=False)
        ids = [f"p{i}" for i in range(10)] + ["unknown", ""]
        for name, data in driver.hostile_files():
            path = root / name
            path.write_bytes(data)
            for fmt in ("auto", *driver.SEEDS):
                note("readers", driver.check_reader(path, fmt), f"{name} as {fmt}")
        for i in range(n_inputs):
            s = seed * 1_000_003 + i
            rng = random.Random(s)
            work = root / f"w{i}"
            work.mkdir()
            fmt, name, data = driver.generate_input(s)
            (work / name).write_bytes(data)
            note("readers", driver.check_reader(work / name, "auto"), f"seed {s} auto")
            note("readers", driver.check_reader(work / name, fmt), f"seed {s} {fmt}")
            if i % 10 == 0:
                note("ingest_cli", driver.check_ingest_cli([work / name], work / "out"), f"seed {s}")
            if i % 3 == 0:
                note("edges", driver.check_edges(driver.edge_file(work, ids, rng), root / "corpus" / "papers.parquet",
                                                 work), f"seed {s}")
                note("beir", driver.check_beir(driver.beir_folder(work / "beir", rng)), f"seed {s}")
                note("pools", driver.check_pools(driver.pools_file(work / "pools.jsonl", rng)), f"seed {s}")
                note("config", driver.check_config(driver.config_file(work / "c.yaml", rng)), f"seed {s}")
            shutil.rmtree(work)
    return {"inputs_tried": dict(tried), "inputs_total": sum(tried.values()),
            "crashes": sum(len(v) for v in crashes.values()),
            "crash_examples": {k: v[:5] for k, v in crashes.items()}}


def kills(n_seeds: int) -> dict:
    outcomes: dict[str, list[dict]] = {"ingest": [], "ingest --overwrite": [], "corpus build": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_synthetic(root / "synth", 300, seed=1)
        papers = root / "synth" / "papers.jsonl.gz"
        ingest([papers], root / "previous", progress=False)
        for s in range(n_seeds):
            fresh = root / f"fresh{s}"
            run = run_and_kill(["corpus", "ingest", str(papers), "--out", str(fresh), "--no-progress"], fresh, s, 1.0)
            outcomes["ingest"].append({"seed": s, "run": run, "left": state_of(fresh)})
            previous = shutil.copytree(root / "previous", root / f"prev{s}")
            run = run_and_kill(["corpus", "ingest", str(papers), "--out", str(previous), "--overwrite",
                                "--no-progress"],
                               previous, 100 + s, 1.0)
            outcomes["ingest --overwrite"].append({"seed": s, "run": run, "left": state_of(previous)})
            built = root / f"built{s}"
            run = run_and_kill(["corpus", "build", str(root / "previous"), "-o", str(built), "-e",
                                str(root / "synth" / "edges.csv"), "--no-progress"], built, 200 + s, 2.0)
            outcomes["corpus build"].append({"seed": s, "run": run, "left": state_of(built)})
    broken = [o for runs in outcomes.values() for o in runs if o["left"].startswith("broken")]
    return {"runs": outcomes, "broken": len(broken)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=3000)
    parser.add_argument("--kills", type=int, default=4)
    parser.add_argument("--service", type=int, default=0, help="seeded HTTP probes of the service (issue 23)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/fuzz.json"))
    args = parser.parse_args()
    started = time.perf_counter()
    result = {"fuzz": fuzz(args.inputs, args.seed)}
    result["fuzz"]["seconds"] = round(time.perf_counter() - started, 1)
    result["fuzz"]["peak_rss_mb"] = peak_mb()
    if args.service:
        from fakes.fuzzing.service import run_service_probes

        started = time.perf_counter()
        result["service"] = run_service_probes(args.service, args.seed)
        result["service"]["seconds"] = round(time.perf_counter() - started, 1)
        print("service:", {k: v for k, v in result["service"].items() if k != "failure_examples"})
    if args.kills:
        started = time.perf_counter()
        result["kills"] = kills(args.kills)
        result["kills"]["seconds"] = round(time.perf_counter() - started, 1)
    result["machine"] = {"python": platform.python_version(), "cpus": __import__("os").cpu_count()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result["fuzz"].items() if k != "crash_examples"}, indent=2))
    if "kills" in result:
        print(f"kills: {result['kills']['broken']} broken of "
              f"{sum(len(v) for v in result['kills']['runs'].values())} runs")


if __name__ == "__main__":
    main()

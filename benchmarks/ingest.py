"""Benchmark: `ingest()` throughput and peak memory on synthetic full-text corpora (10,000 and 50,000 papers).

Each corpus is generated first with `sciembed.synth.write_synthetic` (timed
separately: generation is not ingest). Each ingest then runs in a fresh child
process pinned to one CPU core (pyarrow limited to one thread), so its wall
time and peak RSS are its own: the parent reads the child's `ru_maxrss` from
`os.wait4`, the child reports its own `RUSAGE_SELF` too. papers/s counts every
record read (accepted + rejected) over the time spent inside `ingest()`,
imports excluded, both over wall time and over the CPU time the process got
(on a shared machine the two differ; the load average is recorded). A child that only imports the same modules gives the
baseline RSS that ingest adds to.

    .venv/bin/python benchmarks/ingest.py                       # 10,000 and 50,000 papers
    .venv/bin/python benchmarks/ingest.py --sizes 2000 --out /tmp/ingest.json

Writes benchmarks/results/ingest.json (or --out).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_PAPERS_PER_S = 500


def _child_ingest(papers: Path, out: Path, baseline: bool) -> None:
    """Runs in the child: pin to one core, ingest, print one JSON line."""
    import resource

    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    import pyarrow as pa

    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    from sciembed.papers.ingest import ingest

    report: dict[str, object] = {"core": core}
    if not baseline:
        start, cpu_start = time.perf_counter(), time.process_time()
        result = ingest([papers], out, progress=False)
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
        report |= {
            "seconds": seconds, "cpu_seconds": cpu_seconds, "read": result.read, "accepted": result.accepted,
            "rejected": result.rejected, "sections": result.sections, "body_words": result.body_words,
            "flags": dict(result.flags), "rejected_by_reason": dict(result.reasons),
        }
    report["self_maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(report))


def _run_child(papers: Path, out: Path, baseline: bool = False) -> dict[str, object]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(papers), str(out)]
    if baseline:
        cmd.append("--baseline")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    stdout, stderr = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"ingest child failed:\n{stderr}")
    report = json.loads(stdout.strip().splitlines()[-1])
    report["maxrss_mb"] = round(usage.ru_maxrss / 1024, 1)  # Linux reports KiB
    return report


def _machine() -> dict[str, object]:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}


def run(sizes: list[int], seed: int, workdir: Path) -> dict[str, object]:
    from sciembed.synth import write_synthetic

    results = []
    baseline = _run_child(workdir, workdir / "unused", baseline=True)
    for n in sizes:
        corpus_dir = workdir / f"synth-{n}"
        start = time.perf_counter()
        write_synthetic(corpus_dir, n, seed=seed)
        generation = time.perf_counter() - start
        papers = corpus_dir / "papers.jsonl.gz"
        load_before = os.getloadavg()
        child = _run_child(papers, workdir / f"ingested-{n}")
        load_after = os.getloadavg()
        seconds = float(child["seconds"])  # type: ignore[arg-type]
        cpu_seconds = float(child["cpu_seconds"])  # type: ignore[arg-type]
        read = int(child["read"])  # type: ignore[call-overload]
        results.append({
            "papers": n,
            "generation_seconds": round(generation, 2),
            "input_mb_gz": round(papers.stat().st_size / 2**20, 1),
            "ingest_seconds": round(seconds, 2),
            "papers_per_s": round(read / seconds, 1),
            "cpu_seconds": round(cpu_seconds, 2),
            "papers_per_cpu_s": round(read / cpu_seconds, 1),
            "body_words_per_s": round(int(child["body_words"]) / seconds),  # type: ignore[call-overload]
            "peak_rss_mb": child["maxrss_mb"],
            "peak_rss_mb_self_report": round(float(child["self_maxrss_mb"]), 1),  # type: ignore[arg-type]
            "read": read,
            "accepted": child["accepted"],
            "rejected": child["rejected"],
            "rejected_by_reason": child["rejected_by_reason"],
            "flags": child["flags"],
            "sections": child["sections"],
            "body_words": child["body_words"],
            "loadavg_1min_before_after": [round(load_before[0], 2), round(load_after[0], 2)],
        })
        shutil.rmtree(corpus_dir)
        shutil.rmtree(workdir / f"ingested-{n}")
        print(json.dumps(results[-1]), flush=True)
    rss = [float(r["peak_rss_mb"]) for r in results]  # type: ignore[arg-type]
    rates = [float(r["papers_per_s"]) for r in results]  # type: ignore[arg-type]
    cpu_rates = [float(r["papers_per_cpu_s"]) for r in results]  # type: ignore[arg-type]
    return {
        "benchmark": "ingest",
        "what": "sciembed.papers.ingest.ingest() on synthetic full-text papers (own JSONL .gz), one pinned core, "
        "fresh child process per size; generation timed separately",
        "seed": seed,
        "target_papers_per_s": TARGET_PAPERS_PER_S,
        "meets_target_wall": min(rates) >= TARGET_PAPERS_PER_S,
        "meets_target_cpu": min(cpu_rates) >= TARGET_PAPERS_PER_S,
        "note": "the machine is shared (see loadavg): papers_per_s is wall time on one pinned core, "
        "papers_per_cpu_s is the same run over the CPU time the process actually got",
        "baseline_import_rss_mb": baseline["maxrss_mb"],
        "rss_growth_mb_smallest_to_largest": round(rss[-1] - rss[0], 1),
        "machine": _machine(),
        "date": time.strftime("%Y-%m-%d"),
        "results": results,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "ingest.json")
    parser.add_argument("--child", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--baseline", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child_ingest(*args.child, baseline=args.baseline)
        return
    workdir = Path(tempfile.mkdtemp(prefix="sciembed-ingest-bench-"))
    try:
        report = run(sorted(args.sizes), args.seed, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

"""Speed and memory of the synthetic generator.

Goals: `synthetic_graph` with 1,000,000 papers and 10,000,000 edges well under
30 s and 1.5 GB; `generate_papers` at least 2,000 papers/s on one core.
The graph runs in a child process so its peak RSS is its own. Wall and CPU
times are both recorded, with the load average, because a busy machine slows
wall time down.

    .venv/bin/python benchmarks/synth_speed.py [--graph-papers 1000000] [--graph-edges 10000000]
        [--papers 20000] [--write-papers 20000] [--out benchmarks/results/synth_speed.json]
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

GOAL_GRAPH_SECONDS = 30.0
GOAL_GRAPH_RSS_MB = 1536.0
GOAL_PAPERS_PER_SECOND = 2000.0


def graph_child(n_papers: int, n_edges: int) -> None:
    """Runs in the child: build the graph, print timings and peak RSS as JSON."""
    import numpy as np

    from sciembed.synth import synthetic_graph

    wall, cpu = time.perf_counter(), time.process_time()
    graph = synthetic_graph(n_papers, n_edges, seed=0)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    in_degree = graph.in_degree()
    top = np.sort(in_degree)[::-1][: n_papers // 100]
    print(json.dumps({
        "papers": n_papers,
        "edges": n_edges,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "same_topic_share": round(graph.same_topic_share(), 4),
        "older_share": round(float(np.mean(graph.cited < graph.citing)), 4),
        "self_loops": int(np.sum(graph.citing == graph.cited)),
        "duplicate_edges": int(n_edges - np.unique(graph.citing * n_papers + graph.cited).size),
        "max_in_degree": int(in_degree.max()),
        "top_1pct_citation_share": round(float(top.sum() / max(n_edges, 1)), 4),
    }))


def papers_rate(n_papers: int) -> dict[str, float]:
    from sciembed.synth import generate_papers

    wall, cpu = time.perf_counter(), time.process_time()
    for _paper in generate_papers(n_papers, seed=0):
        pass
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    sample = list(generate_papers(min(n_papers, 1000), seed=0))  # size of the work, counted outside the timing
    words = sum(len(s.text.split()) for p in sample for s in p.sections) / len(sample)
    return {
        "papers": n_papers,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "papers_per_s_wall": round(n_papers / wall, 1),
        "papers_per_s_cpu": round(n_papers / cpu, 1),
        "words_per_paper_incl_back_matter": round(words),
    }


def write_rate(n_papers: int) -> dict[str, float]:
    from sciembed.synth import write_synthetic

    with tempfile.TemporaryDirectory() as tmp:
        wall, cpu = time.perf_counter(), time.process_time()
        out = write_synthetic(Path(tmp), n_papers, seed=0)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        size = sum(f.stat().st_size for f in out.iterdir())
    return {"papers": n_papers, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "papers_per_s_wall": round(n_papers / wall, 1), "bytes_written": size}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph-papers", type=int, default=1_000_000)
    parser.add_argument("--graph-edges", type=int, default=10_000_000)
    parser.add_argument("--papers", type=int, default=20_000)
    parser.add_argument("--write-papers", type=int, default=20_000)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/synth_speed.json"))
    parser.add_argument("--graph-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.graph_child:
        graph_child(args.graph_papers, args.graph_edges)
        return

    load_before = os.getloadavg()
    child = subprocess.run(
        [sys.executable, __file__, "--graph-child", "--graph-papers", str(args.graph_papers),
         "--graph-edges", str(args.graph_edges)],
        check=True, capture_output=True, text=True,
    )
    graph = json.loads(child.stdout)
    graph["goal"] = {"wall_s": GOAL_GRAPH_SECONDS, "peak_rss_mb": GOAL_GRAPH_RSS_MB}
    graph["meets_goal"] = graph["wall_s"] < GOAL_GRAPH_SECONDS and graph["peak_rss_mb"] < GOAL_GRAPH_RSS_MB
    papers = papers_rate(args.papers)
    papers["goal_papers_per_s"] = GOAL_PAPERS_PER_SECOND
    papers["meets_goal_cpu"] = papers["papers_per_s_cpu"] >= GOAL_PAPERS_PER_SECOND
    results = {
        "graph": graph,
        "generate_papers": papers,
        "write_synthetic": write_rate(args.write_papers) if args.write_papers else None,
        "machine": {"cpu_count": os.cpu_count(), "python": platform.python_version(),
                    "load_average_before": [round(x, 2) for x in load_before],
                    "load_average_after": [round(x, 2) for x in os.getloadavg()]},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

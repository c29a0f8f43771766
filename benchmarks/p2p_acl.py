"""The ACL paper-to-paper test split, every method of one `sciembed eval run --kind paper_to_paper` run, as one JSON.

Runs (unless ``--report`` points at a finished run directory)::

    sciembed eval run --kind paper_to_paper INGESTED_ACL --set config=configs/p2p-acl.yaml --set tune_fusion=true \\
        -m minilm --backend onnx --quantize --cache-dir CACHE --out RUN_DIR

and writes ``benchmarks/results/p2p_acl.json``: per relevance split (references, citations) and
method, NDCG@10, Recall@100, MRR@50 ×100, the number of query papers, and paired t-tests on
per-query NDCG@10 against a2a and against bm25 (full text) — the fusion chosen on the val split,
its validation scores and the run's truncation counts next to them.

    nice .venv/bin/python benchmarks/p2p_acl.py --corpus /path/to/ingested-acl --cache CACHE [--report RUN_DIR]

A run of several models (``-m minilm -m TRAINED``) is summarised one model at a time: ``--cell MODEL`` picks
it, and ``--base MODEL`` adds, per split and method, the paired t-test of the picked model against the base
model's same method (``vs_base``) — a trained encoder in place of MiniLM, every other part of the run equal.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from sciembed.evaluation.significance import paired_test
from sciembed.ioutil.names import slug
from sciembed.ioutil.portable import portable

METRICS = {"ndcg@10": "ndcg@10", "recall@100": "r@100", "mrr@50": "mrr@50"}


def cell_rows(cell: dict) -> dict[str, dict[str, dict]]:
    """split -> method -> task result, of one model's cell."""
    rows: dict[str, dict[str, dict]] = {}
    for result in cell["results"]:
        method, split = result["task"].split("/", 1)
        rows.setdefault(split, {})[method] = result
    return rows


def pick_cell(results: dict, model: str | None) -> dict:
    """The cell of `model` (its name as the run gives it, or the path's last parts), else the run's only cell."""
    cells = results["cells"]
    if model is None:
        if len(cells) != 1:
            raise SystemExit(f"the run holds {len(cells)} models ({[c['model'] for c in cells]}): give --cell")
        return cells[0]
    found = [c for c in cells if c["model"] == model or c["model"].endswith(model)]
    if len(found) != 1:
        raise SystemExit(f"--cell {model}: {len(found)} of the run's models {[c['model'] for c in cells]} match")
    return found[0]


def against_base(rows: dict, base_rows: dict) -> dict:
    """Per split and method, the picked model's NDCG@10 against the base model's same method (paired t-test)."""
    out: dict = {}
    for split, methods in rows.items():
        for method, result in methods.items():
            base = base_rows.get(split, {}).get(method)
            if base is not None:
                test = paired_test("ndcg@10", base["per_query"]["ndcg@10"], result["per_query"]["ndcg@10"])
                out.setdefault(split, {})[method] = {"base_ndcg@10": base["metrics"]["ndcg@10"],
                                                     "delta_ndcg@10": test.delta, "p": test.p_value}
    return out


def summarize(results: dict, fusion: dict | None, cell: dict | None = None) -> dict:
    """`sciembed eval` results (one paper_to_paper benchmark; `cell`: one model's, default the only one):
    method × split tables (×100)."""
    (bench,) = results["benchmarks"].values()
    cell = cell or pick_cell(results, None)
    rows = cell_rows(cell)
    out: dict = {"benchmark": {k: bench.get(k) for k in ("name", "fingerprint", "candidates", "queries_per_split",
                                                         "relevant_per_split", "fusion_tuning")},
                 "encoder": cell["config"], "config": bench.get("config"), "splits": {}}
    out = portable(out)  # a run written before results.json held relative paths: none of its machine's paths
    for split, methods in rows.items():
        table = {}
        for name, result in methods.items():
            per_query = result["per_query"]["ndcg@10"]
            row = {label: result["metrics"][m] for m, label in METRICS.items() if m in result["metrics"]}
            row["n_queries"] = len(per_query)
            for base in ("a2a", "bm25"):
                if base in methods and name != base:  # per-query scores are ×100 already
                    test = paired_test("ndcg@10", methods[base]["per_query"]["ndcg@10"], per_query)
                    row[f"delta_ndcg@10_vs_{base}"] = test.delta
                    row[f"p_vs_{base}"] = test.p_value
            table[name] = row
        out["splits"][split] = table
    if fusion is not None:
        out["fusion"] = {k: fusion[k] for k in ("runs", "method", "norm", "params")}
        out["fusion"]["val"] = {k: v for k, v in fusion["tuned"].items() if k != "tried"}
        out["fusion"]["val_tried"] = fusion["tuned"]["tried"]
    default = (fusion or {}).get("tuned", {}).get("val_best_method", "fused")
    if not any(default in table and "bm25" in table and "a2a" in table for table in out["splits"].values()):
        out["goal"] = {"not_evaluated": f"the run lacks {default}, a2a or bm25"}
        return out
    out["goal"] = {"default_method": default, "chosen_by": "val NDCG@10 (both relevance splits pooled)"
                   if fusion is not None and "val_best_method" in fusion["tuned"] else "assumed", **{
                       split: goal(table.get(default, {})) for split, table in out["splits"].items()}}
    return out


def goal(row: dict) -> dict:
    """The issue's goal for one split: ≥ 5 NDCG@10 points over a2a, and better than BM25 full text at p < 0.05."""
    over_a2a, over_bm25 = row.get("delta_ndcg@10_vs_a2a"), row.get("delta_ndcg@10_vs_bm25")
    beats_a2a = over_a2a is not None and over_a2a >= 5.0 and row["p_vs_a2a"] < 0.05
    beats_bm25 = over_bm25 is not None and over_bm25 > 0 and row["p_vs_bm25"] < 0.05
    return {"delta_vs_a2a": over_a2a, "delta_vs_bm25": over_bm25, "beats_a2a_by_5": beats_a2a,
            "beats_bm25_significantly": beats_bm25, "holds": beats_a2a and beats_bm25}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path,
                        help="The ingested ACL corpus (sciembed corpus ingest …/acl-grobid/tei).")
    parser.add_argument("--cache", type=Path, help="Embedding cache directory.")
    parser.add_argument("--report", type=Path, help="A finished run directory (results.json, fusion/).")
    parser.add_argument("--config", type=Path, default=Path("configs/p2p-acl.yaml"))
    parser.add_argument("--run-dir", type=Path, default=Path("runs/p2p_acl"))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "p2p_acl.json")
    parser.add_argument("--cell", help="With a run of several models: the one to summarise.")
    parser.add_argument("--base", help="With --cell: the model it is compared with, method by method.")
    args = parser.parse_args()
    args.corpus_name = args.corpus.name if args.corpus is not None else "*"
    run_dir = args.report
    if run_dir is None:
        if args.corpus is None:
            parser.error("give --corpus (to run the evaluation) or --report RUN_DIR")
        run_dir = args.run_dir
        command = [sys.executable, "-m", "sciembed.cli.main", "eval", "run", "--kind", "paper_to_paper",
                   str(args.corpus),
                   "--set", f"config={args.config}", "--set", "tune_fusion=true", "-m", "minilm", "--backend", "onnx",
                   "--quantize", "--out", str(run_dir), *(["--cache-dir", str(args.cache)] if args.cache else [])]
        subprocess.run(command, check=True)
    results = json.loads((run_dir / "results.json").read_text())
    cell = pick_cell(results, args.cell)
    fusion_files = sorted(run_dir.glob(f"fusion/{args.corpus_name}/*.json"))
    if len(fusion_files) > 1:  # one per model, named after it
        # named by the model as given (`ioutil.names.slug`); results.json holds it relative to the repository
        name = slug(cell["model"]).lstrip(".-")
        fusion_files = [f for f in fusion_files if f.stem == name or f.stem.endswith("-" + name)]
    summary = summarize(results, json.loads(fusion_files[0].read_text()) if fusion_files else None, cell)
    if args.base is not None:
        summary["base_model"] = args.base
        summary["vs_base"] = against_base(cell_rows(cell), cell_rows(pick_cell(results, args.base)))
    summary["run_dir"] = portable(str(run_dir))  # relative to the repository where it can be
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=1) + "\n")
    for split, table in summary["splits"].items():
        print(f"{split}: n={next(iter(table.values()))['n_queries']}")
        for name, row in table.items():
            print(f"  {name:24s} NDCG@10 {row.get('ndcg@10', float('nan')):5.1f}  R@100 "
                  f"{row.get('r@100', float('nan')):5.1f}  MRR {row.get('mrr@50', float('nan')):5.1f}  "
                  f"p(a2a) {row.get('p_vs_a2a', float('nan')):.2g}  p(bm25) {row.get('p_vs_bm25', float('nan')):.2g}")
    print(f"goal: {json.dumps(summary['goal'])}")
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()

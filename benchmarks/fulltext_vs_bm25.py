"""Learned full-text encoders against BM25 on real papers: one table, `benchmarks/results/fulltext_vs_bm25.json`.

Every arm — the base MiniLM, BM25, each trained or static model given with ``--arm NAME=MODEL_DIR`` — is scored
on the ACL test split of a `sciembed study real` directory (TA→TA, Body→TA, Body→Body, every linked test paper a
query) and on SciTLDR dev, with paired t-tests on per-query NDCG@10 against BM25 and against the base. The
paper-to-paper rows come from a finished `sciembed eval suite` run over the same arms (``--p2p RUN_DIR``, the
suite of ``configs/bench-fulltext.yaml``): query papers are the study corpus's val (fusion tuning) and test
papers, so no arm is scored on a paper whose links it trained on. Training cost (CPU-hours, examples seen, the
val learning curve), encode speed (papers/s, title+abstract and full text, measured here side by side) and index
bytes per paper are added per arm.

    nice .venv/bin/python benchmarks/fulltext_vs_bm25.py --study runs/fulltext \\
        --arm window_hn=runs/fulltext/runs/window_hn/model --arm static_hn=runs/fulltext/runs/static_hn/model \\
        --p2p runs/fulltext/p2p
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "benchmarks" / "results" / "fulltext_vs_bm25.json"
STATIC_WINDOW_TOKENS = 512  # a static model reads BM25's citation-benchmark window (358 words); MiniLM its 256


def relative(path: Path | str) -> str:
    """A path as the repository sees it (results files hold no machine paths)."""
    p = Path(path).resolve()
    try:
        return str(p.relative_to(REPO))
    except ValueError:
        return str(Path("..") / p.relative_to(REPO.parent)) if p.is_relative_to(REPO.parent) else p.name


def is_static_dir(model: str) -> bool:
    modules = Path(model, "modules.json")
    return modules.is_file() and "StaticEmbedding" in modules.read_text()


def citation_rows(study: Path, arms: dict[str, str], say) -> dict[str, dict[str, Any]]:
    """Per arm, per task: NDCG@10 ×100, n and per-query scores, from `sciembed study real`'s suite (its benchmarks,
    base and BM25) with these arms as its models, run into ``<study>/fulltext-eval`` (cells reused)."""
    import yaml

    from sciembed.evaluation.bench import load_suite, run_suite
    from sciembed.experiments.real_study import StudyPaths, load_real_study, study_suite

    config = load_real_study(REPO / "configs" / "study-real.yaml")
    suite = study_suite(config, StudyPaths(study), {name: Path(model) for name, model in arms.items()})
    suite["out"] = str(study / "fulltext-eval")
    for entry in suite["models"]:
        if entry["name"] in arms and is_static_dir(entry["model"]):
            entry["window_tokens"] = STATIC_WINDOW_TOKENS
        entry.pop("reference", None)
    path = study / "fulltext-suite.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    run = run_suite(load_suite(path), say=say)
    out: dict[str, dict[str, Any]] = {}
    for (name, bname), cell in run.cells.items():
        for r in cell.results:
            if "ndcg@10" in r.per_query:
                scores = r.per_query["ndcg@10"]
                task = f"{bname}_{r.task.split('/')[0]}"
                out.setdefault(name, {"tasks": {}})["tasks"][task] = {
                    "score": sum(scores.values()) / max(len(scores), 1), "n": len(scores), "per_query": scores}
    return out


def paired(per_query_a: dict[str, float], per_query_b: dict[str, float]) -> dict[str, Any]:
    from sciembed.evaluation.significance import paired_test

    test = paired_test("ndcg@10", per_query_a, per_query_b)
    return {"delta": round(test.delta, 2), "p": None if math.isnan(test.p_value) else float(f"{test.p_value:.3g}")}


def citation_table(evals: dict[str, dict[str, Any]]) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for name, model in evals.items():
        rows = {}
        for task, entry in model["tasks"].items():
            row: dict[str, Any] = {"ndcg@10": round(entry["score"], 2), "n": entry["n"]}
            for ref in ("bm25", "base"):
                if name != ref:
                    row[f"vs_{ref}"] = paired(evals[ref]["tasks"][task]["per_query"], entry["per_query"])
            rows[task] = row
        table[name] = rows
    return table


def p2p_table(run_dir: Path) -> dict[str, Any]:
    """Per model cell of the suite run: per relevance split and method, NDCG@10 / R@100 ×100, n, paired p
    against bm25 and a2a of the same cell and against the base cell's best dense method."""
    results = json.loads((run_dir / "results.json").read_text())
    out: dict[str, Any] = {}
    cells = {cell["model"]: cell for cell in results["cells"]}
    for model, cell in cells.items():
        rows: dict[str, dict[str, Any]] = {}
        for result in cell["results"]:
            method, split = result["task"].split("/", 1)
            rows.setdefault(split, {})[method] = result
        table = {}
        for split, methods in rows.items():
            table[split] = {}
            for method, result in methods.items():
                per_query = result["per_query"]["ndcg@10"]
                row = {"ndcg@10": round(result["metrics"]["ndcg@10"], 2),
                       "r@100": round(result["metrics"].get("recall@100", float("nan")), 2), "n": len(per_query)}
                if method != "bm25" and "bm25" in methods:
                    row["vs_bm25"] = paired(methods["bm25"]["per_query"]["ndcg@10"], per_query)
                base = cells.get("minilm")
                if base is not None and model != "minilm":
                    ref = next((r for r in base["results"] if r["task"] == f"{method}/{split}"), None)
                    if ref is not None:
                        row["vs_base_same_method"] = paired(ref["per_query"]["ndcg@10"], per_query)
                table[split][method] = row
        fusion = cell.get("fusion") or {}
        out[model] = {"splits": table, **({"fusion": fusion} if fusion else {})}
    out["_benchmark"] = {k: v for k, v in next(iter(results["benchmarks"].values())).items()
                         if k in ("name", "candidates", "queries_per_split", "relevant_per_split")}
    return out


def val_scores(study: Path, name: str, model: str | None) -> dict[str, float]:
    """The training validator's val NDCG@10 ×100 (the learning curve's measure) of one saved model, cached."""
    cached = study / "evals" / f"val_{name}.json"
    if cached.is_file():
        return json.loads(cached.read_text())
    from sentence_transformers import SentenceTransformer

    from sciembed.models.loading import resolve_model_source
    from sciembed.training.config import ValidationConfig
    from sciembed.training.validation import CitationValidator

    validator = CitationValidator(study / "corpus", ValidationConfig(
        every_steps=1, scenarios=("body_ta", "ta_ta", "body_body"), self_retrieval=False))
    if model == "bm25":
        from sciembed.evaluation import evaluate, scenario_benchmark
        from sciembed.training.validation import task_name

        cell = evaluate("bm25", scenario_benchmark(validator.benchmark, scenarios=validator.scenarios),
                        show_progress=False)
        out = {f"{s}_ndcg@10": round(cell.result(task_name(s)).metrics["ndcg@10"], 2) for s in validator.scenarios}
    else:
        scores = validator(SentenceTransformer(resolve_model_source(model), device="cpu"))
        out = {k.removeprefix("val_"): round(100 * v, 2) for k, v in scores.items()}
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(out) + "\n")
    return out


def training_rows(study: Path, arms: dict[str, str]) -> dict[str, Any]:
    """Per trained arm: wall time, examples seen, its val scores at the start (its base) and at the end (the
    saved model), and the val learning curve (examples seen → val NDCG@10) from its curves/."""
    out = {}
    for name, model in arms.items():
        run = Path(model).parent
        summary_path = run / "summary.json"
        if not summary_path.is_file():
            out[name] = {"trained": False}
            continue
        s = json.loads(summary_path.read_text())
        per_step = s.get("schedule", {}).get("examples_per_step") or s.get("composition", {}).get("batch_size")
        curve = []
        path = run / "curves" / "validation.csv"
        if path.is_file() and per_step:
            with path.open() as f:
                for row in csv.DictReader(f):
                    keys = [k for k in row if k.startswith("val_") and row[k]]
                    step = int(float(row["step"]))
                    curve.append({"step": step, "examples_seen": step * int(per_step),
                                  **{k.removeprefix("val_"): round(100 * float(row[k]), 2) for k in keys}})
        recipe = json.loads((run / "recipe.json").read_text()) if (run / "recipe.json").is_file() else {}
        base = (recipe.get("config") or {}).get("model", {}).get("base")
        val_start, val_end = val_scores(study, f"{name}_base", base), val_scores(study, name, model)
        out[name] = {"trained": True, "steps": s.get("global_step"), "max_steps": s.get("max_steps"),
                     "val_start": val_start, "val_end": val_end,
                     "examples_seen": (s.get("global_step") or 0) * int(per_step or 0),
                     "wall_seconds_last_session": s.get("session_seconds"), "hard_negatives": s.get("hard_negatives"),
                     "learning_curve": curve, "learning_curve_budget": budget_note(recipe),
                     "plateau": plateau(curve if trains_shorter(recipe) else with_ends(curve, val_start, val_end, s)),
                     "compute": compute_row(recipe, s.get("global_step") or 0,
                                            s.get("session_seconds") if not s.get("resumed_from_step") else None)}
    return out


def trains_shorter(recipe: dict[str, Any]) -> bool:
    """Whether the run validated at a shorter token budget than its saved model reads (the window recipe trains
    on 128 tokens and saves a 256-token model): its curve and its val_start / val_end are then two measures."""
    model = (recipe.get("config") or {}).get("model", {})
    return recipe.get("recipe") != "static" and model.get("max_seq_length", 256) < 256 and \
        model.get("inference_max_seq_length") != model.get("max_seq_length")


def budget_note(recipe: dict[str, Any]) -> str:
    if trains_shorter(recipe):
        seq = recipe["config"]["model"]["max_seq_length"]
        return (f"the curve is the training validator at the training budget ({seq} tokens); val_start and val_end "
                "are the saved models at 256 tokens: compare curve points with curve points only")
    return "the curve, val_start and val_end are one measure"


def with_ends(curve: list[dict[str, Any]], start: dict[str, float], end: dict[str, float],
              summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The learning curve with the base (step 0) and the saved model (its last step) added where missing."""
    steps = {p["step"] for p in curve}
    last = summary.get("global_step") or 0
    return ([] if 0 in steps else [{"step": 0, **start}]) + curve + ([] if last in steps else [{"step": last, **end}])


def plateau(curve: list[dict[str, Any]], within: float = 1.0) -> dict[str, Any] | None:
    """Where a learning curve flattens: the first step whose mean val NDCG@10 (over its scenarios) is within
    `within` points of the curve's best, and what the last third of the curve still added."""
    means = [(p["step"], sum(v for k, v in p.items() if k.endswith("ndcg@10")) /
              max(sum(k.endswith("ndcg@10") for k in p), 1)) for p in curve]
    if len(means) < 3:  # two points cannot show a curve flattening
        return None
    best = max(m for _, m in means)
    first = next(step for step, m in means if m >= best - within)
    cut = means[len(means) * 2 // 3:]
    return {"measure": "mean val NDCG@10 over the curve's scenarios", "within_points": within,
            "best": round(best, 2), "flat_from_step": first, "last_third_gain": round(cut[-1][1] - cut[0][1], 2),
            "points": len(means)}


def compute_row(recipe: dict[str, Any], steps: int, wall_seconds: float | None) -> dict[str, Any] | None:
    """FLOPs of the steps a transformer arm ran (`train --dry-run`'s count) and the FLOP/s it reached here."""
    from sciembed.training.compute_estimate import estimate_compute
    from sciembed.training.recipes import recipe_config

    name = recipe.get("recipe")
    if name in (None, "static") or not steps:
        return None
    est = estimate_compute(recipe_config(name).model_validate(recipe["config"]), steps)
    row: dict[str, Any] = {"flops": est.flops, "cpu_hours": round((wall_seconds or 0) / 3600, 2)}
    if wall_seconds:
        row["achieved_flops_per_s_here"] = round(est.flops / wall_seconds)
    return row


def next_ten_x(training: dict[str, Any], config_path: Path) -> dict[str, Any]:
    """What 10× the planned transformer schedule costs: FLOPs, hours on each named GPU (assumed utilisation) and
    on this CPU at the FLOP/s the trained arms reached here (measured)."""
    from sciembed.training.compute_estimate import estimate_compute
    from sciembed.training.config import load_config
    from sciembed.training.recipes import recipe_config

    planned = max((r.get("max_steps") or 0) for r in training.values() if r.get("compute"))
    rates = [r["compute"]["achieved_flops_per_s_here"] for r in training.values()
             if (r.get("compute") or {}).get("achieved_flops_per_s_here")]
    examples = 10 * planned * load_config(recipe_config("window"), config_path, {}).training.batch_size
    out: dict[str, Any] = {"config": relative(config_path), "planned_steps": planned, "examples": examples}
    gpu = {"training.loss": "cached_mnrl", "training.batch_size": 512, "training.mini_batch_size": 128}
    for label, changes in (("as_configured", {}), ("gpu", gpu),
                           ("gpu_modernbert_512_tokens", {**gpu, "model.base": "answerdotai/ModernBERT-base",
                                                          "model.max_seq_length": 512})):
        config = load_config(recipe_config("window"), config_path, changes)
        steps = examples // config.training.batch_size  # the same examples at any batch size
        est = estimate_compute(config, steps).to_dict()
        if rates:
            est["hours_on_this_cpu"] = round(est["flops"] / min(rates) / 3600, 1)
        out[label] = {"overrides": changes, **est}
    out["command"] = (f"sciembed train window -c {relative(config_path)} --corpus runs/fulltext/corpus --dry-run "
                      "--estimate-for h100 --set training.epochs=20 --set training.loss=cached_mnrl "
                      "--set training.batch_size=512")
    return out


def encode_speed(study: Path, arms: dict[str, str], n_papers: int = 200) -> dict[str, Any]:
    """Papers/s encoding title+abstract and the whole paper (MiniLM reads 256 tokens of it), side by side."""
    from sciembed.corpus.layout import CorpusDir
    from sciembed.models import load_encoder
    from sciembed.views import ta_text
    from sciembed.views.simple import full_text

    papers = list(CorpusDir(study / "corpus").papers().values())[:n_papers]
    views = {"ta": [ta_text(p) for p in papers], "full_text": [full_text(p) for p in papers]}
    out: dict[str, Any] = {"papers": len(papers)}
    for name, model in {"base": None, **arms}.items():
        encoder = load_encoder(model)
        row = {"dim": encoder.dim, "index_bytes_per_paper_flat_float32": 4 * encoder.dim}
        for view, texts in views.items():
            encoder.encode(texts[:8], show_progress=False)  # warm
            start = time.perf_counter()
            encoder.encode(texts, show_progress=False)
            row[f"{view}_papers_per_s"] = round(len(texts) / (time.perf_counter() - start), 1)
        out[name] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", type=Path, required=True, help="A `sciembed study real` directory.")
    parser.add_argument("--arm", action="append", default=[], help="NAME=MODEL_DIR (repeatable).")
    parser.add_argument("--p2p", type=Path, help="A finished `sciembed eval suite configs/bench-fulltext.yaml` run.")
    parser.add_argument("--skip-speed", action="store_true", help="keep the encode speeds of the existing file")
    args = parser.parse_args()
    arms = dict(a.split("=", 1) for a in args.arm)
    evals = citation_rows(args.study, arms, print)
    result: dict[str, Any] = {
        "schema": 1,
        "study": relative(args.study),
        "arms": {name: relative(model) for name, model in arms.items()},
        "citation_and_scitldr": citation_table(evals),
        "protocol": {"acl": "test split, every linked test paper a query, NDCG@10 ×100; MiniLM-based models read "
                            "256 tokens (179-word body windows), static models and BM25 358-word windows",
                     "test": "paired Student t-test (ranx) on per-query NDCG@10, two-sided"},
        "training": (training := training_rows(args.study, arms)),
        "next_10x": next_ten_x(training, REPO / "configs" / "window-hardneg-acl.yaml"),
        "val_references": {"base": val_scores(args.study, "base", None),
                           "bm25": val_scores(args.study, "bm25", "bm25")},
    }
    if args.p2p is not None:
        result["paper_to_paper"] = p2p_table(args.p2p)
    if not args.skip_speed:
        result["encode_speed"] = encode_speed(args.study, arms)
    elif OUT.is_file() and "encode_speed" in (previous := json.loads(OUT.read_text())):
        result["encode_speed"] = previous["encode_speed"]  # measured by an earlier run (quiet box), kept
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {relative(OUT)}")


if __name__ == "__main__":
    main()

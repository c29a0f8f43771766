"""`benchmarks/results/real_acl.json`: the real-paper study's results, from one or more `sciembed study real` runs.

    sciembed study real --out STUDY --arm … --results run.json       # each run: some arms, evaluated by eval suite
    python benchmarks/real_acl_summary.py benchmarks/results/real_acl.json run.json [earlier.json …] \
        --code SHA --command "…"

Each input is a study's results file (or a summary this script wrote, such as `real_acl_scijepa.json`). The
summary keeps the table, the paired t-tests, the study's arms and every cell's metrics and counts; per-query
scores, rankings and singular values are left out (megabytes). Runs are merged only when they agree: a model
two runs both evaluated (the base, BM25) must have the same table row in both, or the script stops — rows of
runs that do not agree are not comparable.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from sciembed.ioutil.portable import portable

HEAVY = ("per_query", "details", "rankings")  # per-query values and the like: not in the summary
REPO = Path(__file__).resolve().parents[1]


def _light(cell: dict[str, Any]) -> dict[str, Any]:
    results = [{k: v for k, v in r.items() if k not in HEAVY} for r in cell.get("results", [])]
    return {k: v for k, v in cell.items() if k in ("model", "benchmark", "key", "status")} | {"results": results}


def merge(runs: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """One summary of several study runs; a model in two runs must have the same row in both."""
    columns = runs[0][1]["table"]["columns"]
    rows: dict[str, list[float]] = {}
    row_source: dict[str, str] = {}
    arms: dict[str, Any] = {}
    tests: dict[tuple, dict[str, Any]] = {}
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    for name, run in runs:
        if run["table"]["columns"] != columns:
            raise SystemExit(f"{name}: table columns {run['table']['columns']} differ from {columns}")
        for model, row in run["table"]["rows"].items():
            if model in rows and any(abs(a - b) > 1e-9 for a, b in zip(rows[model], row, strict=True)):
                raise SystemExit(f"{name}: {model}'s row {row} differs from {row_source[model]}'s {rows[model]}: "
                                 "the runs are not comparable")
            rows.setdefault(model, row)
            row_source.setdefault(model, name)
        for arm_name, arm in run["study"]["arms"].items():  # a packaged config by its name, as the study's YAML
            config = arm.get("config")
            arms[arm_name] = arm | ({"config": f"configs/{Path(config).name}"} if config else {})
        for test in run["significance"]:
            tests.setdefault((test["benchmark"], test["task"], test["model"], test["baseline"]), test)
        for cell in run["cells"]:
            cells.setdefault((cell["model"], cell["benchmark"]), _light(cell))
    return {"study": {**runs[0][1]["study"], "arms": arms}, "table": {"columns": columns, "rows": rows},
            "row_source": row_source, "significance": list(tests.values()), "cells": list(cells.values()),
            "seconds": {name: run.get("seconds") for name, run in runs}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("inputs", nargs="+", type=Path)
    parser.add_argument("--code", required=True, help="The commit the runs' code was at.")
    parser.add_argument("--command", required=True, help="The study commands, as run.")
    parser.add_argument("--what", default="sciembed study real on the real ACL GROBID corpus, evaluated through "
                        "eval suite; a summary of the study's results files (per-query scores left out)")
    args = parser.parse_args()
    runs = [(path.name, json.loads(path.read_text())) for path in args.inputs]
    summary = {"what": args.what, "command": args.command, "code": args.code, **merge(runs)}
    args.out.write_text(json.dumps(portable(summary, REPO), indent=1) + "\n")
    print(f"{args.out}: {len(summary['table']['rows'])} models, {len(summary['significance'])} paired tests")


if __name__ == "__main__":
    main()

"""S2AND's own pipeline (LightGBM pairwise model + clustering) for SciRepEval: its inputs out, its results in.

The published S2AND number (B³ F1, ~92–95 for every model in SciRepEval's tables) needs the ``s2and``
package (not on PyPI), LightGBM and S2AND's name-count tables, so it cannot run here. sciembed writes the
embedding pickles S2AND loads (`write_official_inputs`), names SciRepEval's command (`official_command`) and
reads the ``union`` row of the ``b3`` grid the script writes (`read_official_results`): the leave-one-out
union model per target dataset, × 100, averaged over datasets and seeds. Which row SciRepEval averaged is not
stated in its ``BENCHMARKING.md``; the row is recorded with the score. See docs/fidelity.md (item 4).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.evaluation.issues import BenchmarkError
from sciembed.evaluation.scirepeval.s2and import load_s2and, present_datasets, write_s2and_embeddings

SCRIPT = "scripts/custom_block_transfer_experiment_seed_paper.py"
S3_SOURCE = "s3://ai2-s2-research-public/scirepeval/test/s2and"
ROW = "union"


@dataclass(frozen=True)
class OfficialS2AND:
    """B³ F1 × 100 from S2AND's pipeline: per target dataset (mean over seeds) and their mean."""

    source: Path
    row: str
    seeds: tuple[int, ...]
    per_dataset: dict[str, float] = field(default_factory=dict)

    @property
    def b3_f1(self) -> float:
        return float(np.mean(list(self.per_dataset.values())))

    def describe(self) -> dict[str, Any]:
        return {"clusterer": f"S2AND's pipeline ({SCRIPT}), row {self.row!r} of full_grid.json's b3 grid",
                "source": str(self.source), "seeds": list(self.seeds), "per_dataset_b3_f1": self.per_dataset,
                "b3_f1": self.b3_f1}


def official_command(data_dir: str | Path, experiment: str, suffix: str) -> str:
    """The command SciRepEval's BENCHMARKING.md runs inside an S2AND checkout for embeddings `_<suffix>.pkl`."""
    return (f"cd S2AND; python {SCRIPT} --custom_block_path {Path(data_dir) / 'blocks'} "
            f"--experiment_name {experiment} --exclude_medline --emb_suffix _{suffix}.pkl")


def write_official_inputs(data_dir: str | Path, embed: Callable[[list[str]], Any], suffix: str,
                          sep: str = " [SEP] ") -> list[Path]:
    """``<ds>/<ds>_<suffix>.pkl`` for every S2AND dataset under `data_dir`: every paper of ``<ds>_papers.json``
    embedded by `embed` (texts -> rows) from ``title <sep> abstract``, as allenai/scirepeval
    ``s2and_embeddings.py`` embeds them."""
    data_dir = Path(data_dir)
    names = present_datasets(data_dir)
    if not names:
        raise BenchmarkError(f"{data_dir}: no S2AND dataset (<ds>/<ds>_papers.json, _signatures.json, "
                             f"_clusters.json; fetch: aws s3 --no-sign-request sync {S3_SOURCE} {data_dir})")
    written = []
    for dataset in names:
        texts = load_s2and(data_dir, dataset, sep=sep).texts
        rows = np.asarray(embed(list(texts.values())))
        if rows.shape[0] != len(texts):
            raise BenchmarkError(f"{dataset}: {rows.shape[0]} vectors for {len(texts)} papers")
        written.append(write_s2and_embeddings(data_dir / dataset / f"{dataset}_{suffix}.pkl",
                                              dict(zip(texts, rows, strict=True))))
    return written


def _union_row(grid: Any, where: Path) -> dict[str, float]:
    if not isinstance(grid, list) or not grid or not all(isinstance(r, list) for r in grid):
        raise BenchmarkError(f"{where}: 'b3' is not a grid (a list of rows)")
    header = [str(x) for x in grid[0][1:]]
    rows = [r for r in grid[1:] if r and r[0] == ROW]
    if len(rows) != 1:
        raise BenchmarkError(f"{where}: expected one {ROW!r} row in the b3 grid (the script ran without union "
                             f"models?), found {len(rows)}")
    out: dict[str, float] = {}
    for dataset, value in zip(header, rows[0][1:], strict=False):
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            out[dataset] = 100 * float(value)  # S2AND's b3 F1 is a fraction
    if not out:
        raise BenchmarkError(f"{where}: the {ROW!r} row holds no B3 F1 value")
    return out


def read_official_results(experiment_dir: str | Path) -> OfficialS2AND:
    """The union row of every ``seed_<n>/metrics/full_grid.json`` under `experiment_dir`, averaged over seeds."""
    experiment_dir = Path(experiment_dir)
    grids = sorted(experiment_dir.glob("seed_*/metrics/full_grid.json"))
    if not grids:
        raise BenchmarkError(f"{experiment_dir}: no seed_<n>/metrics/full_grid.json (the folder S2AND's {SCRIPT} "
                             f"writes under <main_data_dir>/experiments/<experiment_name>)")
    per_seed: list[dict[str, float]] = []
    seeds: list[int] = []
    for path in grids:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise BenchmarkError(f"{path}: not a JSON file ({err})") from err
        if not isinstance(data, dict) or "b3" not in data:
            raise BenchmarkError(f"{path}: no 'b3' grid")
        per_seed.append(_union_row(data["b3"], path))
        seed = path.parent.parent.name.removeprefix("seed_")
        seeds.append(int(seed) if seed.isdigit() else len(seeds))
    datasets = sorted(set().union(*per_seed))
    per_dataset = {d: float(np.mean([s[d] for s in per_seed if d in s])) for d in datasets}
    return OfficialS2AND(experiment_dir, ROW, tuple(seeds), per_dataset)


__all__ = ["OfficialS2AND", "official_command", "read_official_results", "write_official_inputs"]

"""Fusion of several rankings, learned on a validation split with ranx and saved as JSON.

A `FusionSpec` names the runs it fuses (e.g. ``bm25``, ``a2a``, ``late``), a
ranx fusion method and normalisation, and its tuned parameters:

=========  ==============  ============================================================
method     norm            score of a paper
=========  ==============  ============================================================
rrf        —               Σ 1 / (k + rank)  (k tuned)
combsum    min-max | zmuv  Σ norm(score)
wsum       min-max | zmuv  Σ w_i · norm_i(score)  (weights tuned on a 0.1 grid)
=========  ==============  ============================================================

`tune_fusion` runs ranx's `optimize_fusion` for every (method, norm) and keeps the best. `fuse_one` applies a
spec to *one* query without ranx (whose numba kernels take tens of seconds to compile), with ranx's scores
(1e-9 floor, missing = 0; checked in tests/search/test_learned_fusion.py).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.errors import SciembedInputError
from sciembed.retrieval.ties import ordered as ties_ordered

FUSION_FILE = "fusion.json"
MEASURED_FUSION = Path(__file__).with_name("measured_fusion.json")  # the default where no fusion.json was tuned
METHODS = ("rrf", "combsum", "wsum")
NORMS = ("min-max", "zmuv")
CANDIDATES: tuple[tuple[str, str | None], ...] = (
    ("rrf", None), ("combsum", "min-max"), ("combsum", "zmuv"), ("wsum", "min-max"), ("wsum", "zmuv"))
Ranking = list[tuple[str, float]]


class FusionError(SciembedInputError, ValueError):
    """A fusion file or request that cannot be used."""


@dataclass
class FusionSpec:
    runs: list[str]  # the fused rankings, in weight order
    method: str = "rrf"
    norm: str | None = None
    params: dict[str, Any] = field(default_factory=dict)  # {"k": 60} | {"weights": [...]}
    tuned: dict[str, Any] = field(default_factory=dict)  # split, metric, score, queries, every candidate's score
    # fingerprint of the encoder whose dense scores it was tuned on (None: not recorded, e.g. an older file):
    # weights mean nothing for another model's score scale, so `check_model` refuses them
    model: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.method, str) or self.method not in METHODS:
            raise FusionError(f"unknown fusion method {self.method!r}; expected one of {', '.join(METHODS)}")
        if self.method != "rrf" and self.norm not in NORMS:
            raise FusionError(f"fusion {self.method} needs a norm: one of {', '.join(NORMS)}")
        if not isinstance(self.runs, list) or len(self.runs) < 2:
            raise FusionError(f"a fusion needs at least two runs, got {self.runs!r}")
        bad = [r for r in self.runs if not isinstance(r, str) or not r.strip()]
        if bad:
            raise FusionError(f"runs: a run name is a non-empty text, got {bad[0]!r}")
        twice = sorted({r for r in self.runs if self.runs.count(r) > 1})
        if twice:
            raise FusionError(f"runs: {', '.join(twice)} named twice (each run is fused once, with one weight)")
        if not isinstance(self.params, dict):
            raise FusionError(f"params: expected an object, got {self.params!r}")
        if not isinstance(self.tuned, dict):
            raise FusionError(f"tuned: expected an object, got {self.tuned!r}")
        if self.method == "rrf":
            if "k" in self.params and not _number(self.params["k"], above=0.0):
                raise FusionError(f"params.k: RRF's k is a finite number above 0 (score 1 / (k + rank)), "
                                  f"got {self.params['k']!r}")
            return
        weights = self.params.get("weights")
        if self.method == "wsum":
            if not isinstance(weights, list) or len(weights) != len(self.runs):
                raise FusionError(f"wsum needs one weight per run ({len(self.runs)}), got {weights!r}")
            if wrong := [w for w in weights if not _number(w, above=None)]:
                raise FusionError(f"params.weights: each weight is a finite number >= 0, got {wrong[0]!r}")
            if not any(float(w) > 0 for w in weights):
                raise FusionError(f"params.weights: at least one weight must be above 0, got {weights!r}")

    @property
    def label(self) -> str:
        if self.method == "rrf":
            return f"rrf(k={self.params.get('k', 60)})"
        if self.method == "combsum":
            return f"combsum({self.norm})"
        weights = ", ".join(f"{r}={w:g}" for r, w in zip(self.runs, self.params["weights"], strict=True))
        return f"wsum({self.norm}; {weights})"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def check_model(self, fingerprints: Sequence[str | None], where: str = "") -> None:
        """Refuse dense scores from an encoder other than the one this fusion was tuned on."""
        if self.model is None:
            return
        other = sorted({f for f in fingerprints if f is not None and f != self.model})
        if other:
            raise FusionError(f"{where + ': ' if where else ''}the fusion {self.label} was tuned on the scores of "
                              f"encoder {self.model}; these scores come from {', '.join(other)}: tune a fusion for "
                              "this model (`sciembed eval run --kind paper_to_paper --set tune_fusion=true`) instead "
                              "of reusing another model's")

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n")
        return path

    @classmethod
    def load(cls, path: str | Path) -> FusionSpec:
        path = Path(path)
        if path.is_dir():
            path = path / FUSION_FILE
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError as exc:
            raise FusionError(f"{path}: no fusion file (tune one with `sciembed eval run --kind "
                              "paper_to_paper --set tune_fusion=true`)") from exc
        except json.JSONDecodeError as exc:
            raise FusionError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from exc
        if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
            raise FusionError(f"{path}: expected an object with a 'runs' list")
        known = {"runs", "method", "norm", "params", "tuned", "model"}
        try:
            return cls(**{k: v for k, v in data.items() if k in known})
        except (TypeError, FusionError) as exc:
            raise FusionError(f"{path}: {exc}") from exc


def _number(value: Any, above: float | None) -> bool:
    """Whether `value` is a finite JSON number (not a bool) that is > `above`, or >= 0 when `above` is None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an integer beyond any float
        return False
    return finite and (value > above if above is not None else value >= 0)


def measured_default(runs: Sequence[str]) -> FusionSpec | None:
    """The fusion measured best on real full-text papers (ACL val split, MiniLM; provenance in the file's
    ``tuned.measured_on``), when `runs` are exactly its runs (else None)."""
    spec = FusionSpec.load(MEASURED_FUSION)
    return spec if sorted(runs) == sorted(spec.runs) else None


def _normalise(scores: np.ndarray, norm: str | None) -> np.ndarray:
    if norm is None or not len(scores):
        return scores
    if norm == "min-max":
        low, high = float(scores.min()), float(scores.max())
        return (scores - low) / max(high - low, 1e-9)
    return (scores - float(scores.mean())) / max(float(scores.std()), 1e-9)


def fuse_one(spec: FusionSpec, rankings: Mapping[str, Ranking], depth: int | None = None) -> Ranking:
    """The fused ranking of one query from its per-run rankings (best first); ties in seeded-hash order."""
    missing = [r for r in spec.runs if r not in rankings]
    if missing:
        raise FusionError(f"fusion {spec.label} needs runs {missing}; got {sorted(rankings)}")
    fused: dict[str, float] = {}
    for i, name in enumerate(spec.runs):
        ranking = list(dict(rankings[name]).items())  # a paper once per run, its first (best) score
        if not ranking:
            continue
        if spec.method == "rrf":
            k = float(spec.params.get("k", 60))
            ordered = ties_ordered(ranking)
            contribution = {d: 1.0 / (k + rank) for rank, (d, _) in enumerate(ordered, 1)}
        else:
            weight = 1.0 if spec.method == "combsum" else float(spec.params["weights"][i])
            values = _normalise(np.asarray([s for _, s in ranking], dtype=np.float64), spec.norm)
            contribution = {d: weight * float(v) for (d, _), v in zip(ranking, values, strict=True)}
        for doc, value in contribution.items():
            fused[doc] = fused.get(doc, 0.0) + value
    ordered = ties_ordered(fused.items())
    return ordered[:depth] if depth is not None else ordered


def fuse_all(spec: FusionSpec, runs: Mapping[str, Mapping[str, Ranking]],
             depth: int | None = None) -> dict[str, Ranking]:
    """`fuse_one` for every query of the first run."""
    queries = runs[spec.runs[0]]
    return {q: fuse_one(spec, {r: runs[r].get(q, []) for r in spec.runs}, depth) for q in queries}


def _ranx_run(rankings: Mapping[str, Ranking], queries: Sequence[str], name: str) -> Any:
    from ranx import Run

    # ranx needs at least one document per query: an empty ranking gets a sentinel that is never relevant
    return Run({q: ({d: float(s) for d, s in rankings.get(q, [])} or {"__none__": 0.0}) for q in queries}, name=name)


def tune_fusion(qrels: Mapping[str, Mapping[str, int]], runs: Mapping[str, Mapping[str, Ranking]],
                metric: str = "ndcg@10", split: str = "val",
                candidates: Sequence[tuple[str, str | None]] = CANDIDATES) -> FusionSpec:
    """The best (method, norm, parameters) on `qrels` by `metric`, every candidate's score kept in `tuned`."""
    from ranx import Qrels, evaluate, fuse, optimize_fusion

    names = list(runs)
    if len(names) < 2:
        raise FusionError(f"tuning a fusion needs at least two runs, got {names}")
    queries = sorted(q for q in qrels if any(v > 0 for v in qrels[q].values()))
    if not queries:
        raise FusionError("no query with a relevant paper to tune the fusion on")
    rq = Qrels({q: {d: int(v) for d, v in qrels[q].items()} for q in queries})
    ranx_runs = [_ranx_run(runs[n], queries, n) for n in names]
    tried: list[dict[str, Any]] = []
    best: FusionSpec | None = None
    best_score = -1.0
    for method, norm in candidates:
        if method == "combsum":
            params: dict[str, Any] = {}
        else:
            params = optimize_fusion(rq, ranx_runs, norm=norm, method=method, metric=metric, show_progress=False,
                                     **({"min_k": 10, "max_k": 100, "step": 10} if method == "rrf" else
                                        {"step": 0.1}))
            params = {k: (list(map(float, v)) if isinstance(v, list | tuple) else v) for k, v in params.items()}
        fused = fuse(ranx_runs, norm=norm, method="wsum" if method == "combsum" else method,
                     params=params if method != "combsum" else {"weights": [1.0] * len(names)})
        score = float(evaluate(rq, fused, metric, save_results_in_run=False))
        tried.append({"method": method, "norm": norm, "params": params, metric: score})
        if score > best_score:
            best_score, best = score, FusionSpec(names, method, norm, params)
    assert best is not None
    best.tuned = {"split": split, "metric": metric, "score": best_score, "queries": len(queries), "tried": tried}
    return best

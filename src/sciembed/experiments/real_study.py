"""`sciembed study real`: every recipe trained and evaluated on real full-text papers, from raw TEI.

One command reproduces the real-text comparison from nothing: ingest GROBID TEI (the ACL/EMNLP
corpus in ``shared/data/acl-grobid`` by default), build the citation corpus with the funnel stages
the metadata allows, evaluate the base encoder and BM25, train every arm of the study config, and
evaluate each trained model the way it is used (its saved token budget, no training prefixes) on

- the test split's citation retrieval: TA→TA, Body→TA and Body→Body (windowed bodies), every
  linked test paper a query;
- the real SciTLDR dev tasks (TLDR→paper, title→abstract, half→half), a check that citation
  training on ACL does not cost general scientific semantics;

with a paired t-test of each trained model against the base per task, and each paper's central
ablation (two arms) side by side. Every stage is resumable: the ingest, the build, a trained arm
and an evaluated model are reused when present, so a re-run after a stop only does what is left.

A study config is YAML (``configs/study-real*.yaml``)::

    source: ../shared/data/acl-grobid/tei
    build: {test_size: 0.15, val_size: 0.1, seed: 0}
    evaluation: {split: test, queries: linked, max_seq_length: 256, scitldr: ../shared/data/scitldr/dev.jsonl}
    arms:
      window: {recipe: window, config: configs/window-acl.yaml}
      window_ta_ta: {recipe: window, config: configs/window-acl.yaml, overrides: {data.strategy: ta_ta},
                     ablation_of: window}
"""

from __future__ import annotations

import json
import math
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sciembed.errors import SciembedInputError
from sciembed.ioutil.yaml_config import read_yaml_mapping, validate_model

SCENARIOS = ("ta_ta", "body_ta", "body_body")
BODY_MODE = "windowed"
BASE = "base"
BM25 = "bm25"
RESULTS_SCHEMA = 1


class RealStudyError(SciembedInputError, ValueError):
    """A study config or output directory that cannot be used; the message says what and where."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BuildSettings(_Strict):
    """Splits sized for a corpus of a few thousand papers (S2Full's 2.4% test share is for S2ORC)."""

    test_size: float = Field(0.15, gt=0, lt=1)
    val_size: float = Field(0.1, gt=0, lt=1)
    # 0: the test share as given (15% of the ACL corpus = 444 linked queries) keeps the training pairs;
    # the build's default tops the test split up to 200 anchor queries, at ~60% of the training pairs
    min_test_anchors: int = Field(0, ge=0)
    seed: int = 0


class EvaluationSettings(_Strict):
    split: Literal["val", "test"] = "test"
    queries: Literal["anchors", "linked"] = "linked"
    max_seq_length: int = Field(256, gt=0)  # every model reads this many tokens (the base's own budget)
    scitldr: Path | None = None  # SciTLDR dev.jsonl; None: no general-semantics check
    batch_size: int = Field(32, gt=0)
    paper_log_seed: int = 0


class ArmSpec(_Strict):
    """A trained arm (`recipe` + `config` + `overrides`), or a weight interpolation of another arm with the
    base (`interpolate_of` + `alpha`, WiSE-FT: `sciembed.training.interpolate`)."""

    recipe: str | None = None
    config: Path | None = None
    overrides: dict[str, Any] = Field(default_factory=dict)
    ablation_of: str | None = None  # the arm this one is the paper's ablation of
    interpolate_of: str | None = None
    alpha: float | None = Field(None, ge=0, le=1)

    @model_validator(mode="after")
    def _one_kind(self):
        trained = self.recipe is not None and self.config is not None
        mixed = self.interpolate_of is not None and self.alpha is not None
        if trained == mixed:
            raise ValueError("an arm is either trained (recipe + config) or interpolated (interpolate_of + alpha)")
        return self


class RealStudyConfig(_Strict):
    study: Literal["real"] = "real"
    source: Path
    base: str | None = None  # None: the offline MiniLM
    build: BuildSettings = BuildSettings()
    evaluation: EvaluationSettings = EvaluationSettings()
    arms: dict[str, ArmSpec] = Field(default_factory=dict)


def load_real_study(path: Path) -> RealStudyConfig:
    """Read a study config; the arms' configs are relative to the config file, the data (``source``,
    ``scitldr``) to the directory sciembed runs in (as in a suite: the repository root)."""
    data = read_yaml_mapping(path, RealStudyError, what="study config")
    config = validate_model(RealStudyConfig, data, str(path), RealStudyError)
    here = Path(path).resolve().parent

    def anchored(p: Path | None) -> Path | None:
        return None if p is None else (p if p.is_absolute() else here / p)

    arms = {name: arm.model_copy(update={"config": anchored(arm.config)}) for name, arm in config.arms.items()}
    for name, arm in arms.items():
        for role, other in (("an ablation of", arm.ablation_of), ("interpolated from", arm.interpolate_of)):
            if other is not None and other not in arms:
                raise RealStudyError(f"{path}: arm {name!r} is {role} {other!r}, which is not an arm")
    return config.model_copy(update={"arms": arms})


@dataclass
class StudyPaths:
    root: Path

    ingested = property(lambda self: self.root / "ingested")
    corpus = property(lambda self: self.root / "corpus")
    runs = property(lambda self: self.root / "runs")
    evals = property(lambda self: self.root / "evals")
    cache = property(lambda self: self.root / "embedding-cache")
    scitldr = property(lambda self: self.root / "scitldr")
    summaries = property(lambda self: self.root / "summaries.jsonl")
    results = property(lambda self: self.root / "results.json")
    report = property(lambda self: self.root / "report.md")


def run_real_study(config: RealStudyConfig, out: Path, say: Callable[[str], None] = print,
                   only: tuple[str, ...] = ()) -> dict[str, Any]:
    """Run (or resume) the study; returns the results written to ``<out>/results.json``."""
    paths = StudyPaths(Path(out))
    paths.root.mkdir(parents=True, exist_ok=True)
    arms = {n: a for n, a in config.arms.items() if not only or n in only}
    unknown = sorted(set(only) - set(config.arms))
    if unknown:
        raise RealStudyError(f"unknown arm(s) {', '.join(unknown)}; the config has {', '.join(config.arms)}")
    for name, arm in arms.items():
        if arm.interpolate_of is not None and arm.interpolate_of not in arms:
            raise RealStudyError(f"arm {name!r} is interpolated from {arm.interpolate_of!r}: run them together")
    train_configs = {name: _arm_config(arm) for name, arm in arms.items() if arm.recipe is not None}  # fail early
    _ingest(config, paths, say)
    _build(config, paths, say)
    train_configs = {name: _with_summaries(cfg, paths, say) for name, cfg in train_configs.items()}
    tasks = _tasks(config, paths)
    models: dict[str, dict[str, Any]] = {}
    models[BASE] = _evaluated(BASE, config.base, config, paths, tasks, say)
    models[BM25] = _evaluated(BM25, BM25, config, paths, tasks, say)
    for name, arm in arms.items():
        if arm.interpolate_of is not None:
            model_dir = _interpolated(name, arm, config, paths, say)
        else:
            model_dir = _trained(name, arm, train_configs[name], paths, say)
        models[name] = _evaluated(name, str(model_dir), config, paths, tasks, say)
    results = _results(config, models, arms)
    paths.results.write_text(json.dumps(results, indent=2) + "\n")
    from sciembed.experiments.real_study_report import render_real_study

    paths.report.write_text(render_real_study(results))
    return results


def _arm_config(arm: ArmSpec):
    from sciembed.training.config import load_config
    from sciembed.training.recipes import recipe_config

    config = load_config(recipe_config(arm.recipe), arm.config, dict(arm.overrides))
    if config.recipe != arm.recipe:
        raise RealStudyError(f"{arm.config}: a {config.recipe} config, not {arm.recipe}")
    return config


def _with_summaries(train_config: Any, paths: StudyPaths, say: Callable[[str], None]) -> Any:
    """A SemCSE arm without a summaries file trains on offline extractive pseudo-summaries of the train
    split (seeded abstract-sentence rewrites, `sciembed summaries generate` without an LLM — NOT LLM
    summaries), made once for the study."""
    if train_config.recipe != "semcse" or train_config.data.summaries is not None:
        return train_config
    if not paths.summaries.is_file():
        from sciembed.corpus.layout import CorpusDir
        from sciembed.summaries.generate import generate_extractive_summaries
        from sciembed.summaries.records import write_summaries

        corpus = CorpusDir(paths.corpus)
        train_ids = set(corpus.split_ids("train"))
        papers = [p for p in corpus.iter_papers() if p.id in train_ids]
        summaries, counts = generate_extractive_summaries(papers)
        write_summaries(summaries, paths.summaries)
        say(f"[summaries] {counts.accepted} extractive pseudo-summaries of {len(papers)} train papers (offline, "
            "not LLM summaries)")
    data = train_config.data.model_copy(update={"summaries": str(paths.summaries), "split": "train"})
    return train_config.model_copy(update={"data": data})


def _ingest(config: RealStudyConfig, paths: StudyPaths, say: Callable[[str], None]) -> None:
    if (paths.ingested / "papers.parquet").is_file():
        return
    from sciembed.papers.ingest import ingest

    start = time.perf_counter()
    result = ingest([config.source], paths.ingested)
    say(f"[ingest] read {result.read} = accepted {result.accepted} + rejected {result.rejected} "
        f"({time.perf_counter() - start:.0f} s)")


def _build(config: RealStudyConfig, paths: StudyPaths, say: Callable[[str], None]) -> None:
    if (paths.corpus / "splits.parquet").is_file():
        return
    from sciembed.corpus.build import build_corpus
    from sciembed.corpus.config import FunnelConfig

    b = config.build
    # GROBID TEI has no field of study and no venue: those stages would remove every paper
    funnel = FunnelConfig(seed=b.seed, test_size=b.test_size, val_size=b.val_size, venue_filter=False,
                          field_filter=False, min_test_anchors=b.min_test_anchors)
    built = build_corpus(paths.ingested, paths.corpus, funnel, edge_files=[], show_progress=False)
    last = built.report.stages[-1]
    say(f"[build] {last.papers} papers, {last.pairs} pairs after the funnel and zero-overlap splits")


@dataclass
class Tasks:
    """The study's contract benchmarks: the ACL citation scenarios and (optionally) SciTLDR's real-text tasks."""

    citation: Any  # ScenarioBenchmark
    scitldr: Any | None  # BeirAdapter, one task per SciTLDR task


def _tasks(config: RealStudyConfig, paths: StudyPaths) -> Tasks:
    from sciembed.evaluation import build_citation_benchmark, load_beir, scenario_benchmark

    e = config.evaluation
    built = build_citation_benchmark(paths.corpus, split=e.split, paper_log_seed=e.paper_log_seed, queries=e.queries)
    citation = scenario_benchmark(built, scenarios=SCENARIOS, body_modes=(BODY_MODE,), geometry=True)
    scitldr = None
    if e.scitldr is not None:
        from sciembed.evaluation.benchmarks.beir import BeirAdapter
        from sciembed.evaluation.scitldr import TASKS, write_scitldr_beir

        if not all((paths.scitldr / task).is_dir() for task in TASKS):
            write_scitldr_beir(e.scitldr, paths.scitldr)
        scitldr = BeirAdapter({task: load_beir(paths.scitldr / task) for task in TASKS}, "scitldr")
    return Tasks(citation, scitldr)


def _trained(name: str, arm: ArmSpec, train_config: Any, paths: StudyPaths, say: Callable[[str], None]) -> Path:
    run_dir = paths.runs / name
    summary = run_dir / "summary.json"
    if summary.is_file() and (run_dir / "model" / "modules.json").is_file():
        return run_dir / "model"
    from sciembed.training.api import train
    from sciembed.training.rundir import RunDir

    say(f"[train {name}] {arm.recipe} from {arm.config}")
    resume = RunDir(run_dir).last_checkpoint() is not None
    if not resume and run_dir.exists():  # stopped before its first complete checkpoint: start it over
        say(f"  {run_dir}: no complete checkpoint yet; training this arm from the start")
        shutil.rmtree(run_dir)
    return train(arm.recipe, train_config, paths.corpus, run_dir, resume=resume, say=lambda s: say("  " + s))


def _interpolated(name: str, arm: ArmSpec, config: RealStudyConfig, paths: StudyPaths,
                  say: Callable[[str], None]) -> Path:
    target = paths.runs / name / "model"
    if (target / "modules.json").is_file():
        return target
    from sciembed.training.interpolate import interpolate_with_base

    source = paths.runs / str(arm.interpolate_of) / "model"
    say(f"[interpolate {name}] {1 - float(arm.alpha):g} × base + {arm.alpha:g} × {arm.interpolate_of}")
    return interpolate_with_base(source, config.base, float(arm.alpha), target)


def _evaluated(name: str, model: str | None, config: RealStudyConfig, paths: StudyPaths, tasks: Tasks,
               say: Callable[[str], None]) -> dict[str, Any]:
    """Per task: score (NDCG@10 ×100), n queries and per-query scores; cached in ``evals/<name>.json``
    (recomputed when the evaluation protocol changed since: `bench.runner.PROTOCOL`)."""
    from sciembed.evaluation.bench.runner import PROTOCOL

    cached = paths.evals / f"{name}.json"
    if cached.is_file():
        kept = json.loads(cached.read_text())
        if kept.get("protocol") == PROTOCOL:
            return kept
    from sciembed.evaluation import evaluate, key_str, normalize_key
    from sciembed.models import load_encoder

    e = config.evaluation
    start = time.perf_counter()
    encoder: Any = BM25
    if model != BM25:
        encoder = load_encoder(model, max_seq_length=e.max_seq_length, cache_dir=paths.cache)
    out: dict[str, Any] = {"model": model or "minilm", "protocol": PROTOCOL, "tasks": {}}
    # every dense model on the same windows (the evaluation budget), whatever training budget a card records
    cell = evaluate(encoder, tasks.citation, batch_size=e.batch_size, show_progress=False,
                    window_tokens=e.max_seq_length if model != BM25 else None)
    for scenario in SCENARIOS:  # TA→TA has no body mode
        out["tasks"][f"acl_{scenario}"] = _task_entry(cell.result(key_str(normalize_key((scenario, BODY_MODE)))))
    geometry = next((r for r in cell.results if r.kind == "geometry"), None)  # dense models only
    if geometry is not None:  # the top-level figures (``a.b`` keys are nested ones)
        out["geometry"] = {k: v for k, v in geometry.metrics.items() if "." not in k}
    if tasks.scitldr is not None:
        beir = evaluate(encoder, tasks.scitldr, batch_size=e.batch_size, show_progress=False)
        for result in beir.results:
            out["tasks"][f"scitldr_{result.task}"] = _task_entry(result)
    out["seconds"] = round(time.perf_counter() - start, 1)
    paths.evals.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(out) + "\n")
    say(f"[evaluate {name}] " + ", ".join(f"{t} {round(v['score'], 2):.1f}" for t, v in out["tasks"].items())
        + f" ({out['seconds']:.0f} s)")
    return out


def _task_entry(result: Any) -> dict[str, Any]:
    """One task's NDCG@10 (×100): its mean, query count and per-query scores."""
    metric = "ndcg@10"
    scores = {q: float(v) for q, v in result.per_query[metric].items()}
    return {"metric": metric, "score": sum(scores.values()) / max(len(scores), 1), "n": len(scores),
            "per_query": scores}


def _results(config: RealStudyConfig, models: dict[str, dict[str, Any]], arms: dict[str, ArmSpec]) -> dict[str, Any]:
    """Per model, per task: score, n, delta and paired p-value against the base (the same numbers as the report)."""
    from sciembed.evaluation.significance import paired_test

    base = models[BASE]["tasks"]
    table: dict[str, Any] = {}
    for name, model in models.items():
        rows = {}
        for task, entry in model["tasks"].items():
            row = {"metric": entry["metric"], "score": round(entry["score"], 2), "n": entry["n"]}
            if name != BASE and task in base:
                test = paired_test(entry["metric"], base[task]["per_query"], entry["per_query"])
                row["delta_vs_base"] = round(test.delta, 2)
                row["p_vs_base"] = None if math.isnan(test.p_value) else float(f"{test.p_value:.3g}")
                row["paired_n"] = test.n
            rows[task] = row
        table[name] = {"model": model["model"], "tasks": rows, "geometry": model.get("geometry")}
    ablations = {}
    for name, arm in arms.items():
        if arm.ablation_of is None or arm.ablation_of not in models:
            continue
        ref = models[arm.ablation_of]["tasks"]
        rows = {}
        for task, entry in models[name]["tasks"].items():
            if task in ref:
                test = paired_test(entry["metric"], ref[task]["per_query"], entry["per_query"])
                rows[task] = {"score": round(entry["score"], 2), "reference": arm.ablation_of,
                              "reference_score": round(ref[task]["score"], 2), "p": float(f"{test.p_value:.3g}")}
        ablations[name] = rows
    return {
        "schema": RESULTS_SCHEMA,
        "source": str(config.source),
        "evaluation": config.evaluation.model_dump(mode="json"),
        "build": config.build.model_dump(mode="json"),
        "arms": {n: a.model_dump(mode="json") for n, a in arms.items()},
        "models": table,
        "ablations": ablations,
        "test": "paired Student t-test (ranx) on per-query NDCG@10, two-sided, against the base encoder",
    }

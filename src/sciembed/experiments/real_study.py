"""`sciembed study real`: every recipe trained and evaluated on real full-text papers, from raw TEI.

Ingest, build, train every arm and evaluate base, BM25 and every arm through one ``eval suite``; every stage
is resumable (docs/real-study.md). A study config is YAML (``configs/study-real.yaml``); data paths are
relative to where sciembed runs, arm configs to the study config, and ``{out}`` in a benchmark path is the
study's ``--out``.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sciembed.errors import SciembedInputError
from sciembed.experiments import run_suite_file
from sciembed.ioutil.yaml_config import read_yaml_mapping, validate_model

BASE = "base"
BM25 = "bm25"


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
    max_seq_length: int = Field(256, gt=0)  # every dense model reads this many tokens, in windows of this budget
    # the suite the study runs, without models and out (the study adds base, bm25 and every arm)
    suite: dict[str, Any] = Field(default_factory=lambda: {"benchmarks": [
        {"name": "acl", "kind": "citation", "path": "{out}/corpus", "query_mode": "linked", "geometry": True}]})
    arms: dict[str, ArmSpec] = Field(default_factory=dict)


def load_real_study(path: Path) -> RealStudyConfig:
    """Read a study config; the arms' configs are relative to the config file, the data (``source``, benchmark
    paths) to the directory sciembed runs in (as in a suite: the repository root)."""
    data = read_yaml_mapping(path, RealStudyError, what="study config")
    config = validate_model(RealStudyConfig, data, str(path), RealStudyError)
    here = Path(path).resolve().parent
    arms = {name: arm.model_copy(update={"config": None if arm.config is None or arm.config.is_absolute()
                                          else here / arm.config}) for name, arm in config.arms.items()}
    for name, arm in arms.items():
        for role, other in (("an ablation of", arm.ablation_of), ("interpolated from", arm.interpolate_of)):
            if other is not None and other not in arms:
                raise RealStudyError(f"{path}: arm {name!r} is {role} {other!r}, which is not an arm")
    if {"models", "out"} & set(config.suite):
        raise RealStudyError(f"{path}: suite: the study sets `models` and `out` itself")
    return config.model_copy(update={"arms": arms})


@dataclass
class StudyPaths:
    root: Path

    ingested = property(lambda self: self.root / "ingested")
    corpus = property(lambda self: self.root / "corpus")
    runs = property(lambda self: self.root / "runs")
    summaries = property(lambda self: self.root / "summaries.jsonl")
    suite = property(lambda self: self.root / "suite.yaml")
    eval = property(lambda self: self.root / "eval")


def run_real_study(config: RealStudyConfig, out: Path, say: Callable[[str], None] = print,
                   only: tuple[str, ...] = ()) -> Any:
    """Run (or resume) the study; returns the suite run, reported under ``<out>/eval`` (report.md, results.json)."""
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
    models = {name: _interpolated(name, arm, config, paths, say) if arm.interpolate_of is not None
              else _trained(name, arm, train_configs[name], paths, say) for name, arm in arms.items()}
    return evaluate_study(config, paths, models, say)


def evaluate_study(config: RealStudyConfig, paths: StudyPaths, models: dict[str, Path],
                   say: Callable[[str], None] = print) -> Any:
    """Write the study's suite (`study_suite`) as ``<out>/suite.yaml``, run it and write its report."""
    run = run_suite_file(paths.suite, study_suite(config, paths, models), say)
    study = {"source": str(config.source), "build": config.build.model_dump(mode="json"),
             "arms": {n: a.model_dump(mode="json") for n, a in config.arms.items() if n in models}}
    results = paths.eval / "results.json"
    results.write_text(json.dumps({"study": study, **json.loads(results.read_text())}, indent=1) + "\n")
    return run


def study_suite(config: RealStudyConfig, paths: StudyPaths, models: dict[str, Path]) -> dict[str, Any]:
    """The suite the study runs: its benchmarks; base and BM25, then every arm (its model directory, tested
    against the base and the arm it ablates), every dense model at the study's token budget and windows."""
    budget = {"max_seq_length": config.max_seq_length, "window_tokens": config.max_seq_length}
    entries = [{"name": BASE, "model": config.base or "minilm", **budget}, {"name": BM25, "model": BM25}]
    for name, model_dir in models.items():
        reference = config.arms[name].ablation_of
        entries.append({"name": name, "model": str(model_dir), **budget,
                        **({"reference": reference} if reference in models else {})})
    benchmarks = [{**b, "path": str(b["path"]).replace("{out}", str(paths.root))}
                  for b in config.suite.get("benchmarks", [])]
    return {**config.suite, "out": str(paths.eval), "baseline": BASE, "models": entries, "benchmarks": benchmarks}


def _arm_config(arm: ArmSpec):
    from sciembed.training.config import load_config
    from sciembed.training.recipes import recipe_config

    config = load_config(recipe_config(arm.recipe), arm.config, dict(arm.overrides))
    if config.recipe != arm.recipe:
        raise RealStudyError(f"{arm.config}: a {config.recipe} config, not {arm.recipe}")
    return config


def _with_summaries(train_config: Any, paths: StudyPaths, say: Callable[[str], None]) -> Any:
    """A SemCSE arm without a summaries file trains on offline extractive pseudo-summaries of the train split
    (`sciembed summaries generate` without an LLM — NOT LLM summaries), made once for the study."""
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


def _trained(name: str, arm: ArmSpec, train_config: Any, paths: StudyPaths, say: Callable[[str], None]) -> Path:
    run_dir = paths.runs / name
    if (run_dir / "summary.json").is_file() and (run_dir / "model" / "modules.json").is_file():
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

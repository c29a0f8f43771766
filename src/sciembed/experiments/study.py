"""`sciembed study s2full`: the S2Full paper's central experiment in one command.

The four sampling strategies are trained from one window config with the same data, steps and seed, and
evaluated next to the base encoder, SPECTER2 (when available) and BM25 (`study_report`).

A study config is YAML::

    train_config: configs/window-demo.yaml   # the window config every arm shares (or `train:` inline)
    overrides: {training.max_steps: 30}      # applied to every arm
    arms:                                    # name -> overrides; only data.strategy may differ
      both_random: {data.strategy: both_random}
      ...
    baselines: [base, specter2, bm25]
    evaluation: {split: test, queries: anchors, window_tokens: null}   # null: the training budget

A plain window config works as well (the four strategies are the arms). A re-run reuses completed arms, resumes
an interrupted one from its last checkpoint, and reads cached embeddings.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sciembed.errors import SciembedInputError
from sciembed.experiments import run_suite_file
from sciembed.ioutil.yaml_config import read_yaml_mapping, validate_model
from sciembed.training.config import STRATEGIES, ConfigError, WindowConfig, config_diff, load_config

BASE = "base"
SPECTER2 = "specter2"
BM25 = "bm25"
REFERENCE_ARM = "ta_ta"
EVAL_NAME = "citation"  # the benchmark's name in the evaluation report: report/benchmarks/citation.md
ARM_FREE_KEYS = ("data.strategy",)  # the only setting arms may change


class StudyError(SciembedInputError, ValueError):
    """A study config or output directory that cannot be used; the message says what and where."""


class EvaluationConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    split: str = "test"
    queries: str = "anchors"
    # body windows' token budget for every model (arms, base, baselines: one set of windows); None: the arms'
    # training budget (model.max_seq_length), never a loaded model's own maximum (issue 32, item 1)
    window_tokens: int | None = Field(None, gt=0)
    paper_log_seed: int = 0
    batch_size: int | None = Field(None, gt=0)  # None: the encoder chooses (GPU memory on CUDA, 32 on CPU)


class StudyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    study: str = "s2full"
    train_config: Path | None = None
    train: dict[str, Any] | None = None
    overrides: dict[str, Any] = Field(default_factory=dict)
    arms: dict[str, dict[str, Any]] = Field(default_factory=lambda: {s: {"data.strategy": s} for s in STRATEGIES})
    baselines: tuple[str, ...] = (BASE, SPECTER2, BM25)
    evaluation: EvaluationConfig = EvaluationConfig()


@dataclass
class Arm:
    name: str
    config: WindowConfig


@dataclass
class StudyPlan:
    config: StudyConfig
    arms: list[Arm]
    source: str

    @property
    def shared(self) -> WindowConfig:
        return self.arms[0].config

    @property
    def window_tokens(self) -> int:
        """The body windows' token budget every model is evaluated on: `evaluation.window_tokens`, else the
        arms' training budget (0.7 × it words: 716 for S2Full's ModernBERT at 1,024 tokens, not 5,734 at the
        8,192 a saved ModernBERT reads)."""
        return int(self.config.evaluation.window_tokens or self.shared.model.max_seq_length)


def load_study(path: Path | None, sets: dict[str, Any] | None = None) -> StudyPlan:
    """Read a study config (or a plain window config), build every arm, and check they differ only by strategy."""
    path = None if path is None else Path(path)
    source = "defaults" if path is None else str(path)
    raw = {} if path is None else read_yaml_mapping(path, StudyError, "study config")
    if "recipe" in raw:  # a plain window config: every arm shares it
        raw = {"train": raw}
    config = validate_model(StudyConfig, raw, source, StudyError, "problem(s) in study config")
    if config.study != "s2full":
        raise StudyError(f"{source}: unknown study {config.study!r}; this command runs 's2full'")
    if config.train is not None and config.train_config is not None:
        raise StudyError(f"{source}: give either train_config or train, not both")
    base_path = config.train_config
    if base_path is not None and not base_path.is_absolute() and path is not None and not base_path.exists():
        base_path = path.parent / base_path  # relative to the study config
    if not config.arms:
        raise StudyError(f"{source}: no arms")
    arms = []
    for name, arm_overrides in config.arms.items():
        overrides = {**config.overrides, **(sets or {}), **arm_overrides}
        try:  # an inline `train` (a copy: overrides must not reach the next arm) as dotted keys under the overrides
            inline = _flatten(json.loads(json.dumps(config.train or {})))
            arm_config = load_config(WindowConfig, base_path, {**inline, **overrides})
        except ConfigError as exc:
            raise StudyError(f"{source}: arm {name!r}: {exc}") from None
        arms.append(Arm(name, arm_config))
    _check_arms_agree(arms, source)
    return StudyPlan(config, arms, source)


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict) and value:
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _check_arms_agree(arms: list[Arm], source: str) -> None:
    """Arms must share data, steps, model and seed: only `ARM_FREE_KEYS` may differ."""
    first = arms[0]
    problems = []
    for arm in arms[1:]:
        diffs = [d for d in config_diff(first.config.model_dump(mode="json"), arm.config.model_dump(mode="json"))
                 if not d.startswith(tuple(k + ":" for k in ARM_FREE_KEYS))]
        if diffs:
            problems.append(f"arm {arm.name!r} vs {first.name!r}: " + "; ".join(diffs))
    if problems:
        raise StudyError(f"{source}: the arms disagree on more than the strategy (same data, steps and seed "
                         f"are the point of the study): " + " | ".join(problems))
    strategies = [a.config.data.strategy for a in arms]
    if len(set(strategies)) != len(strategies):
        raise StudyError(f"{source}: two arms train the same strategy ({', '.join(strategies)})")


# ------------------------------------------------------------------ running


@dataclass
class StudyResult:
    out: Path
    report: Path
    table: list[dict[str, Any]]
    trained: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def _arm_done(run_dir: Path) -> bool:
    summary = run_dir / "summary.json"
    return summary.exists() and (run_dir / "model").is_dir() and bool(json.loads(summary.read_text()).get("completed"))


def _check_reuse(run_dir: Path, arm: Arm, corpus: Path) -> None:
    saved = json.loads((run_dir / "recipe.json").read_text())
    diffs = config_diff(saved.get("config", {}), arm.config.model_dump(mode="json"))
    if diffs or Path(saved.get("corpus", "")).resolve() != corpus.resolve():
        what = "; ".join(diffs) or f"corpus {saved.get('corpus')} vs {corpus}"
        raise StudyError(f"{run_dir}: arm {arm.name!r} was trained with another config or corpus ({what}); "
                         "use another --out or remove that directory")


def run_study(plan: StudyPlan, corpus: Path, out: Path, *, log: Callable[[str], None] = print,
              show_progress: bool = True) -> StudyResult:
    """Train the missing arms, evaluate every model, write `out/report/` and `out/study.md`."""
    from sciembed.corpus.layout import CorpusDir
    from sciembed.training.api import train
    from sciembed.training.recipes import recipe_module

    corpus, out = Path(corpus), Path(out)
    CorpusDir(corpus).require("papers.parquet", "pairs.parquet", "splits.parquet")
    for arm in plan.arms:  # every plan problem before any training
        recipe_module("window").prepare(arm.config, corpus)
    out.mkdir(parents=True, exist_ok=True)
    (out / "study.json").write_text(json.dumps({"source": plan.source, "corpus": str(corpus),
                                                "config": plan.config.model_dump(mode="json"),
                                                "arms": {a.name: a.config.model_dump(mode="json") for a in plan.arms}},
                                               indent=2, default=str) + "\n")
    result = StudyResult(out=out, report=out / "study.md", table=[])
    for arm in plan.arms:
        run_dir = out / "arms" / arm.name
        if _arm_done(run_dir):
            _check_reuse(run_dir, arm, corpus)
            log(f"[{arm.name}] trained already ({run_dir}/model): not re-trained")
            result.reused.append(arm.name)
            continue
        resume = (run_dir / "recipe.json").exists()
        log(f"[{arm.name}] training ({'resuming' if resume else 'from the start'})")
        t0 = time.perf_counter()
        train("window", arm.config, corpus, run_dir, resume=resume)
        result.seconds[f"train {arm.name}"] = round(time.perf_counter() - t0, 1)
        result.trained.append(arm.name)

    run = _evaluate(plan, corpus, out, result, log)
    cells = [run.cells[(m.name, EVAL_NAME)] for m in run.suite.models]
    compositions = {path.parent.name: json.loads(path.read_text())
                    for path in (out / "arms" / a.name / "composition.json" for a in plan.arms) if path.exists()}
    from sciembed.evaluation.bench.report import significance
    from sciembed.experiments.study_report import render_study

    tests = {(s["model"], s["task"]): (s["delta"], s["p_value"], s["n"]) for s in significance(run)}
    manifest = CorpusDir(corpus).manifest() if (corpus / "manifest.json").exists() else {}
    text, table = render_study(cells, run.benchmarks[EVAL_NAME].describe(), compositions, [a.name for a in plan.arms],
                               REFERENCE_ARM, tests, result.skipped, run.out / "report.md",
                               run.out / "benchmarks" / f"{EVAL_NAME}.md", synthetic=bool(manifest.get("synthetic")))
    result.table = table
    result.report.write_text(text, encoding="utf-8")
    (out / "timings.json").write_text(json.dumps(result.seconds, indent=2) + "\n")
    return result


def _evaluate(plan: StudyPlan, corpus: Path, out: Path, result: StudyResult, log: Callable[[str], None]) -> Any:
    """Every arm (ta_ta first: the significance baseline) and baseline through one suite, ``out/suite.yaml``, run
    by `eval suite`'s executor and reported by its writer in ``out/report``; a baseline that cannot be loaded
    (SPECTER2 without the `adapters` extra) is skipped and named."""
    from sciembed.evaluation import BODY_MODES
    from sciembed.evaluation.bench.models import make_scorer
    from sciembed.evaluation.bench.suite import ModelEntry
    from sciembed.models import ModelLoadError

    shared, ev = plan.shared, plan.config.evaluation
    budget = {"max_seq_length": shared.model.max_seq_length}
    models = [{"name": a.name, "model": str(out / "arms" / a.name), **budget}
              for a in sorted(plan.arms, key=lambda a: a.name != REFERENCE_ARM)]
    for baseline in plan.config.baselines:
        if baseline == BASE:
            base = shared.model.base or "minilm"
            models.append({"name": f"base ({base})", "model": base, **budget})
        elif baseline == BM25:
            models.append({"name": BM25, "model": BM25})
        else:
            try:  # loaded once here to know it can be: a missing optional baseline must not stop the study
                make_scorer(ModelEntry(name=baseline, model=baseline), out / "report" / "embedding-cache")
                models.append({"name": baseline, "model": baseline})
            except (ModelLoadError, ImportError, ValueError) as exc:
                log(f"[{baseline}] skipped: {str(exc).splitlines()[0]}")
                result.skipped[baseline] = str(exc)
    benchmark = {"name": EVAL_NAME, "kind": "citation", "path": str(corpus), "split": ev.split,
                 "query_mode": ev.queries, "seed": ev.paper_log_seed, "body_modes": list(BODY_MODES),
                 "geometry": True, "window_tokens": plan.window_tokens}
    suite = {"out": str(out / "report"), "batch_size": ev.batch_size, "models": models, "benchmarks": [benchmark]}
    t0 = time.perf_counter()
    run = run_suite_file(out / "suite.yaml", suite, log, keep_going=False)
    result.seconds["evaluate"] = round(time.perf_counter() - t0, 1)
    return run

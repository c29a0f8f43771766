"""The main job on real papers: ingest → stats → build → evaluate (base encoder, BM25) → train → evaluate.

Each stage calls the Python API its CLI command uses, so the demo is also a map of the pipeline; `synthetic`
swaps in the seeded synthetic corpus (tests, scale checks). See docs/demo.md.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.errors import SciembedInputError
from sciembed.experiments import run_suite_file
from sciembed.ioutil.memory import peak_mb, reset_peak, return_freed_memory
from sciembed.ioutil.yaml_config import packaged_config

DEMO_TRAIN_CONFIG = packaged_config("window-demo.yaml")  # package data, found wherever sciembed is installed
# the shared data next to the repository, relative to where sciembed runs (the repository root), as in a suite
SHARED_DATA = Path(os.environ.get("SCIEMBED_SHARED_DATA") or "../shared/data")
ACL_TEI = SHARED_DATA / "acl-grobid" / "tei"
SCITLDR_DEV = SHARED_DATA / "scitldr" / "dev.jsonl"  # real text: does citation training cost general semantics?
RUN_DEPTH = 100  # TREC run files of each model's top 100


class DemoError(SciembedInputError, ValueError):
    """The demo cannot start (no source corpus, bad settings); the message says what to do."""


@dataclass
class DemoConfig:
    out: Path
    source: Path = ACL_TEI  # GROBID TEI folder (or any folder `sciembed corpus ingest` reads)
    papers: int | None = None  # None: every file of `source`; N: a seeded slice of N files
    synthetic: int | None = None  # N: N synthetic papers instead of `source` (tests, scale checks)
    seed: int = 0
    # sized for a few thousand papers: 444 linked test queries on the ACL corpus, taken as given (no top-up
    # to 200 anchor queries, which would cost ~60% of the training pairs)
    test_size: float = 0.15
    val_size: float = 0.1
    base_model: str | None = None  # None: the offline MiniLM
    eval_max_seq_length: int | None = None  # None: the base's own budget (MiniLM 256), for every model
    train: bool = True
    train_config: Path = DEMO_TRAIN_CONFIG
    train_overrides: dict[str, Any] = field(default_factory=dict)
    # WiSE-FT: the trained weights moved this far from the base's (1: the trained model as is). 0.5, fixed in
    # advance (Wortsman et al. 2022), kept the real-text study's citation gains without its SciTLDR loss
    interpolate: float | None = 0.5
    real_text: Path | None = None  # SciTLDR dev.jsonl: also compare base and trained on it
    # S2Full's body views (a random window per paper); ("windowed", "full") adds whole-body views
    body_modes: tuple[str, ...] = ("windowed",)


@dataclass
class DemoResult:
    out: Path
    report: Path
    cells: list[Any]  # the suite's citation cell of each model: base, trained, BM25
    timings: dict[str, float]
    paths: dict[str, Path]
    real_text: dict[str, dict[str, float]] = field(default_factory=dict)  # task -> model -> NDCG@10
    synthetic: bool = False
    significance: list[dict[str, Any]] = field(default_factory=list)  # trained vs base, per column


def source_files(config: DemoConfig) -> list[Path]:
    """The input files: every file of the source folder, or a seeded slice of `papers` of them."""
    source = Path(config.source)
    if not source.is_dir():
        raise DemoError(f"{source}: no such folder — the demo reads the real GROBID TEI corpus there "
                        "(shared/data/acl-grobid/tei); point --source at your own TEI/JSONL folder, "
                        "or run --synthetic N")
    files = sorted(p for p in source.rglob("*") if p.is_file() and not p.name.startswith("."))
    if not files:
        raise DemoError(f"{source}: the folder holds no files")
    if config.papers is not None and config.papers < len(files):
        files = sorted(random.Random(config.seed).sample(files, config.papers))
    return files


def run_demo(config: DemoConfig, say: Callable[[str], None] = print) -> DemoResult:
    """Run every stage; returns where things are and how long each stage took."""
    from sciembed.corpus.build import build_corpus
    from sciembed.corpus.config import FunnelConfig
    from sciembed.papers.ingest import ingest
    from sciembed.views import target_words
    from sciembed.views.stats import length_stats, plot_lengths

    window_config = _window_config(config) if config.train else None  # fail on a bad config before any work
    files = source_files(config) if config.synthetic is None else []
    out = Path(config.out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    paths = {"ingested": out / "ingested", "corpus": out / "corpus", "eval": out / "eval",
             "model": out / "window-model", "cache": out / "embedding-cache"}
    timings: dict[str, float] = {}

    def stage(name: str):
        return _Timer(name, timings, say)

    if config.synthetic is not None:
        from sciembed.synth import write_synthetic

        with stage("synthesize"):
            write_synthetic(out / "synth", config.synthetic, seed=config.seed, progress=True)
        files = [out / "synth" / "papers.jsonl.gz"]
    with stage("ingest"):
        result = ingest(files, paths["ingested"])
        what = "synthetic papers" if config.synthetic is not None else f"files of {config.source}"
        say(f"  {len(files) if config.synthetic is None else config.synthetic} {what}")
        say(f"  read {result.read} = accepted {result.accepted} + rejected {result.rejected}")
    with stage("stats"):
        from sciembed.corpus.layout import CorpusDir

        stats = length_stats(CorpusDir(paths["ingested"]).iter_papers(), target_words(512))
        (paths["ingested"] / "stats.json").write_text(json.dumps(stats.to_dict(), indent=2))
        plot_lengths(stats, paths["ingested"] / "lengths.png", title="demo corpus")
        for row in stats.table():
            say(f"  {row['quantity']:<20} mean {row['mean']:7.1f}  median {row['median']:7.1f}  "
                f"Q25 {row['q25']:7.1f}  Q75 {row['q75']:7.1f}  max {row['max']:7.0f}")
    with stage("corpus build"):
        real = config.synthetic is None  # GROBID TEI has no field of study and no venue: skip those stages
        funnel = FunnelConfig(seed=config.seed, test_size=config.test_size, val_size=config.val_size,
                              venue_filter=not real, field_filter=not real, min_test_anchors=0)
        built = build_corpus(paths["ingested"], paths["corpus"], funnel, edge_files=[], show_progress=False)
        for step in built.report.stages:
            say(f"  {step.name:<42} papers {step.papers:>6}  pairs {step.pairs:>6}")
    with stage("base encoder's budget"):
        from sciembed.models import load_encoder

        budget = config.eval_max_seq_length or load_encoder(config.base_model, cache_dir=paths["cache"]).max_seq_length
    base_name = f"{config.base_model or 'minilm'} (base, {budget} tokens)"
    models: list[dict[str, Any]] = [{"name": base_name, "model": config.base_model or "minilm",
                                     "max_seq_length": budget}]
    trained = None
    if window_config is not None:
        with stage("train window model"):
            from sciembed.training import train

            trained = train("window", window_config, paths["corpus"], paths["model"], say=lambda line: say("  " + line))
        label = "window (trained"
        if config.interpolate is not None and config.interpolate < 1:
            with stage("interpolate with the base (WiSE-FT)"):
                from sciembed.training.interpolate import interpolate_with_base

                trained = interpolate_with_base(trained, config.base_model, config.interpolate,
                                                paths["model"] / f"wise-{config.interpolate:g}")
                say(f"  {1 - config.interpolate:g} × base + {config.interpolate:g} × trained -> {trained}")
                label += f", WiSE-FT α {config.interpolate:g}"
        # the base's budget and windows, not the training budget its card records: every model reads the same
        models.append({"name": f"{label}, {budget} tokens)", "model": str(trained), "max_seq_length": budget,
                       "window_tokens": budget})
    models.append({"name": "bm25", "model": "bm25"})
    benchmarks = [{"name": "citation", "kind": "citation", "path": str(paths["corpus"]), "query_mode": "linked",
                   "seed": config.seed, "body_modes": list(config.body_modes), "geometry": True}]
    if trained is not None and config.real_text is not None and Path(config.real_text).is_file():
        benchmarks.append({"name": "scitldr", "kind": "scitldr", "path": str(config.real_text)})
    with stage("evaluate (eval suite)"):
        suite = {"out": str(paths["eval"]), "cache": str(paths["cache"]), "run_depth": RUN_DEPTH, "models": models,
                 "benchmarks": benchmarks}
        run = run_suite_file(out / "suite.yaml", suite, lambda _: None, keep_going=False, allow_unicode=True)
    cells = [run.cells[(m["name"], "citation")] for m in models]
    significance = trained_vs_base(run) if trained is not None else []
    real_text: dict[str, dict[str, float]] = {}
    if "scitldr" in run.benchmarks:
        real_text = {r.task: {"base": r.metrics["ndcg@10"],
                              "trained": run.cells[(models[1]["name"], "scitldr")].result(r.task).metrics["ndcg@10"]}
                     for r in run.cells[(base_name, "scitldr")].results}
        (out / "real_text.json").write_text(json.dumps(real_text, indent=2))
        for line in real_text_lines(real_text):
            say("  " + line)
    (out / "timings.json").write_text(json.dumps(timings, indent=2))
    (out / "significance.json").write_text(json.dumps(significance, indent=2))
    return DemoResult(out, run.out / "report.md", cells, timings, paths, real_text, config.synthetic is not None,
                      significance)


def trained_vs_base(run: Any) -> list[dict[str, Any]]:
    """The suite's paired t-test of the trained model (second) against the base (first) on each citation column."""
    from sciembed.evaluation.bench.report import significance
    from sciembed.evaluation.keys import key_label, normalize_key

    base, trained = (m.name for m in run.suite.models[:2])
    rows = []
    for s in significance(run):
        if s["benchmark"] == "citation" and s["model"] == trained and s["task"] != "geometry":
            means = [run.cells[(m, "citation")].result(s["task"]).metrics[s["metric"]] for m in (base, trained)]
            rows.append({"column": key_label(normalize_key(s["task"])), "base": means[0], "trained": means[1],
                         "delta": s["delta"], "p": s["p_value"], "n": s["n"]})
    return rows


def significance_lines(rows: list[dict[str, Any]], alpha: float = 0.05) -> list[str]:
    """One line per column: trained − base, the p-value and what it means."""
    lines = ["trained vs base (paired t-test on per-query NDCG@10):"]
    for r in rows:
        verdict = ("not significant" if r["p"] > alpha
                   else "significantly better" if r["delta"] > 0 else "SIGNIFICANTLY WORSE")
        lines.append(f"  {r['column']:<24} {r['base']:5.1f} → {r['trained']:5.1f}  ({r['delta']:+.1f}, "
                     f"p = {r['p']:.2g}, n = {r['n']}): {verdict}")
    return lines


def real_text_lines(real_text: dict[str, dict[str, float]]) -> list[str]:
    """The few lines printed under the demo's table: base vs trained on real papers."""
    lines = ["real text (SciTLDR dev, real abstracts; NDCG@10 ×100, base → trained):"]
    for task, scores in real_text.items():
        delta = scores["trained"] - scores["base"]
        lines.append(f"  {task:<15} {scores['base']:5.1f} → {scores['trained']:5.1f}  ({delta:+.1f})")
    return lines


def _window_config(config: DemoConfig):
    from sciembed.training import WindowConfig, load_config

    overrides = dict(config.train_overrides)
    if config.base_model:
        overrides.setdefault("model.base", config.base_model)
    return load_config(WindowConfig, config.train_config, overrides)


class _Timer:
    def __init__(self, name: str, timings: dict[str, float], say: Callable[[str], None]) -> None:
        self.name, self.timings, self.say = name, timings, say

    def __enter__(self) -> _Timer:
        self.say(f"[{self.name}]")
        return_freed_memory()  # what the previous stage freed leaves the process before this one starts
        self.measured = reset_peak()  # per-stage peak resident memory (Linux)
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.timings[self.name] = round(time.perf_counter() - self.start, 2)
        if self.measured:
            self.timings[f"{self.name} peak_rss_mb"] = peak_mb()
        if exc[0] is None:
            memory = f", peak {peak_mb()} MB resident" if self.measured else ""
            self.say(f"  done in {self.timings[self.name]:.1f} s{memory}")

"""The main job: synthesize → ingest → stats → build → evaluate (BM25, base encoder) → train → evaluate.

Each stage calls the same Python API its CLI command uses, so the demo is
also a map of the pipeline. Everything it writes lives under one directory
and says it is synthetic.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.ioutil.memory import peak_mb, reset_peak, return_freed_memory

REPO_CONFIGS = Path(__file__).resolve().parents[2] / "configs"
# Real text for the check that a model trained on synthetic papers is not worse on real ones.
SCITLDR_DEV = Path(os.environ.get("SCIEMBED_SHARED_DATA") or Path(__file__).resolve().parents[3] / "shared" / "data") \
    / "scitldr" / "dev.jsonl"


@dataclass
class DemoConfig:
    out: Path
    papers: int = 3000
    seed: int = 0
    test_size: float = 0.25
    val_size: float = 0.05
    base_model: str | None = None  # None: the offline MiniLM
    train: bool = True
    train_config: Path = REPO_CONFIGS / "window-demo.yaml"
    train_overrides: dict[str, Any] = field(default_factory=dict)
    real_text: Path | None = SCITLDR_DEV  # SciTLDR dev.jsonl; None or absent: no real-text check
    # S2Full's body views (a random window per paper); ("windowed", "full") adds whole-body views and
    # doubles the body encoding, which the 10-minute budget of `make demo` has no room for
    body_modes: tuple[str, ...] = ("windowed",)


@dataclass
class DemoResult:
    out: Path
    report: Path
    runs: list[Any]
    timings: dict[str, float]
    paths: dict[str, Path]
    real_text: dict[str, dict[str, float]] = field(default_factory=dict)  # task -> model -> NDCG@10


def run_demo(config: DemoConfig, say: Callable[[str], None] = print) -> DemoResult:
    """Run every stage; returns where things are and how long each stage took."""
    from sciembed.corpus.build import build_corpus
    from sciembed.corpus.config import FunnelConfig
    from sciembed.evaluation import build_citation_benchmark, evaluate_encoder, write_report
    from sciembed.papers.ingest import ingest
    from sciembed.synth import write_synthetic
    from sciembed.views import target_words
    from sciembed.views.stats import length_stats, plot_lengths

    window_config = _window_config(config) if config.train else None  # fail on a bad config before any work
    # Like-for-like: the base encoder reads as many tokens as the trained model does.
    budget = window_config.model.max_seq_length if window_config else None
    out = Path(config.out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    paths = {
        "synth": out / "synth",
        "ingested": out / "ingested",
        "corpus": out / "corpus",
        "eval": out / "eval",
        "model": out / "window-model",
        "cache": out / "embedding-cache",
    }
    timings: dict[str, float] = {}

    def stage(name: str):
        return _Timer(name, timings, say)

    with stage("synthesize"):
        write_synthetic(paths["synth"], config.papers, seed=config.seed, progress=True)
    with stage("ingest"):
        result = ingest([paths["synth"] / "papers.jsonl.gz"], paths["ingested"])
        say(f"  read {result.read} = accepted {result.accepted} + rejected {result.rejected}")
    with stage("stats"):
        from sciembed.corpus.layout import CorpusDir

        stats = length_stats(CorpusDir(paths["ingested"]).iter_papers(), target_words(512))
        (paths["ingested"] / "stats.json").write_text(json.dumps(stats.to_dict(), indent=2))
        plot_lengths(stats, paths["ingested"] / "lengths.png", title="synthetic demo corpus")
        for row in stats.table():
            say(f"  {row['quantity']:<20} mean {row['mean']:7.1f}  median {row['median']:7.1f}  "
                f"Q25 {row['q25']:7.1f}  Q75 {row['q75']:7.1f}  max {row['max']:7.0f}")
        say(f"  windows reaching the {stats.target_words}-word target: {100 * stats.window_full_share:.1f}%")
    with stage("corpus build"):
        funnel = FunnelConfig(seed=config.seed, test_size=config.test_size, val_size=config.val_size)
        built = build_corpus(paths["ingested"], paths["corpus"], funnel, edge_files=[], show_progress=False)
        for step in built.report.stages:
            say(f"  {step.name:<32} papers {step.papers:>6}  pairs {step.pairs:>6}")
    with stage("benchmark"):
        bench = build_citation_benchmark(paths["corpus"], split="test", paper_log_seed=config.seed)
    # The base encoder comes first: the report tests every other model against it.
    runs = []
    with stage("evaluate base encoder"):
        base = _load(config.base_model, paths["cache"], budget)
        runs.append(evaluate_encoder(base, bench, body_modes=config.body_modes, show_progress=True))
        runs[-1].model = f"{base.name} (base, {base.max_seq_length} tokens)"
    if window_config is not None:
        with stage("train window model"):
            from sciembed.training import train

            model_dir = train("window", window_config, paths["corpus"], paths["model"])
        with stage("evaluate trained model"):
            trained = _load(str(model_dir), paths["cache"])
            runs.append(evaluate_encoder(trained, bench, body_modes=config.body_modes, show_progress=True))
            runs[-1].model = f"window (trained, {trained.max_seq_length} tokens)"
    with stage("evaluate bm25"):
        runs.append(evaluate_encoder("bm25", bench, body_modes=config.body_modes, show_progress=True))
    with stage("report"):
        report = write_report(runs, bench, paths["eval"])
    real_text: dict[str, dict[str, float]] = {}
    if window_config is not None and config.real_text is not None and Path(config.real_text).is_file():
        with stage("real-text check (SciTLDR dev)"):
            real_text = _real_text_check(Path(config.real_text), out / "scitldr", {"base": base, "trained": trained})
            (out / "real_text.json").write_text(json.dumps(real_text, indent=2))
            for line in real_text_lines(real_text):
                say("  " + line)
    (out / "timings.json").write_text(json.dumps(timings, indent=2))
    return DemoResult(out, report, runs, timings, paths, real_text)


def _real_text_check(source: Path, folder: Path, models: dict[str, Any]) -> dict[str, dict[str, float]]:
    """NDCG@10 of each model on SciTLDR's three real-text tasks (all dev papers as candidates)."""
    from sciembed.evaluation import evaluate_encoder, load_beir
    from sciembed.evaluation.scitldr import TASKS, write_scitldr_beir

    write_scitldr_beir(source, folder)
    out: dict[str, dict[str, float]] = {}
    for task in TASKS:
        bench = load_beir(folder / task)
        out[task] = {name: 100 * evaluate_encoder(model, bench, show_progress=False).primary(("beir", None))
                     for name, model in models.items()}
    return out


def real_text_lines(real_text: dict[str, dict[str, float]]) -> list[str]:
    """The few lines printed under the demo's table: base vs trained on real papers."""
    lines = ["real text (SciTLDR dev, real abstracts; NDCG@10 ×100, base → trained):"]
    for task, scores in real_text.items():
        delta = scores["trained"] - scores["base"]
        lines.append(f"  {task:<15} {scores['base']:5.1f} → {scores['trained']:5.1f}  ({delta:+.1f})")
    return lines


def _load(model: str | None, cache: Path, max_seq_length: int | None = None):
    from sciembed.models import load_encoder

    return load_encoder(model, cache_dir=cache, max_seq_length=max_seq_length)


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

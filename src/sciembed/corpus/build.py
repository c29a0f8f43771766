"""`build_corpus`: ingested corpus + edge files -> built corpus (funnel, zero-overlap splits, reports).

The layout is `corpus/layout.py`'s; the files are byte-for-byte reproducible from the same input, config and seed.
"""

from __future__ import annotations

import json
import shutil
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from sciembed.corpus.config import FunnelConfig
from sciembed.corpus.edges import EdgeFileStats, read_edge_files
from sciembed.corpus.engine import connect, run
from sciembed.corpus.funnel import FunnelOutcome, run_funnel
from sciembed.corpus.layout import SPLITS, CorpusDir, CorpusError
from sciembed.corpus.outputs import write_pairs_and_splits, write_papers
from sciembed.corpus.papers_table import PaperLoad, load_papers
from sciembed.corpus.power import detectable_difference
from sciembed.corpus.report import FunnelReport, StageCount, funnel_markdown
from sciembed.corpus.resolve import ReferenceStats, resolve_references
from sciembed.corpus.splits import SplitStats, assign_splits
from sciembed.ioutil.atomic import staged_dir
from sciembed.ioutil.figures import pyplot, save_figure
from sciembed.papers.io import write_manifest

OUTPUT_FILES = ("papers.parquet", "pairs.parquet", "citations.parquet", "splits.parquet", "manifest.json",
                "funnel.json", "funnel.md", "degree_distribution.png", "domain_pairs.png")
PAIR_DOMAIN_RULE = "a pair's domain is the domain of paper_a, its anchor (the lexicographically first id)"
CAP_RULE = ("per domain, keep the pairs with the smallest md5('{seed}:{paper_a}:{paper_b}') read as a little-endian "
            "128-bit integer; ties by paper_a, paper_b")


class BuildError(CorpusError):
    """The build cannot start (bad input or output directory)."""


class EmptyBuildError(BuildError):
    """The funnel or the splits left nothing to evaluate or train on; no corpus is written."""


# How to keep what a stage removed: the option that switches it off or loosens it.
_STAGE_HINTS = {
    "venue": "--set venue_filter=false",
    "field": "--set field_filter=false",
    "degree": "--set degree_filter=false or a larger --set max_degree=N",
    "text": "--set text_filter=false or a smaller --set min_body_chars=N / min_body_sections=N",
    "cap": "--set domain_cap_filter=false or a larger --set domain_cap=N",
}
_NO_LINKS = ("no citation links between the corpus's own papers: its references resolve to none of them "
             "(see the references line) and no --edges file gave any")


@dataclass
class BuildResult:
    out_dir: Path
    report: FunnelReport
    references: ReferenceStats
    edge_files: list[EdgeFileStats]
    splits: SplitStats
    manifest: dict[str, Any]
    timings: dict[str, float] = field(default_factory=dict)  # seconds per step (not written to disk)


def build_corpus(corpus_dir: Path, out_dir: Path, config: FunnelConfig, edge_files: Sequence[Path] = (),
                 show_progress: bool = False, overwrite: bool = False) -> BuildResult:
    """Run the funnel and the splits over an ingested corpus and write a built corpus to `out_dir`."""
    source = CorpusDir(corpus_dir)
    source.require("papers.parquet")
    if not source.manifest_path.exists():  # ingest writes its manifest last: without one it never finished
        raise BuildError(f"{source.root}: no manifest.json, so its ingest never finished; "
                         "run `sciembed corpus ingest` again")
    input_manifest = source.manifest()
    out_dir = Path(out_dir)
    _prepare_out_dir(source.root, out_dir, overwrite)
    timings: dict[str, float] = {}
    # Written into a hidden temporary directory renamed into place at the end (sciembed.ioutil.atomic).
    with staged_dir(out_dir, overwrite=overwrite) as stage:
        temp_dir = Path(config.temp_dir) if config.temp_dir else stage / ".duckdb_tmp"
        try:
            with _Steps(show_progress, timings) as step, \
                    connect(config.duckdb_threads(), config.memory_limit, temp_dir) as con:
                load, refs, files, outcome, split_stats = _run(con, step, source, stage, config, edge_files)
        finally:
            if not config.temp_dir:
                shutil.rmtree(temp_dir, ignore_errors=True)
        degree_plot(outcome.degree_histogram, config.max_degree, stage / "degree_distribution.png",
                    config.degree_filter)
        domain_plot(outcome.domain_pairs_before_cap, outcome.domain_pairs_after_cap, config.domain_cap,
                    stage / "domain_pairs.png", config.domain_cap_filter)
        manifest = _manifest(source, input_manifest, list(edge_files), config, load, outcome, refs, files,
                             split_stats)
        _write_reports(stage, manifest, outcome)
        manifest = write_manifest(stage, "built", manifest)  # last: its presence means the build finished
    return BuildResult(out_dir, outcome.report, refs, files, split_stats, manifest, timings)


def _run(con: duckdb.DuckDBPyConnection, step: _Steps, source: CorpusDir, out_dir: Path, config: FunnelConfig,
         edge_files: Sequence[Path]
         ) -> tuple[PaperLoad, ReferenceStats, list[EdgeFileStats], FunnelOutcome, SplitStats]:
    """Load, resolve, filter, split, and write the Parquet outputs."""
    with step("load papers"):
        load = load_papers(con, source.papers_path)
        run(con, "CREATE TEMP TABLE raw_edges (src INTEGER, citing BIGINT, cited BIGINT)")
    with step("resolve references"):
        refs = resolve_references(con, source.papers_path)
    with step("read edge files"):
        files = read_edge_files(con, [Path(p) for p in edge_files], strict=config.strict_edges)
    with step("funnel"):
        outcome = run_funnel(con, config, load.rejected, _input_pair_rejects(refs, files))
        require_pairs(outcome.report)
    with step("splits"):
        split_stats = assign_splits(con, config)
        require_queries(split_stats, config)
        last = outcome.report.stages[-1]
        cross, cross_cit = split_stats.cross_split_pairs, split_stats.cross_split_citations
        outcome.report.add(StageCount("split", "Zero-overlap splits", True, last.papers,
                                      last.pairs - cross, {}, {"cross_split": cross} if cross else {},
                                      (last.citations or 0) - cross_cit,
                                      {"cross_split": cross_cit} if cross_cit else {}))
    with step("write pairs, citations and splits"):
        write_pairs_and_splits(con, out_dir)
    with step("write papers"):
        write_papers(con, source.papers_path, out_dir / "papers.parquet", on_rows=step.rows)
    return load, refs, files, outcome, split_stats


def require_pairs(report: FunnelReport) -> None:
    """Raise `EmptyBuildError` naming the first funnel stage that left no paper or no pair."""
    if report.stages[-1].pairs and report.stages[-1].papers:
        return
    for number, stage in enumerate(report.stages):
        if stage.papers and stage.pairs:
            continue
        what = "no paper" if not stage.papers else "no citation pair"
        removed = "; ".join(f"{kind}: " + ", ".join(f"{r} {n:,}" for r, n in counts.items())
                            for kind, counts in (("removed papers", stage.removed_papers),
                                                 ("removed pairs", stage.removed_pairs)) if counts)
        hint = _STAGE_HINTS.get(stage.name)
        if stage.name == "edges":  # pairs lost because an endpoint left at stage 1 or 2
            hint = " or ".join(_STAGE_HINTS[r.removeprefix("endpoint_missing_")] for r in stage.removed_pairs
                               if r.startswith("endpoint_missing_")) or None
        why = f" ({removed})" if removed else ""
        advice = f"; to keep them: {hint}" if hint else f"; {_NO_LINKS}" if stage.name in ("input", "edges") else ""
        raise EmptyBuildError(f"corpus build: funnel stage {number} ({stage.label}) left {what}{why}{advice}. "
                              "Nothing was written.")


def require_queries(stats: SplitStats, config: FunnelConfig) -> None:
    """Raise `EmptyBuildError` when train has no pair or a requested test split no anchor query (a val split
    without a query is not fatal: `split_notes` prints it under the split table)."""
    problems = []
    if not stats.splits["train"]["pairs"]:
        problems.append("train has no citation pair left to train on")
    if config.test_size and not stats.splits["test"].get("anchors"):
        problems.append(f"test has no anchor query ({stats.splits['test']['papers']:,} papers)")
    if problems:
        raise EmptyBuildError(f"corpus build: the zero-overlap splits left {'; '.join(problems)}; "
                              f"{stats.cross_split_pairs:,} pairs crossed splits and were dropped. Give smaller "
                              "--test-size / --val-size (or 0 for no split). Nothing was written.")


def _prepare_out_dir(source: Path, out_dir: Path, overwrite: bool) -> None:
    if out_dir.resolve() == source.resolve():
        raise BuildError(f"{out_dir}: the output directory must differ from the input corpus")
    existing = [name for name in OUTPUT_FILES if (out_dir / name).exists()]
    if existing and not overwrite:
        raise BuildError(f"{out_dir}: already holds {', '.join(existing)}; pass overwrite (--overwrite) to replace")


def _input_pair_rejects(refs: ReferenceStats, files: list[EdgeFileStats]) -> dict[str, int]:
    """Citation records read that never became a raw edge: unresolved references and rejected edge lines."""
    out: Counter[str] = Counter({f"ref_{reason}": n for reason, n in refs.unresolved.items()})
    for stat in files:
        out.update(stat.rejected)
    return dict(out)


class _Steps:
    """Times each build step and, when shown, drives one rich progress bar (steps, then rows while copying)."""

    TOTAL = 7

    def __init__(self, show: bool, timings: dict[str, float]) -> None:
        self.timings = timings
        self.progress = None
        if show:
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

            from sciembed.ioutil.progress import make_progress

            self.progress = make_progress(TextColumn("[bold]corpus build[/] {task.description}"), BarColumn(),
                                     MofNCompleteColumn(), TimeElapsedColumn(), transient=True)
            self.task = self.progress.add_task("", total=self.TOTAL)

    def __enter__(self) -> _Steps:
        if self.progress is not None:
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        if self.progress is not None:
            self.progress.update(self.task, description=name)
        start = time.perf_counter()
        yield
        self.timings[name] = round(time.perf_counter() - start, 3)
        if self.progress is not None:
            self.progress.advance(self.task)

    def rows(self, done: int, total: int) -> None:
        """Row-level progress inside a long step (the bar switches to rows until the step ends)."""
        if self.progress is not None:
            self.progress.update(self.task, description=f"write papers ({done:,}/{total:,} rows)")


def _manifest(source: CorpusDir, input_manifest: dict[str, Any] | None, edge_files: list[Path], config: FunnelConfig,
              load: PaperLoad, outcome: FunnelOutcome, refs: ReferenceStats, files: list[EdgeFileStats],
              split_stats: SplitStats) -> dict[str, Any]:
    final = outcome.report.stages[-1]
    return {
        "created_by": "sciembed corpus build",
        "input": {"corpus": str(source.root), "edge_files": [str(p) for p in edge_files],
                  "manifest_schema_version": (input_manifest or {}).get("schema_version")},
        "synthetic": bool((input_manifest or {}).get("synthetic", False)),
        "seed": config.seed,
        "config": config.model_dump(mode="json"),
        "counts": {
            "papers_read": load.read, "papers": final.papers, "pairs": final.pairs, "citations": final.citations,
            "papers_by_split": {s: split_stats.splits[s]["papers"] for s in SPLITS},
            "pairs_by_split": {s: split_stats.splits[s]["pairs"] for s in SPLITS},
            "citations_by_split": {s: split_stats.splits[s]["citations"] for s in SPLITS},
            "test_queries": split_stats.splits["test"]["queries"],
        },
        "funnel": outcome.report.to_list(),
        "reject_reasons": outcome.report.removed_by_reason(),
        "references": refs.to_dict(),
        "edge_files": [f.to_dict() for f in files],
        "splits": split_stats.to_dict(),
        "test_power": asdict(detectable_difference(split_stats.splits["test"].get("anchors", 0))),
        "rules": {"pair_domain": PAIR_DOMAIN_RULE, "domain_cap": CAP_RULE},
    }


def _write_reports(out_dir: Path, manifest: dict[str, Any], outcome: FunnelOutcome) -> None:
    funnel = {
        **{key: manifest[key] for key in ("funnel", "references", "edge_files", "splits")},
        "degree_histogram": outcome.degree_histogram,
        "domain_pairs": {"before_cap": outcome.domain_pairs_before_cap, "after_cap": outcome.domain_pairs_after_cap},
        "rules": manifest["rules"],
    }
    (out_dir / "funnel.json").write_text(json.dumps(funnel, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (out_dir / "funnel.md").write_text(funnel_markdown(manifest), encoding="utf-8")


def degree_plot(histogram: list[tuple[int, int]], max_degree: int, path: Path, enabled: bool = True) -> Path:
    """Papers per degree (pairs per paper after dedup) on log-log axes, with the high-degree threshold."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    if histogram:
        degrees, papers = zip(*histogram, strict=True)
        ax.scatter(degrees, papers, s=8, color="tab:blue", label="papers")
        ax.set_xscale("log")
        ax.set_yscale("log")
    style = "-" if enabled else ":"
    ax.axvline(max_degree + 0.5, color="tab:red", linestyle=style,
               label=f"threshold: > {max_degree} pairs removed" + ("" if enabled else " (off)"))
    ax.set_xlabel("deduplicated citation pairs per paper (degree)")
    ax.set_ylabel("papers")
    ax.set_title("Degree distribution")
    ax.legend(loc="upper right", fontsize=8)
    return save_figure(fig, path)


def domain_plot(before: dict[str, int], after: dict[str, int], cap: int, path: Path, enabled: bool = True) -> Path:
    """Pairs per domain (anchor's domain) before and after the domain cap."""
    plt = pyplot()
    domains = sorted(before, key=lambda d: (-before[d], d))
    fig, ax = plt.subplots(figsize=(max(6.4, 0.5 * len(domains) + 2), 4.2))
    xs = range(len(domains))
    width = 0.4
    ax.bar([x - width / 2 for x in xs], [before[d] for d in domains], width, label="before cap", color="tab:gray")
    ax.bar([x + width / 2 for x in xs], [after.get(d, 0) for d in domains], width, label="after cap",
           color="tab:blue")
    if enabled:
        ax.axhline(cap, color="tab:red", linestyle="--", label=f"cap: {cap:,} pairs")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(domains, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("pairs")
    ax.set_title("Pairs per domain around the domain cap")
    ax.legend(fontsize=8)
    return save_figure(fig, path)

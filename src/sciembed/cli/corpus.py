"""`sciembed corpus build` (funnel + zero-overlap splits) and `sciembed corpus show` (its report)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from sciembed.cli.errors import fail, failing
from sciembed.cli.groups import corpus_app
from sciembed.cli.options import ConfigSets, CorpusOutDir, FunnelConfigFile, Overwrite, Progress, SeedOverride
from sciembed.errors import SciembedInputError

console = Console()


def _size(value: str | None, option: str) -> int | float | None:
    """'0.1' is a fraction, '500' a paper count."""
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        pass
    try:
        return float(value)
    except ValueError:
        fail(f"{option} {value!r}: expected a fraction like 0.1 or a paper count like 500")
    return None


def build_cmd(
    corpus: Path = typer.Argument(..., help="Ingested corpus directory (from `sciembed corpus ingest`)."),
    out: CorpusOutDir = ...,
    edges: list[Path] = typer.Option([], "--edges", "-e", help="Edge file, JSONL or CSV/TSV (repeat for more)."),
    config: FunnelConfigFile = None,
    sets: ConfigSets = [],  # noqa: B006 (typer reads the default, never mutates it)
    seed: SeedOverride = None,
    test_size: str | None = typer.Option(None, "--test-size",
                                         help="Test papers: fraction or count [0.024, the paper's share; "
                                         "see --set min_test_anchors]."),
    val_size: str | None = typer.Option(None, "--val-size", help="Validation papers: fraction or count [0.1]."),
    overwrite: Overwrite = False,
    progress: Progress = True,
) -> None:
    """Build a corpus: resolve citations, run the funnel, write zero-overlap train/val/test splits.

    The funnel's stages and limits come from -c FUNNEL.yaml and --set KEY=VALUE: venue_filter, field_filter,
    degree_filter, max_degree [200], text_filter, min_body_chars [3000], min_body_sections [2], domain_cap_filter,
    domain_cap [1000000], min_test_anchors [200; 0: off], strict_edges [false: count malformed edge lines],
    threads [all cores], memory_limit [2GB], temp_dir (e.g. --set field_filter=false --set max_degree=50).
    """
    from sciembed.corpus.build import build_corpus
    from sciembed.corpus.config import FunnelConfig
    from sciembed.training.config import parse_overrides

    with failing(SciembedInputError):
        base = FunnelConfig.from_yaml(config) if config else FunnelConfig()
        cfg = base.override(**parse_overrides(sets)).override(
            seed=seed, test_size=_size(test_size, "--test-size"), val_size=_size(val_size, "--val-size"))
        result = build_corpus(corpus, out, cfg, edges, show_progress=progress, overwrite=overwrite)
    _print_summary(result.manifest, console)
    console.print(f"wrote {out}/: papers.parquet, pairs.parquet, citations.parquet, splits.parquet, manifest.json, "
                  "funnel.json, funnel.md, degree_distribution.png, domain_pairs.png")


def show_cmd(corpus: Path = typer.Argument(..., help="Built corpus directory.")) -> None:
    """Print the funnel table and split statistics of a built corpus."""
    from sciembed.corpus.layout import CorpusDir, CorpusError

    with failing(CorpusError):
        manifest = CorpusDir(corpus).manifest()
    if manifest.get("kind") != "built":
        fail(f"{corpus}: not a built corpus (run `sciembed corpus build` first)")
    _print_summary(manifest, console)


def _print_summary(manifest: dict, out: Console) -> None:
    from rich.table import Table

    from sciembed.corpus.report import FunnelReport, split_notes

    report = FunnelReport.from_list(manifest["funnel"])
    out.print(report.to_rich("Corpus funnel" + (" (synthetic)" if manifest.get("synthetic") else "")))
    for note in report.notes():
        out.print(f"[yellow]note:[/yellow] {escape(note)}", highlight=False, soft_wrap=True)
    final = manifest["funnel"][-1]
    if final.get("citations") is not None:
        out.print(f"directed citations: {final['citations']:,} (citing -> cited, behind the {final['pairs']:,} pairs; "
                  "per stage in funnel.md)", highlight=False, soft_wrap=True)
    refs = manifest["references"]
    if refs["read"]:
        resolved = sum(refs["resolved"].values())
        out.print(f"references: {refs['read']:,} read, {resolved:,} resolved "
                  f"({', '.join(f'{k} {v:,}' for k, v in refs['resolved'].items()) or 'none'}); unresolved: "
                  f"{', '.join(f'{k} {v:,}' for k, v in refs['unresolved'].items()) or 'none'}",
                  highlight=False, soft_wrap=True)
    for f in manifest["edge_files"]:
        rejected = ", ".join(f"{k} {v:,}" for k, v in f["rejected"].items()) or "none"
        out.print(f"{f['path']}: {f['lines']:,} lines, {f['accepted']:,} accepted, rejected: {rejected}",
                  highlight=False, soft_wrap=True)
        for example in f["malformed_examples"]:
            out.print(f"  [yellow]{example}[/yellow]", highlight=False, soft_wrap=True)
    splits = manifest["splits"]["splits"]
    table = Table(title=f"Splits (zero paper overlap; {manifest['splits']['cross_split_pairs']:,} cross-split "
                        f"pairs and {manifest['splits'].get('cross_split_citations', 0):,} cross-split citations "
                        "dropped)")
    for name in ("split", "papers", "pairs", "citations", "anchor queries", "mean relevant / anchor",
                 "papers with ≥1 link", "mean relevant / linked"):
        table.add_column(name, justify="left" if name == "split" else "right")
    for name in ("train", "val", "test"):
        s = splits[name]
        anchors = f"{s['anchors']:,}" if "anchors" in s else "—"
        per_anchor = f"{s['mean_relevant_per_anchor']:.2f}" if "anchors" in s else "—"
        table.add_row(name, f"{s['papers']:,}", f"{s['pairs']:,}", f"{s.get('citations', 0):,}", anchors, per_anchor,
                      f"{s['queries']:,}", f"{s['mean_relevant_per_query']:.2f}")
    out.print(table)
    for note in split_notes(manifest):
        out.print(note, highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the app."""
    corpus_app.command("build")(build_cmd)
    corpus_app.command("show")(show_cmd)

"""`sciembed corpus inspect` (one paper: sections, roles, views) and `sciembed corpus stats` (length table)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from sciembed.cli.errors import fail, failing
from sciembed.cli.groups import corpus_app
from sciembed.cli.options import PaperLogSeed, StatsOutDir

console = Console()


def _preview(text: str, words: int = 40) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def inspect_cmd(
    corpus: Path = typer.Argument(..., help="Corpus directory (from `sciembed corpus ingest` or `corpus build`)."),
    paper: str = typer.Option(..., "--paper", help="Paper to show: its id (any letter case) or an external id "
                                                   "(DOI, ACL, arXiv…)."),
    max_seq_length: int = typer.Option(512, help="Encoder budget that sets window (0.7×) and chunk sizes."),
    seed: PaperLogSeed = 0,
) -> None:
    """Show one paper: its sections with roles, and each view cut from it."""
    from sciembed.corpus.layout import CorpusDir, CorpusError
    from sciembed.papers.roles import conclusion_section_index, method_section_index
    from sciembed.search.paper_lookup import UnknownPaperError, corpus_lookup
    from sciembed.views import chunk_views, segment_views, ta_text, target_words, window_at
    from sciembed.views.paper_log import choose_section
    from sciembed.views.tokens import approx_tokens

    with failing(CorpusError, UnknownPaperError):
        paper = corpus_lookup(corpus).resolve(paper)  # the id, another letter case or an external id; else hints
        papers = CorpusDir(corpus).papers([paper])
    if paper not in papers:
        fail(f"paper {paper!r} not found in {corpus / 'papers.parquet'}")
    p = papers[paper]
    console.print(f"[bold]{p.id}[/bold]  {p.title}")
    short = f" ({p.venue_short})" if p.venue_short else ""
    console.print(f"venue={p.venue!r}{short} year={p.year} domain={p.domain!r} flags={list(p.flags)} "
                  f"references={len(p.references)} ids={dict(p.external_ids.items())}", highlight=False)
    for n, author in enumerate(p.authors, 1):
        console.print(f"author {n}: {author.name}" + (f" ({author.affiliation})" if author.affiliation else ""),
                      highlight=False, markup=False)
    method, conclusion = method_section_index(p), conclusion_section_index(p)
    logged = choose_section(p, seed)
    table = Table("#", "heading", "role", "words", "selected as")
    for i, s in enumerate(p.sections):
        marks = [m for m, hit in (("method", i == method), ("conclusion", i == conclusion),
                                  (f"paper log (seed {seed})", i == logged)) if hit]
        table.add_row(str(i), s.heading, s.role.value, str(len(s.text.split())), ", ".join(marks))
    console.print(table)
    console.print(f"[bold]ta[/bold]: {_preview(ta_text(p))}")
    if logged is None:
        console.print("[yellow]no body: TA-only paper, no body views[/yellow]")
        return
    target = target_words(max_seq_length)
    window = window_at(p, logged, target)
    console.print(f"[bold]section[/bold] #{logged}: {_preview(p.sections[logged].text)}")
    console.print(f"[bold]window[/bold] (starts at section #{logged}, {window.end - window.start}/{target} words): "
                  f"{_preview(window.text)}")
    # An estimate for display (words / 0.7): training and evaluation count with the encoder's own tokenizer.
    chunks = chunk_views(p, approx_tokens, budget=max_seq_length - 2)
    console.print(f"[bold]chunks[/bold]: {len(chunks)}; first body chunk: "
                  f"{_preview(next((c.text for c in chunks if c.section is not None), ''))}")
    segments = segment_views(p)
    console.print(f"[bold]segments[/bold] (~3,000 tokens): {len(segments)} of "
                  f"{', '.join(str(s.end - s.start) for s in segments)} words")


def stats_cmd(corpus: Path = typer.Argument(..., help="Corpus directory."),
              max_seq_length: int = typer.Option(512, help="Encoder budget; window target = 0.7 × this."),
              out: StatsOutDir = None) -> None:
    """Sections per paper, words per section and per window (mean, median, Q25, Q75, max), and a histogram PNG."""
    from sciembed.corpus.layout import CorpusDir, CorpusError
    from sciembed.views import target_words
    from sciembed.views.stats import length_stats, plot_lengths

    corpus_dir = CorpusDir(corpus)
    with failing(CorpusError):
        papers = corpus_dir.iter_papers()
        stats = length_stats(papers, target_words(max_seq_length))
    out = out or corpus
    out.mkdir(parents=True, exist_ok=True)
    synthetic = corpus_dir.manifest().get("synthetic", False) if corpus_dir.manifest_path.exists() else False
    table = Table("quantity", "n", "mean", "median", "Q25", "Q75", "max",
                  title=f"{corpus}{' (SYNTHETIC corpus)' if synthetic else ''}")
    for row in stats.table():
        table.add_row(str(row["quantity"]), f"{row['n']:.0f}",
                      *(f"{row[k]:.1f}" for k in ("mean", "median", "q25", "q75", "max")))
    console.print(table)
    console.print(f"papers: {stats.papers} ({stats.papers_with_body} with body); windows reaching their "
                  f"{stats.target_words}-word target: {100 * stats.window_full_share:.1f}%")
    (out / "stats.json").write_text(json.dumps({**stats.to_dict(), "synthetic": synthetic}, indent=2))
    png = plot_lengths(stats, out / "lengths.png", title=f"{corpus.name}{' (synthetic)' if synthetic else ''}")
    console.print(f"wrote {out / 'stats.json'} and {png}")


def register(app: typer.Typer) -> None:
    corpus_app.command("inspect")(inspect_cmd)
    corpus_app.command("stats")(stats_cmd)

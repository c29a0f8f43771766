"""`sciembed synth`: write a seeded synthetic demo corpus (papers + citation edges)."""

from __future__ import annotations

import typer

from sciembed.cli.options import OutDir, Seed


def synth(
    ctx: typer.Context,
    out: OutDir = ...,
    papers: int = typer.Option(2000, "--n-papers", min=1, help="Number of papers."),
    seed: Seed = 0,
    settings: list[str] | None = typer.Option(
        None, "--set", metavar="NAME=VALUE",
        help="A generator option, e.g. --set citations_per_paper=6 (default 6), --set same_topic=0.8 (share of "
             "citations within the citing paper's topic), --set no_body=0.05 (see sciembed.synth.SynthOptions).",
    ),
) -> None:
    """Generate a SYNTHETIC full-text corpus: papers.jsonl.gz, edges.csv, SYNTHETIC.md, synth_manifest.json."""
    import json

    from pydantic import ValidationError
    from rich.console import Console
    from rich.table import Table

    from sciembed.synth import SynthOptions, write_synthetic
    from sciembed.synth.write import MANIFEST_FILE

    options: dict[str, object] = {}
    for item in settings or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise typer.BadParameter(f"expected NAME=VALUE, got {item!r}", param_hint="--set")
        options[name.strip()] = value.strip()
    try:
        SynthOptions(**options)
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())
        raise typer.BadParameter(f"{err.error_count()} invalid option(s): {problems}") from None

    write_synthetic(out, papers, seed, progress=True, **options)
    manifest = json.loads((out / MANIFEST_FILE).read_text())
    counts = manifest["counts"]
    console = Console()
    table = Table(title=f"SYNTHETIC corpus (seed {seed}) in {out}", show_header=False)
    for label, key in (("papers", "papers"), ("citation edges", "edges"),
                       ("references to corpus papers", "references_in_corpus"),
                       ("references outside the corpus", "references_outside"),
                       ("missing venue", "missing_venue"), ("missing field", "missing_field"),
                       ("no body", "no_body"), ("empty abstract", "empty_abstract")):
        table.add_row(label, f"{counts[key]:,}")
    console.print(table)
    console.print(
        f"[bold]These papers are synthetic[/bold] (source {manifest['generator']}); see {out / 'SYNTHETIC.md'}."
    )


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the app."""
    app.command("synth")(synth)

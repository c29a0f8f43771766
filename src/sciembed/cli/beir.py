"""`sciembed beir …`: write benchmark folders in BEIR format from released datasets."""

from __future__ import annotations

from pathlib import Path

import typer

from sciembed.cli.errors import failing
from sciembed.cli.options import OutDir

beir_app = typer.Typer(
    help="Write BEIR benchmark folders from released datasets (then: sciembed eval run --kind beir DIR).")


def scitldr_cmd(
    source: Path = typer.Argument(..., help="SciTLDR JSONL (e.g. ../shared/data/scitldr/dev.jsonl)."),
    out: OutDir = ...,
    task: list[str] | None = typer.Option(
        None, "--task", help="tldr2paper (every TLDR) | tldr2paper_author (the first, the author's) | "
                             "title2abstract | half2half (all)."),
) -> None:
    """Real-text matching tasks from SciTLDR: TLDR → paper (every TLDR; the author's only), title → abstract, halves;
    one BEIR folder per task in --out."""
    from rich.console import Console

    from sciembed.evaluation.scitldr import TASKS, SciTldrError, write_scitldr_beir

    tasks = tuple(task or TASKS)
    with failing(SciTldrError):
        unknown = [t for t in tasks if t not in TASKS]
        if unknown:
            raise SciTldrError(f"unknown task(s) {', '.join(unknown)}; expected {', '.join(TASKS)}")
        manifest = write_scitldr_beir(source, out, tasks)
    console = Console()
    rejected = sum(manifest["rejected"].values())
    console.print(f"read {manifest['read']} = accepted {manifest['accepted']} + rejected {rejected}"
                  + (f" {manifest['rejected']}" if rejected else ""))
    for name, info in manifest["tasks"].items():
        skipped = f", skipped {info['skipped']}" if info["skipped"] else ""
        console.print(f"  {name}: {info['queries']} queries, {info['documents']} documents{skipped} -> {out / name}")


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the app."""
    beir_app.command("scitldr")(scitldr_cmd)
    app.add_typer(beir_app, name="beir")

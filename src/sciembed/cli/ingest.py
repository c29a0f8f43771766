"""`sciembed corpus ingest`: raw full-text files -> an ingested corpus directory."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from sciembed.cli.errors import fail
from sciembed.cli.groups import corpus_app
from sciembed.cli.options import ConfigSets, CorpusOutDir, IngestConfigFile, Overwrite, Progress, comma_list
from sciembed.cli.pdf_options import PDF_HELP, pdf_backend, pdf_reading
from sciembed.errors import SciembedInputError

console = Console(emoji=False)  # ":100:" in "file:100: reason" must stay text


INGEST_HELP = ("Read papers from S2ORC, unarXive, science-parse, GROBID TEI, JATS, sciembed JSONL or PDF files.\n\n"
               "How PDFs are read comes from -c INGEST.yaml and --set KEY=VALUE: " + PDF_HELP + ".")


def ingest_cmd(
    inputs: list[Path] = typer.Argument(..., help="Files or directories (walked recursively); .gz is read directly."),
    out: CorpusOutDir = ...,
    fmt: str = typer.Option(
        "auto",
        "--format",
        help="Input format for every file: auto, jsonl, unarxive, science-parse, s2orc, tei, jats, pdf.",
    ),
    strict: bool = typer.Option(False, "--strict", help="Stop at the first bad record (exit 2, nothing written)."),
    progress: Progress = True,
    overwrite: Overwrite = False,
    keep_untitled: bool = typer.Option(
        False, "--keep-untitled", help="Keep papers without a title, flagged missing_title (abstract's first "
        "sentence or the file name as display title), instead of rejecting them."
    ),
    max_errors: int | None = typer.Option(
        None, "--max-errors", min=1, help="Stop (exit 2, no corpus written) after this many rejected records."
    ),
    max_record_mb: float = typer.Option(
        20.0, "--max-record-mb", min=0.001, help="Largest record (a JSONL line, a whole XML / JSON file) read; "
        "larger ones are rejected as record_too_large."
    ),
    metadata: Path | None = typer.Option(None, "--metadata", help="Semantic Scholar `papers` JSONL(.gz) joined by "
                                                                  "corpus id: venue, year, fields of study, ids."),
    grobid: str | None = typer.Option(None, "--grobid", help="GROBID server URL (e.g. http://localhost:8070): PDFs "
                                      "go to its processFulltextDocument; without it PDFs are read offline."),
    config: IngestConfigFile = None,
    sets: ConfigSets = [],  # noqa: B006 (typer reads the default, never mutates it)
    header_rule: str = typer.Option(
        "sciembed", "--header-rule", help="Headings in paragraphs without section names (S2ORC 2019, peS2o): "
        "sciembed (S2Full's rule + a sentence veto) or s2full (the paper's rule exactly)."
    ),
    extra_keys: str = typer.Option("", "--extra-keys", help="JSONL keys your records carry that sciembed does not "
                                   "read, comma-separated (e.g. benchmark_id,sections.page): ignored without the "
                                   "unknown_keys flag and warning."),
    ray: str | None = typer.Option(None, "--ray", help="Read the files in parallel Ray tasks on this cluster: auto "
                                   "(the running one), local (start one here) or an address; same corpus."),
) -> None:
    from sciembed.papers.ingest import IngestError, TooManyErrors, ingest
    from sciembed.papers.ingest_report import untitled_note
    from sciembed.papers.readers.limits import MB, ReadLimits

    limits = ReadLimits(max_record_bytes=int(max_record_mb * MB))
    try:
        pdf = pdf_backend(out, grobid, pdf_reading(config, sets))
        result = ingest(inputs, out, fmt=fmt, strict=strict, progress=progress, overwrite=overwrite,
                        keep_untitled=keep_untitled, max_errors=max_errors, limits=limits, metadata=metadata, pdf=pdf,
                        header_rule=header_rule, ray=ray, extra_keys=tuple(comma_list(extra_keys)))
    except IngestError as err:
        fail(f"(--strict) {err.rejection}")
    except TooManyErrors as err:
        fail(f"{err}; nothing written to {out}")
    except (SciembedInputError, ValueError, OSError) as err:
        fail(str(err))
    reasons = ", ".join(f"{r} {n}" for r, n in sorted(result.reasons.items())) or "none"
    flags = ", ".join(f"{f} {n}" for f, n in sorted(result.flags.items())) or "none"
    console.print(f"[bold]{result.summary()}[/bold]")
    console.print(f"rejected by reason: {reasons}; flags: {flags}")
    console.print(result.coverage_line(), highlight=False, soft_wrap=True)
    untitled = untitled_note(result)
    if untitled:
        console.print(f"[yellow]note:[/yellow] {untitled}", highlight=False, soft_wrap=True)
    if result.metadata is not None:
        m = result.metadata
        console.print(f"metadata {m['file']}: {m['records']} records; joined {m['joined']}, missing {m['missing']}, "
                      f"conflicting {m['conflicting']}; records matching no paper {m['unmatched_records']}, "
                      f"duplicate records {m['duplicate_records']} (first kept)", highlight=False, soft_wrap=True)
    if result.skipped_files:
        console.print(f"skipped {len(result.skipped_files)} non-JSON/XML file(s), listed in the manifest")
    unknown = result.flags.get("unknown_keys", 0)
    if unknown:
        console.print(f"[yellow]warning:[/yellow] {unknown} record(s) carried keys sciembed's JSONL does not know; "
                      "those keys were ignored (papers flagged unknown_keys; declare expected ones with "
                      "--extra-keys KEY,KEY)")
    if result.rejects_written < result.rejected:
        console.print(f"rejects.jsonl holds the first {result.rejects_written} of {result.rejected} rejections")
    if result.pdf is not None:
        console.print(_pdf_summary(result.pdf), highlight=False, soft_wrap=True)
    console.print(f"wrote {out}/papers.parquet, manifest.json, rejects.jsonl, ingest_report.md")
    if result.accepted == 0:
        fail(f"no record was accepted ({result.summary()}); see {out}/rejects.jsonl")


def _pdf_summary(pdf: dict) -> str:
    if pdf["reader"] == "grobid":
        return (f"PDFs: {pdf['files']} through GROBID at {pdf['url']} (sent {pdf.get('sent', 0)}, from the TEI cache "
                f"{pdf.get('from_cache', 0)}, 503 retries {pdf.get('retries', 0)}); TEI kept in {pdf['cache']}")
    return f"PDFs: {pdf['files']} read by the offline reader (layout heuristics; --grobid URL uses GROBID)"


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the app."""
    corpus_app.command("ingest", help=INGEST_HELP)(ingest_cmd)

"""The ingest report (`ingest_report.md`): the manifest's numbers as Markdown, for people."""

from __future__ import annotations

from typing import Any

from sciembed.papers.ingest_result import METADATA_FIELDS, REJECTS_FILE, IngestResult
from sciembed.papers.readers.records import MISSING_TITLE


def untitled_note(result: IngestResult) -> str | None:
    """What to do about papers rejected for having no title (printed by the CLI and in the report)."""
    n = result.reasons.get(MISSING_TITLE, 0)
    if not n:
        return None
    return (f"{n} paper(s) without a title were rejected (missing_title); pass --keep-untitled to keep them, "
            "flagged missing_title, with the abstract's first sentence (else the file name) as display title")


def render_report(result: IngestResult) -> str:
    """The manifest's numbers as Markdown, for people."""
    lines = [
        "# Ingest report", "", f"**{result.summary()}**" + (" — synthetic corpus" if result.synthetic else ""), "",
        f"Inputs: {', '.join(f'`{i}`' for i in result.inputs)} (format: {result.fmt}). "
        f"Body: {result.sections} sections, {result.body_words} words.",
        *(["", _pdf_line(result.pdf)] if result.pdf else []),
        "", "## Per file", "", "| file | format | read | accepted | rejected |", "| --- | --- | ---: | ---: | ---: |",
        *(f"| `{n}` | {c.format} | {c.read} | {c.accepted} | {c.rejected} |" for n, c in result.files.items()),
        "", "## Rejected, by reason", "", "| reason | records |", "| --- | ---: |",
        *(f"| {r} | {n} |" for r, n in sorted(result.reasons.items())),
        *(["| (none) | 0 |"] if not result.reasons else []),
        *(["", untitled_note(result) + "."] if untitled_note(result) else []),
        "", "## Metadata on accepted papers", "", "| field | papers |", "| --- | ---: |",
        *(f"| {name.replace('_', ' ')} | {result.coverage.get(name, 0)} |" for name in METADATA_FIELDS),
        "", result.coverage_line() + ".",
        "", "## Flags on accepted papers", "", "| flag | papers |", "| --- | ---: |",
        *(f"| {f} | {n} |" for f, n in sorted(result.flags.items())),
        *(["| (none) | 0 |"] if not result.flags else []),
    ]
    if result.examples:
        lines += ["", f"## First rejections (all in `{REJECTS_FILE}`)", "", *(f"- `{r}`" for r in result.examples)]
    if result.skipped_files:
        lines += ["", "## Skipped files (not JSON / XML)", "", *(f"- `{s}`" for s in result.skipped_files)]
    return "\n".join(lines) + "\n"


def _pdf_line(pdf: dict[str, Any]) -> str:
    if pdf["reader"] == "grobid":
        return (f"PDFs: {pdf['files']} read by GROBID at {pdf['url']} (sent {pdf.get('sent', 0)}, "
                f"from the TEI cache {pdf.get('from_cache', 0)}, 503 retries {pdf.get('retries', 0)}; "
                f"cache `{pdf['cache']}`).")
    return (f"PDFs: {pdf['files']} read by the **offline** reader (pdfminer.six layout heuristics, no GROBID: "
            "titles, abstracts and headings are guesses from font sizes; see docs/pdf.md for its accuracy).")

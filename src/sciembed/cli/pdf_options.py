"""How PDFs are read in a run (`corpus ingest`, and uploads to `index serve`): `-c ingest.yaml` / `--set KEY=VALUE`.

The keys are the old flags' names (`--pdf-timeout 30` is `--set pdf_timeout=30`);
`--grobid URL` itself stays a flag: it chooses GROBID over the offline reader.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from sciembed.cli.config_sets import SetsConfig
from sciembed.errors import SciembedInputError


class PdfConfigError(SciembedInputError, ValueError):
    """An ingest config file or --set that does not validate."""


class PdfReading(SetsConfig):
    """Bounds and parallelism of the PDF readers (GROBID or offline)."""

    pdf_timeout: float = Field(60.0, ge=0.01, description="seconds per PDF (offline parse or GROBID request)")
    pdf_max_pages: int = Field(300, ge=1, description="PDFs declaring more pages are rejected")
    pdf_workers: int = Field(1, ge=1, description="PDFs parsed at once by the offline reader (a process each)")
    grobid_workers: int = Field(10, ge=1, description="PDFs sent to GROBID at once")
    grobid_consolidate: bool = Field(False, description="consolidateHeader=1 and consolidateCitations=1")
    grobid_cache: Path | None = Field(None, description="GROBID's TEI by PDF SHA-256 (default: OUT.grobid-tei)")


PDF_HELP = PdfReading.help_text()


def pdf_reading(config: Path | None, sets: list[str]) -> PdfReading:
    """`config`'s keys, then `sets`' (``key=value``, read as YAML), validated by `PdfReading`."""
    return PdfReading.read(config, sets, PdfConfigError, "ingest config")


def pdf_backend(out: Path, grobid: str | None, reading: PdfReading | None = None) -> Any:
    """What reads PDFs in this run: GROBID at `grobid` (TEI cached next to the corpus), else the offline reader."""
    from sciembed.papers.pdf.checks import PdfLimits
    from sciembed.papers.pdf.offline import OfflineBackend

    reading = reading or PdfReading()
    limits = PdfLimits(timeout_s=reading.pdf_timeout, max_pages=reading.pdf_max_pages)
    if grobid is None:
        return OfflineBackend(limits, reading.pdf_workers)
    from sciembed.papers.pdf.grobid import GrobidBackend, GrobidOptions

    options = GrobidOptions(grobid, consolidate_header=reading.grobid_consolidate,
                            consolidate_citations=reading.grobid_consolidate, workers=reading.grobid_workers,
                            timeout_s=reading.pdf_timeout)
    return GrobidBackend(options, reading.grobid_cache or out.parent / f"{out.name}.grobid-tei", limits)

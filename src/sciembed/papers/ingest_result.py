"""What one ingest run read, kept and rejected (`IngestResult`), and the names of the files it writes."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.papers.io import PAPERS_FILE
from sciembed.papers.readers import Rejection

REJECTS_FILE = "rejects.jsonl"
REPORT_FILE = "ingest_report.md"
METADATA_FIELDS = ("venue", "year", "field_of_study", "doi")  # counted over accepted papers (manifest, report)
MAX_REJECT_DETAILS = 10_000  # lines written to rejects.jsonl; the counts stay exact beyond it


@dataclass
class FileCounts:
    format: str
    read: int = 0
    accepted: int = 0
    rejected: int = 0


@dataclass
class IngestResult:
    """What one ingest run read, kept and rejected; the manifest is built from it."""

    out: Path
    inputs: list[str]
    fmt: str
    header_rule: str = "sciembed"
    extra_keys: list[str] = field(default_factory=list)  # JSONL keys declared expected (not flagged unknown_keys)
    read: int = 0
    accepted: int = 0
    rejected: int = 0
    files: dict[str, FileCounts] = field(default_factory=dict)
    metadata: dict[str, Any] | None = None  # the --metadata join's counts
    shared_dois: dict[str, Any] | None = None  # DOIs several papers claimed, distrusted after reading
    pdf: dict[str, Any] | None = None  # which PDF reader ran (offline / GROBID) and its counts
    reasons: Counter[str] = field(default_factory=Counter)
    flags: Counter[str] = field(default_factory=Counter)
    formats: Counter[str] = field(default_factory=Counter)
    coverage: Counter[str] = field(default_factory=Counter)  # accepted papers having each METADATA_FIELDS entry
    sections: int = 0
    body_words: int = 0
    skipped_files: list[str] = field(default_factory=list)
    examples: list[Rejection] = field(default_factory=list)
    all_synthetic: bool = True
    rejects_written: int = 0
    max_reject_details: int = MAX_REJECT_DETAILS

    @property
    def synthetic(self) -> bool:
        return self.accepted > 0 and self.all_synthetic

    def summary(self) -> str:
        return f"read {self.read} = accepted {self.accepted} + rejected {self.rejected}"

    def coverage_line(self) -> str:
        """"venue 3540, year 3530, field of study 0, doi 353 of 3569 accepted papers" and what a 0 means."""
        have = ", ".join(f"{name.replace('_', ' ')} {self.coverage.get(name, 0)}" for name in METADATA_FIELDS)
        line = f"metadata: {have} of {self.accepted} accepted papers"
        missing = [name.replace("_", " ") for name in ("venue", "field_of_study") if not self.coverage.get(name)]
        if self.accepted and missing:
            line += (f"; no paper has a {' or a '.join(missing)}, so `sciembed corpus build` skips that funnel stage "
                     "(--metadata joins Semantic Scholar's venue and fields of study)")
        return line

    def manifest(self) -> dict[str, Any]:
        """The manifest's fields after schema version, kind and sciembed version (`write_manifest` adds those)."""
        return {
            "synthetic": self.synthetic, "inputs": self.inputs, "format": self.fmt, "header_rule": self.header_rule,
            "extra_keys": self.extra_keys,
            "counts": {"read": self.read, "accepted": self.accepted, "rejected": self.rejected},
            "rejected_by_reason": dict(sorted(self.reasons.items())), "flags": dict(sorted(self.flags.items())),
            "accepted_by_format": dict(sorted(self.formats.items())),
            "metadata_coverage": {name: self.coverage.get(name, 0) for name in METADATA_FIELDS},
            "files": {name: vars(counts) for name, counts in self.files.items()},
            "skipped_files": self.skipped_files,
            "rejects_file": {"written": self.rejects_written, "truncated": self.rejects_written < self.rejected},
            "body": {"sections": self.sections, "words": self.body_words},
            "outputs": {"papers": PAPERS_FILE, "rejects": REJECTS_FILE, "report": REPORT_FILE},
            **({"pdf": self.pdf} if self.pdf is not None else {}),
            **({"shared_dois": self.shared_dois} if self.shared_dois is not None else {}),
        }

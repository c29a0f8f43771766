"""Semantic Scholar metadata joined onto full-text records at ingest (`sciembed corpus ingest … --metadata FILE`).

peS2o and S2ORC full text carry no venue and no fields of study, so the funnel's venue and field stages would
drop every real paper. The Semantic Scholar Datasets ``papers`` release (JSONL, optionally gzipped) has them.
A paper matches a record when its id or S2 id is the record's ``corpusid``; the record fills venue, year,
external ids and fields of study, and wins over a different venue or year in the full text (counted
``conflicting``). Records matching no paper are counted, never an error; of two for one id the first is kept.

Fields of study are the S2Full paper's 19 MAG-style fields (`MAG_FIELDS`); the primary one (the funnel's domain)
is the first listed, ``external`` (publisher / MAG) entries before ``s2-fos-model`` predictions. Other
categories (Education, Law, …) are left out, so a paper with none of the 19 leaves at the funnel's field stage.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sciembed.errors import SciembedInputError
from sciembed.papers.io import open_text
from sciembed.papers.model import ExternalIds, Paper

MAG_FIELDS = (
    "Art", "Biology", "Business", "Chemistry", "Computer Science", "Economics", "Engineering",
    "Environmental Science", "Geography", "Geology", "History", "Materials Science", "Mathematics", "Medicine",
    "Philosophy", "Physics", "Political Science", "Psychology", "Sociology",
)
_MAG = {f.lower(): f for f in MAG_FIELDS}
# externalids keys of the Semantic Scholar release -> sciembed's ExternalIds fields
_ID_KEYS = {"DOI": "doi", "ArXiv": "arxiv", "PubMed": "pmid", "PubMedCentral": "pmc", "ACL": "acl"}
MAX_EXAMPLES = 5


class MetadataError(SciembedInputError, ValueError):
    """The metadata file cannot be used; the message names file, line and how many lines are bad."""


@dataclass(frozen=True)
class Metadata:
    """What one Semantic Scholar ``papers`` record contributes."""

    corpusid: str
    venue: str | None
    year: int | None
    fields: tuple[str, ...]  # primary first (see the module docstring)
    external_ids: dict[str, str]


@dataclass
class JoinCounts:
    records: int = 0
    duplicate_records: int = 0
    joined: int = 0
    missing: int = 0
    conflicting: int = 0
    unmatched_records: int = 0
    examples: dict[str, list[str]] = field(default_factory=dict)

    def note(self, kind: str, example: str) -> None:
        shown = self.examples.setdefault(kind, [])
        if len(shown) < MAX_EXAMPLES:
            shown.append(example)

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


def primary_fields(entries: Any) -> tuple[str, ...]:
    """`s2fieldsofstudy` (or a plain list of names) -> the MAG fields among them, the primary first."""
    named: list[tuple[str, str]] = []
    for entry in entries or ():
        if isinstance(entry, dict):
            name, source = entry.get("category"), str(entry.get("source") or "")
        else:
            name, source = entry, "external"
        if isinstance(name, str) and name.strip():
            named.append((" ".join(name.split()), source))
    ranked = sorted((i for i in range(len(named)) if named[i][0].lower() in _MAG),
                    key=lambda i: (named[i][1] != "external", i))
    return tuple(dict.fromkeys(_MAG[named[i][0].lower()] for i in ranked))


def _venue(record: dict[str, Any]) -> str | None:
    venue = record.get("venue")
    if not (isinstance(venue, str) and venue.strip()):
        pub = record.get("publicationvenue")
        venue = pub.get("name") if isinstance(pub, dict) else None
    return " ".join(venue.split()) if isinstance(venue, str) and venue.strip() else None


def parse_record(record: Any) -> Metadata:
    if not isinstance(record, dict):
        raise ValueError(f"expected a JSON object, got {type(record).__name__}")
    corpusid = record.get("corpusid", record.get("corpusId"))
    if corpusid is None or str(corpusid).strip() == "":
        raise ValueError("no corpusid")
    year = record.get("year")
    ids = record.get("externalids") or record.get("externalIds") or {}
    return Metadata(
        corpusid=str(corpusid).strip(), venue=_venue(record),
        year=int(year) if isinstance(year, int | float) or (isinstance(year, str) and year.isdigit()) else None,
        fields=primary_fields(record.get("s2fieldsofstudy") or record.get("fieldsOfStudy")),
        external_ids={_ID_KEYS[k]: str(v) for k, v in (ids.items() if isinstance(ids, dict) else ())
                      if k in _ID_KEYS and v not in (None, "")})


class MetadataJoin:
    """The metadata of one file, indexed by corpus id; `apply` joins it onto papers and counts."""

    def __init__(self, records: dict[str, Metadata], counts: JoinCounts, source: str) -> None:
        self.records = records
        self.counts = counts
        self.source = source
        self._used: set[str] = set()

    @classmethod
    def load(cls, path: str | Path) -> MetadataJoin:
        """Read every record first; malformed lines are one error naming each file:line (before any ingest work)."""
        path = Path(path)
        if not path.is_file():
            raise MetadataError(f"{path}: metadata file not found")
        records: dict[str, Metadata] = {}
        counts = JoinCounts()
        bad: list[str] = []
        n_bad = 0
        try:
            with open_text(path) as handle:
                for line_no, line in enumerate(handle, start=1):
                    if not line.strip():
                        continue
                    try:
                        meta = parse_record(json.loads(line))
                    except (ValueError, TypeError) as exc:
                        n_bad += 1
                        if len(bad) < MAX_EXAMPLES:
                            bad.append(f"{path}:{line_no}: {exc}")
                        continue
                    counts.records += 1
                    if meta.corpusid in records:
                        counts.duplicate_records += 1
                        counts.note("duplicate_records", f"{path}:{line_no}: corpusid {meta.corpusid} (first kept)")
                        continue
                    records[meta.corpusid] = meta
        except (OSError, UnicodeDecodeError, EOFError) as exc:
            raise MetadataError(f"{path}: cannot be read as (gzipped) JSONL: {exc}") from exc
        if n_bad:
            raise MetadataError(f"{path}: {n_bad} malformed metadata line(s); first: " + "; ".join(bad))
        return cls(records, counts, str(path))

    def match(self, paper: Paper) -> Metadata | None:
        for key in (paper.id, paper.external_ids.s2):
            if key and key in self.records:
                return self.records[key]
        return None

    def apply(self, paper: Paper) -> Paper:
        meta = self.match(paper)
        if meta is None:
            self.counts.missing += 1
            self.counts.note("missing", paper.id)
            return paper
        self.counts.joined += 1
        self._used.add(meta.corpusid)
        conflicts = [name for name, old, new in (("venue", paper.venue, meta.venue), ("year", paper.year, meta.year))
                     if old not in (None, "") and new not in (None, "") and old != new]
        if conflicts:
            self.counts.conflicting += 1
            self.counts.note("conflicting", f"{paper.id}: {', '.join(conflicts)}")
        ids = {k: v for k, v in meta.external_ids.items() if not getattr(paper.external_ids, k)}
        fields = meta.fields + tuple(f for f in paper.fields_of_study if f not in meta.fields)
        return replace(
            paper, venue=meta.venue or paper.venue, year=meta.year if meta.year is not None else paper.year,
            fields_of_study=fields, domain=meta.fields[0] if meta.fields else paper.domain,
            external_ids=replace(paper.external_ids, s2=paper.external_ids.s2 or meta.corpusid, **ids)
            if isinstance(paper.external_ids, ExternalIds) else paper.external_ids)

    def finish(self) -> dict[str, Any]:
        """Counts after the last paper: records that matched nothing are counted, not errors."""
        self.counts.unmatched_records = len(self.records) - len(self._used)
        unmatched = sorted(set(self.records) - self._used)[:MAX_EXAMPLES]
        if unmatched:
            self.counts.examples["unmatched_records"] = unmatched
        return {"file": self.source, **self.counts.to_dict()}

"""The project's own JSONL (`Paper.to_dict()` per line): validated field by field, not trusted.

A pydantic schema checks types and enum values and names the offending
field path ("sections.3.role") in the rejection; ids are re-normalised and
sections go through the same `finalize` as every other format (so synthetic
papers' back matter is cut here too).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sciembed.papers.model import ExternalIds, Paper, RawSections, Reference, Section, SectionRole
from sciembed.papers.readers import ids
from sciembed.papers.readers.jsonrecords import read_json_records
from sciembed.papers.readers.records import INVALID_RECORD, MISSING_ID, Loc, Record, Rejection

FORMAT = "jsonl"
UNKNOWN_KEYS = "unknown_keys"  # flag: the record carried keys sciembed's JSONL does not know (ignored)
_PAPER_KEYS = frozenset({"id", "title", "sections"})


class _Ids(BaseModel):
    model_config = ConfigDict(extra="ignore")
    doi: str | None = None
    arxiv: str | None = None
    s2: str | None = None
    pmid: str | None = None
    pmc: str | None = None
    openalex: str | None = None
    acl: str | None = None


class _Section(BaseModel):
    model_config = ConfigDict(extra="ignore")
    heading: str | None = ""
    text: str | None = ""
    role: SectionRole = SectionRole.OTHER
    number: str | None = None


class _Reference(BaseModel):
    model_config = ConfigDict(extra="ignore")
    title: str | None = None
    paper_id: str | None = None
    year: int | None = None
    raw: str | None = None
    external_ids: _Ids | None = None


class _RawSections(BaseModel):
    model_config = ConfigDict(extra="ignore")
    count: int = Field(ge=0)
    body_chars: int = Field(ge=0)
    malformed_headings: int = Field(ge=0)


class _Paper(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str = Field(min_length=1)
    title: str | None = ""
    abstract: str | None = ""
    sections: list[_Section] = []
    references: list[_Reference] = []
    venue: str | None = None
    year: int | None = None
    domain: str | None = None
    fields_of_study: list[str] = []
    external_ids: _Ids | None = None
    flags: list[str] = []
    source: str | None = None
    raw_sections: _RawSections | None = None

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def matches(obj: dict[str, Any]) -> bool:
    """Paper.to_dict() records, and the plain title + abstract records most paper datasets are (no sections)."""
    if "abstractText" in obj or "body_text" in obj:
        return False
    if obj.keys() >= _PAPER_KEYS:
        return True
    return "id" in obj and isinstance(obj.get("title"), str) and isinstance(obj.get("abstract"), str) and (
        "text" not in obj)  # peS2o records carry their text under "text" (the s2orc reader's)


def read(path: Path, name: str) -> Iterator[Record]:
    return read_json_records(path, name, parse)


def _ids(data: _Ids | None) -> ExternalIds:
    return ids.normalize(ExternalIds(**data.model_dump())) if data else ExternalIds()


def parse(obj: dict[str, Any], loc: Loc) -> Paper | Rejection:
    raw_id = obj.get("id")
    known_id = str(raw_id) if raw_id not in (None, "") else None
    if known_id is None:
        return Rejection(loc, MISSING_ID, "record has no id")
    try:
        data = _Paper.model_validate(obj)
    except ValidationError as err:
        problems = [f"{'.'.join(str(p) for p in e['loc']) or '<record>'}: {e['msg']}" for e in err.errors()]
        shown = "; ".join(problems[:3]) + (f"; … {len(problems) - 3} more" if len(problems) > 3 else "")
        return Rejection(loc, INVALID_RECORD, f"{len(problems)} invalid field(s): {shown}", known_id)
    unknown = unknown_keys(obj)
    return Paper(
        id=data.id,
        title=data.title or "",
        abstract=data.abstract or "",
        sections=tuple(Section(s.heading or "", s.text or "", s.role, s.number) for s in data.sections),
        references=tuple(
            Reference(title=r.title, paper_id=r.paper_id, year=r.year, raw=r.raw, external_ids=_ids(r.external_ids))
            for r in data.references
        ),
        venue=data.venue,
        year=data.year,
        domain=data.domain,
        fields_of_study=tuple(data.fields_of_study),
        external_ids=_ids(data.external_ids),
        flags=(*data.flags, UNKNOWN_KEYS) if unknown else tuple(data.flags),
        source=data.source or f"{FORMAT}:{loc.file}",
        raw_sections=None if data.raw_sections is None else RawSections(**data.raw_sections.model_dump()),
    )


def unknown_keys(obj: dict[str, Any]) -> list[str]:
    """Keys the schema does not know ("benchmark_id", "sections.0.page"): ignored, and the paper flagged.

    Other tools add their own fields to JSONL; refusing every such record lost
    whole corpora, so they are kept out of the paper and counted instead.
    """
    found = [k for k in obj if k not in _Paper.model_fields]
    nested = (("sections", _Section), ("references", _Reference))
    for key, model in nested:
        for i, item in enumerate(obj.get(key) or [] if isinstance(obj.get(key), list) else []):
            if isinstance(item, dict):
                found += [f"{key}.{i}.{k}" for k in item if k not in model.model_fields]
    return found

"""The one definition of a paper and its parts: immutable types everything downstream reads and only readers
build. The Parquet schema and the JSONL validator are derived from them (`papers/schema.py`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from operator import attrgetter
from typing import Any


class SectionRole(StrEnum):
    """Coarse rhetorical role of a body section (back matter never becomes a section)."""

    INTRODUCTION = "introduction"
    RELATED_WORK = "related_work"
    METHOD = "method"
    RESULTS = "results"
    CONCLUSION = "conclusion"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class ExternalIds:
    """Identifiers a paper (or a reference) carries in other systems."""

    doi: str | None = None
    arxiv: str | None = None
    s2: str | None = None
    pmid: str | None = None
    pmc: str | None = None
    openalex: str | None = None
    acl: str | None = None

    def items(self) -> list[tuple[str, str]]:
        """Non-empty (kind, value) pairs, in field order."""
        return [(name, getattr(self, name)) for name in _ID_KINDS if getattr(self, name)]

    def values(self) -> tuple[str | None, ...]:
        """Every field's value (None where empty), in field order."""
        return _id_values(self)

    def to_dict(self) -> dict[str, str | None]:
        # Names and getter made once: `dataclasses.fields()` per call was a tenth of ingest's time
        # (every reference of every paper has its ExternalIds).
        return dict(zip(_ID_KINDS, _id_values(self), strict=True))

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> ExternalIds:
        data = data or {}
        return cls(**{k: (str(v) if v not in (None, "") else None) for k, v in data.items() if k in _ID_KINDS})


_ID_KINDS = tuple(f.name for f in fields(ExternalIds))
_id_values = attrgetter(*_ID_KINDS)


@dataclass(frozen=True, slots=True)
class Section:
    """One body section: its heading as printed, its text, and its role."""

    heading: str
    text: str
    role: SectionRole = SectionRole.OTHER
    number: str | None = None  # "2.1", "IV", … when the source gives one

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Section:
        return cls(heading=data.get("heading") or "", text=data.get("text") or "",
                   role=SectionRole(data.get("role") or "other"), number=data.get("number"))


@dataclass(frozen=True, slots=True)
class Author:
    """A paper's author as the source names them, with their affiliation(s) where it gives them ("; "-joined)."""

    name: str
    affiliation: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Author:
        return cls(name=data.get("name") or "", affiliation=data.get("affiliation") or None)


@dataclass(frozen=True, slots=True)
class Reference:
    """A bibliography entry: resolved to a corpus paper id when known, else raw."""

    title: str | None = None
    paper_id: str | None = None
    year: int | None = None
    raw: str | None = None
    external_ids: ExternalIds = field(default_factory=ExternalIds)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Reference:
        return cls(title=data.get("title"), paper_id=data.get("paper_id"), year=data.get("year"), raw=data.get("raw"),
                   external_ids=ExternalIds.from_dict(data.get("external_ids")))


@dataclass(frozen=True, slots=True)
class RawSections:
    """The body sections as the source parse gave them, before sciembed's normalisation (false headings merged,
    back matter cut, empty parents dropped): what SciJEPA's paper filters count."""

    count: int
    body_chars: int
    malformed_headings: int

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> RawSections | None:
        if not data:
            return None
        return cls(int(data["count"]), int(data["body_chars"]), int(data["malformed_headings"]))


@dataclass(frozen=True, slots=True)
class Paper:
    """A full-text paper. Immutable; build a changed copy with `dataclasses.replace`.

    `flags`: conditions that keep a paper but limit its use (``empty_abstract``, ``no_body``); `source`: the
    reader and file (``synthetic`` for generated papers); `raw_sections`: the source's own section counts.
    `venue` is the source's text as read, `venue_short` the proceedings' short name (`papers/venues.py`).
    """

    id: str = field(metadata={"key": True})  # required and non-empty in JSONL (papers/schema.py)
    title: str
    abstract: str = ""
    sections: tuple[Section, ...] = ()
    references: tuple[Reference, ...] = ()
    venue: str | None = None
    year: int | None = None
    domain: str | None = None
    fields_of_study: tuple[str, ...] = ()
    external_ids: ExternalIds = field(default_factory=ExternalIds)
    flags: tuple[str, ...] = ()
    source: str | None = None
    raw_sections: RawSections | None = None
    authors: tuple[Author, ...] = ()
    venue_short: str | None = None

    @property
    def has_body(self) -> bool:
        return any(s.text.strip() for s in self.sections)

    @property
    def body_text(self) -> str:
        return "\n\n".join(s.text for s in self.sections if s.text)

    def with_flags(self, *new: str) -> Paper:
        return replace(self, flags=tuple(dict.fromkeys((*self.flags, *new))))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict (enums as strings, tuples as lists); by hand, as `dataclasses.asdict` deep-copies
        and costs twice as much, which shows in ingest throughput."""
        return {
            "id": self.id, "title": self.title, "abstract": self.abstract,
            "sections": [{"heading": s.heading, "text": s.text, "role": SectionRole(s.role).value, "number": s.number}
                         for s in self.sections],
            "references": [{"title": r.title, "paper_id": r.paper_id, "year": r.year, "raw": r.raw,
                            "external_ids": r.external_ids.to_dict()} for r in self.references],
            "venue": self.venue, "year": self.year, "domain": self.domain,
            "fields_of_study": list(self.fields_of_study), "external_ids": self.external_ids.to_dict(),
            "flags": list(self.flags), "source": self.source,
            "raw_sections": None if self.raw_sections is None else {
                "count": self.raw_sections.count, "body_chars": self.raw_sections.body_chars,
                "malformed_headings": self.raw_sections.malformed_headings},
            "authors": [{"name": a.name, "affiliation": a.affiliation} for a in self.authors],
            "venue_short": self.venue_short,
        }

    def strings(self) -> Iterator[Any]:
        """Every string value `to_dict` writes (None where a field is empty), without building the dict (for
        `readers.checks.value_problem`); kept next to `to_dict` so that the two list the same fields."""
        yield from (self.id, self.title, self.abstract, self.venue, self.domain, self.source, self.venue_short)
        for a in self.authors:
            yield from (a.name, a.affiliation)
        yield from self.fields_of_study
        yield from self.flags
        yield from self.external_ids.values()
        for s in self.sections:
            yield from (s.heading, s.text, s.role, s.number)
        for r in self.references:
            yield from (r.title, r.paper_id, r.raw)
            yield from r.external_ids.values()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Paper:
        year = data.get("year")
        return cls(
            id=str(data["id"]), title=data.get("title") or "", abstract=data.get("abstract") or "",
            sections=tuple(Section.from_dict(s) for s in data.get("sections") or ()),
            references=tuple(Reference.from_dict(r) for r in data.get("references") or ()),
            venue=data.get("venue") or None, year=int(year) if year not in (None, "") else None,
            domain=data.get("domain") or None, fields_of_study=tuple(data.get("fields_of_study") or ()),
            external_ids=ExternalIds.from_dict(data.get("external_ids")), flags=tuple(data.get("flags") or ()),
            source=data.get("source"), raw_sections=RawSections.from_dict(data.get("raw_sections")),
            authors=tuple(Author.from_dict(a) for a in data.get("authors") or ()),  # none in a schema-1 corpus
            venue_short=data.get("venue_short") or None,
        )

"""The project's own JSONL (`Paper.to_dict()` per line): validated field by field, not trusted.

A pydantic model derived from `Paper` (`papers/schema.py`) names the offending field path ("sections.3.role")
in the rejection; ids are re-normalised, and sections go through `finalize` like every other format's.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from sciembed.papers.authors import authors_from_json
from sciembed.papers.model import Author, ExternalIds, Paper, RawSections, Reference, Section
from sciembed.papers.readers import ids
from sciembed.papers.readers.jsonrecords import read_json_records
from sciembed.papers.readers.records import INVALID_RECORD, MISSING_ID, Loc, Record, Rejection
from sciembed.papers.schema import unknown_keys as _unknown_keys
from sciembed.papers.schema import validator_model

FORMAT = "jsonl"
UNKNOWN_KEYS = "unknown_keys"  # flag: the record carried keys sciembed's JSONL does not know (ignored)
_PAPER_KEYS = frozenset({"id", "title", "sections"})
_PaperRecord = validator_model(Paper)  # derived from the dataclass (papers/schema.py)


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


def _ids(data: BaseModel | None) -> ExternalIds:
    return ids.normalize(ExternalIds(**data.model_dump())) if data else ExternalIds()


def parse(obj: dict[str, Any], loc: Loc) -> Paper | Rejection:
    raw_id = obj.get("id")
    known_id = str(raw_id) if raw_id not in (None, "") else None
    if known_id is None:
        return Rejection(loc, MISSING_ID, "record has no id")
    authors, odd_authors = _authors(obj)
    try:
        data = _PaperRecord.model_validate(obj if authors is None else {**obj, "authors": authors})
    except ValidationError as err:
        problems = [f"{'.'.join(str(p) for p in e['loc']) or '<record>'}: {e['msg']}" for e in err.errors()]
        shown = "; ".join(problems[:3]) + (f"; … {len(problems) - 3} more" if len(problems) > 3 else "")
        return Rejection(loc, INVALID_RECORD, f"{len(problems)} invalid field(s): {shown}", known_id)
    unknown = unknown_keys(obj) or odd_authors
    return Paper(
        id=data.id, title=data.title or "", abstract=data.abstract or "",
        sections=tuple(Section(s.heading or "", s.text or "", s.role, s.number) for s in data.sections),
        references=tuple(Reference(title=r.title, paper_id=r.paper_id, year=r.year, raw=r.raw,
                                   external_ids=_ids(r.external_ids)) for r in data.references),
        venue=data.venue, year=data.year, domain=data.domain, fields_of_study=tuple(data.fields_of_study),
        external_ids=_ids(data.external_ids), flags=(*data.flags, UNKNOWN_KEYS) if unknown else tuple(data.flags),
        source=data.source or f"{FORMAT}:{loc.file}",
        raw_sections=None if data.raw_sections is None else RawSections(**data.raw_sections.model_dump()),
        authors=tuple(Author(a.name or "", a.affiliation) for a in data.authors), venue_short=data.venue_short)


def _authors(obj: dict[str, Any]) -> tuple[list[dict[str, Any]] | None, bool]:
    """``authors`` as the validator takes them (read by `authors_from_json`), and whether a value of another
    shape was left out (the paper is then flagged `unknown_keys`, never rejected for its authors)."""
    if "authors" not in obj:
        return None, False
    found = authors_from_json(obj["authors"])
    if found is None:
        return [], obj["authors"] not in (None, "")
    return [{"name": a.name, "affiliation": a.affiliation} for a in found], False


# Keys a run declares expected (`sciembed corpus ingest --extra-keys`): ignored without flagging the paper.
_EXTRA_KEYS: ContextVar[frozenset[str]] = ContextVar("sciembed_extra_keys", default=frozenset())


@contextmanager
def using_extra_keys(keys: Iterable[str]) -> Iterator[None]:
    """Within the block, these keys (top-level "benchmark_id", or nested "sections.page") are expected."""
    token = _EXTRA_KEYS.set(frozenset(keys))
    try:
        yield
    finally:
        _EXTRA_KEYS.reset(token)


def unknown_keys(obj: dict[str, Any]) -> list[str]:
    """Keys the schema does not know ("benchmark_id", "sections.0.page"): ignored, and the paper flagged unless
    declared expected (`using_extra_keys`; "sections.page" covers every section). See docs/ingest.md."""
    expected = _EXTRA_KEYS.get()
    return [k for k in _unknown_keys(obj, Paper)
            if k not in expected and ".".join(p for p in k.split(".") if not p.isdigit()) not in expected]

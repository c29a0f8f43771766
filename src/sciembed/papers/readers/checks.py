"""Checks every reader's output gets after `finalize`: usable ids, a display title, typed scalar fields.

Ids are checked once normalised, so "\\x00" or "   " cannot pass as the empty id; whitespace inside an id is
refused, since TREC runs and qrels split columns on it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from sciembed.papers.model import Paper
from sciembed.papers.readers.records import MISSING_ID
from sciembed.papers.readers.source import file_stem

INVALID_ID = "invalid_id"
INVALID_TEXT = "invalid_text"
INVALID_YEAR = "invalid_year"
MAX_ID_CHARS = 512
MAX_ABS_YEAR = 9999  # a five-digit year is a data error (and 2**63 would not fit the Parquet column)
_SURROGATE = re.compile("[\ud800-\udfff]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def id_problem(clean: str, raw: Any) -> tuple[str, str] | None:
    """(reason, message) when a normalised id is unusable, else None."""
    if not clean:
        return MISSING_ID, f"id {str(raw)[:40]!r} is empty once control characters and whitespace are removed"
    if any(c.isspace() for c in clean):
        return INVALID_ID, f"id {clean[:80]!r} contains whitespace (TREC runs and qrels cannot hold it)"
    if len(clean) > MAX_ID_CHARS:
        return INVALID_ID, f"id is {len(clean)} characters long (at most {MAX_ID_CHARS})"
    return None


def value_problem(paper: Paper) -> tuple[str, str] | None:
    """(reason, message) when a paper holds a value no table can store: a lone surrogate, an absurd year.

    JSON allows ``"\\ud800"``, which no UTF-8 writer takes: rejected here, with its line, not at the write.
    """
    if paper.year is not None and not -MAX_ABS_YEAR <= paper.year <= MAX_ABS_YEAR:
        return INVALID_YEAR, f"year {str(paper.year)[:30]} is outside -{MAX_ABS_YEAR}..{MAX_ABS_YEAR}"
    if _encodable(paper):
        return None
    where = _surrogate_field(paper.to_dict(), "")
    if where is not None:
        return INVALID_TEXT, f"field {where} holds a lone surrogate escape (not encodable as UTF-8)"
    return None


def _encodable(paper: Paper) -> bool:
    """Whether all of a paper's text encodes as UTF-8: one `str.encode` of its strings joined, in C (one copy;
    only a paper that fails is walked field by field to name the field)."""
    try:
        "".join(filter(None, paper.strings())).encode("utf-8")
    except (UnicodeEncodeError, TypeError):
        return False
    return True


def _surrogate_field(value: Any, where: str) -> str | None:
    if isinstance(value, str):
        return where or "value" if _SURROGATE.search(value) else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _surrogate_field(item, f"{where}.{key}" if where else str(key))
        if found is not None:
            return found
    return None


def display_title(paper: Paper, file_name: str, max_chars: int = 200) -> Paper:
    """A stand-in title for an untitled paper: the abstract's first sentence (`shorten`ed), else the file stem."""
    first = _SENTENCE_END.split(paper.abstract, maxsplit=1)[0].strip() if paper.abstract else ""
    stem = file_stem(file_name, (".gz", ".jsonl", ".json", ".xml", ".nxml", ".tei", ".pdf"))
    return replace(paper, title=shorten(first, max_chars) or stem)


def shorten(text: str, max_chars: int) -> str:
    """`text` if it fits in `max_chars`, else its longest word-boundary prefix plus "…" (at most max_chars)."""
    if len(text) <= max_chars:
        return text
    room = max_chars - 1  # one character for the ellipsis
    cut = text[:room]
    if not text[room].isspace():  # the cut falls inside a word: go back to that word's start
        boundary = max(cut.rfind(" "), cut.rfind("\n"), cut.rfind("\t"))
        cut = cut[:boundary] if boundary > 0 else cut
    return cut.rstrip() + "…"


class FieldTypeError(ValueError):
    """A field holds a value of the wrong JSON type (a dict where an id belongs, `true` as a title …)."""


def id_text(value: Any, field: str) -> str:
    """An id from a string or an integer; anything else is a `FieldTypeError`, never a Python repr."""
    if value is None or value == "":
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise FieldTypeError(f"{field} must be a string or an integer, got {type(value).__name__}")
    return str(value)


def strings(values: Any, field: str) -> tuple[str, ...]:
    """A list of strings (e.g. fields of study); a non-list or a non-string item is a `FieldTypeError`."""
    if values in (None, ""):
        return ()
    if not isinstance(values, list):
        raise FieldTypeError(f"{field} must be a list of strings, got {type(values).__name__}")
    bad = [type(v).__name__ for v in values if not isinstance(v, str)]
    if bad:
        raise FieldTypeError(f"{field} must hold strings, got {', '.join(sorted(set(bad)))}")
    return tuple(v for v in values if v)


def dict_items(entries: Any, field: str) -> list[dict[str, Any]]:
    """Reference entries (a list, or a dict's values); an entry that is no object is a `FieldTypeError`
    (dropping it quietly would shorten the reference list without a word)."""
    if entries in (None, "", [], {}):
        return []
    items = list(entries.values()) if isinstance(entries, dict) else entries
    if isinstance(items, tuple | type({}.values())):
        items = list(items)
    if not isinstance(items, list):
        raise FieldTypeError(f"{field} must be a list or an object, got {type(entries).__name__}")
    bad = sorted({type(e).__name__ for e in items if not isinstance(e, dict)})
    if bad:
        raise FieldTypeError(f"{field} entries must be objects, got {', '.join(bad)}")
    return items

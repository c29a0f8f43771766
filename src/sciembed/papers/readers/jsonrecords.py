"""Shared driver for JSON formats: one record per line, one document per file, or an array of documents."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sciembed.papers.model import Paper
from sciembed.papers.readers.limits import TOO_DEEPLY_NESTED
from sciembed.papers.readers.records import INVALID_RECORD, Accepted, Loc, Record, Rejection
from sciembed.papers.readers.source import iter_json_lines, peek_json_objects, read_json_document

Parse = Callable[[dict[str, Any], Loc], Paper | Rejection]
_LINE_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")


def is_line_delimited(path: Path) -> bool:
    """`.jsonl` / `.ndjson` always; a `.json` file when its first line is already a whole object."""
    return path.name.lower().endswith(_LINE_SUFFIXES) or peek_json_objects(path, limit=1)[1]


def read_json_records(path: Path, name: str, parse: Parse) -> Iterator[Record]:
    """Parse every JSON object in a file with `parse`; broken input comes out as rejections."""
    items = iter_json_lines(path, name) if is_line_delimited(path) else read_json_document(path, name)
    for item in items:
        yield item if isinstance(item, Rejection) else _safe(parse, *item)


def _safe(parse: Parse, loc: Loc, obj: dict[str, Any]) -> Record:
    """A record whose fields have unexpected types is rejected, not a crash of the whole run."""
    try:
        result = parse(obj, loc)
    except (TypeError, ValueError, AttributeError, KeyError) as err:
        return Rejection(loc, INVALID_RECORD, f"unexpected structure: {type(err).__name__}: {err}", _guess_id(obj))
    except RecursionError:
        return Rejection(loc, TOO_DEEPLY_NESTED, "a field is nested too deeply to read", _guess_id(obj))
    return Accepted(loc, result) if isinstance(result, Paper) else result


def _guess_id(obj: dict[str, Any]) -> str | None:
    for key in ("id", "paper_id", "corpusid"):
        if isinstance(obj.get(key), str | int) and not isinstance(obj[key], bool) and obj[key] != "":
            return str(obj[key])
    return None

"""JSON-object lines for every reader outside ingest (summaries, SciTLDR, BEIR, query files).

One loop over the ingest readers' hardened `source.iter_json_lines`, so every JSONL file in sciembed is read
with the same limits and the same words for what is wrong with a line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.papers.readers.limits import RECORD_TOO_LARGE, TOO_DEEPLY_NESTED
from sciembed.papers.readers.records import INVALID_RECORD, INVALID_UTF8, MALFORMED_JSON, Rejection
from sciembed.papers.readers.source import iter_json_lines

NOT_JSON = "not valid JSON"
NOT_OBJECT = "not a JSON object"
NOT_UTF8 = "not valid UTF-8"
TOO_LARGE = "larger than the record limit"

_PROBLEMS = {MALFORMED_JSON: NOT_JSON, TOO_DEEPLY_NESTED: NOT_JSON, INVALID_RECORD: NOT_OBJECT,
             INVALID_UTF8: NOT_UTF8, RECORD_TOO_LARGE: TOO_LARGE}


class JsonLinesFileError(OSError):
    """The file itself cannot be read on (unreadable, truncated gzip, decompression limit); names file and line."""


@dataclass(frozen=True, slots=True)
class JsonLine:
    """One non-blank line: its object, or the problem (one of the constants above) and its detail."""

    number: int
    where: str  # "<file name>:<line>"
    record: dict[str, Any] | None
    problem: str | None = None
    detail: str = ""


def json_object_lines(path: str | Path) -> Iterator[JsonLine]:
    """Every non-blank line of a (possibly gzipped) JSON-lines file, in order; file-level failures raise."""
    path = Path(path)
    for item in iter_json_lines(path, path.name):
        if not isinstance(item, Rejection):
            loc, record = item
            yield JsonLine(loc.line or 0, str(loc), record)
            continue
        problem = _PROBLEMS.get(item.reason)
        if problem is None:
            raise JsonLinesFileError(f"{path}: {item.loc}: {item.message}")
        yield JsonLine(item.loc.line or 0, str(item.loc), None, problem, item.message)


@dataclass(kw_only=True)
class LineTally:
    """A reader's account: lines read, rejected ones by reason, each reason's first "file:line" (readers extend
    it with what they accept, so read = accepted + rejected is checkable)."""

    read: int = 0
    rejected: Counter = field(default_factory=Counter)  # reason -> count
    examples: dict[str, str] = field(default_factory=dict)  # reason -> first "file:line"

    def reject(self, reason: str, where: str) -> None:
        self.rejected[reason] += 1
        self.examples.setdefault(reason, where)


def counted_objects(path: str | Path, tally: LineTally, error: type[Exception]) -> Iterator[tuple[str, dict[str, Any]]]:
    """("file:line", object) per line holding one; every non-blank line is counted in `tally.read`, one
    without an object `tally.reject`ed; a file not UTF-8 or unreadable raises `error` naming file and line."""
    path = Path(path)
    try:
        for line in json_object_lines(path):
            tally.read += 1
            if line.problem == NOT_UTF8:
                raise error(f"{path}: not UTF-8 ({line.where}: {line.detail})")
            if line.record is None:
                tally.reject(line.problem or NOT_JSON, line.where)
            else:
                yield line.where, line.record
    except JsonLinesFileError as exc:
        raise error(str(exc)) from exc

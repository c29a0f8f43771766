"""The one JSON-object-lines loop every non-ingest reader uses: each non-blank line is an object or a problem."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from sciembed.papers.readers.jsonlines import (
    NOT_JSON,
    NOT_OBJECT,
    NOT_UTF8,
    TOO_LARGE,
    JsonLinesFileError,
    LineTally,
    counted_objects,
    json_object_lines,
)
from sciembed.papers.readers.limits import ReadLimits, using_limits


def _write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_every_non_blank_line_is_an_object_or_a_located_problem(tmp_path: Path) -> None:
    deep = b"[" * 300 + b"]" * 300
    path = _write(tmp_path / "x.jsonl", [b'{"a": 1}', b"", b"{broken", b"[1, 2]", b'{"b": "\xff"}', b"  ",
                                         b'{"deep": ' + deep + b"}", b"x" * 2000, b'{"c": 3}'])
    with using_limits(ReadLimits(max_record_bytes=1000)):
        lines = list(json_object_lines(path))
    assert [(ln.number, ln.problem) for ln in lines] == [
        (1, None), (3, NOT_JSON), (4, NOT_OBJECT), (5, NOT_UTF8), (7, NOT_JSON), (8, TOO_LARGE), (9, None)]
    assert lines[0].record == {"a": 1} and lines[0].where == "x.jsonl:1"
    assert "byte" in lines[3].detail  # where in the line the bad byte is


def test_gzip_by_content_and_a_truncated_stream_is_a_file_error(tmp_path: Path) -> None:
    data = gzip.compress(b"".join(json.dumps({"i": i}).encode() + b"\n" for i in range(50)))
    path = tmp_path / "s.jsonl"  # no .gz suffix: recognised by its magic bytes
    path.write_bytes(data)
    assert [ln.record["i"] for ln in json_object_lines(path)] == list(range(50))
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(JsonLinesFileError, match=r"s\.jsonl"):
        list(json_object_lines(path))


def test_counted_objects_adds_up_and_refuses_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = _write(tmp_path / "c.jsonl", [b'{"a": 1}', b"nope", b"", b"7", b'{"b": 2}'])
    tally = LineTally()
    got = list(counted_objects(path, tally, ValueError))
    assert got == [("c.jsonl:1", {"a": 1}), ("c.jsonl:5", {"b": 2})]
    assert tally.read == 4 and tally.rejected == {NOT_JSON: 1, NOT_OBJECT: 1}
    assert tally.examples == {NOT_JSON: "c.jsonl:2", NOT_OBJECT: "c.jsonl:4"}
    _write(path, [b'{"a": 1}', b'{"b": "\xfe"}'])
    with pytest.raises(ValueError, match=r"not UTF-8 \(c.jsonl:2"):
        list(counted_objects(path, LineTally(), ValueError))

"""Issue 23, defects 7 and 8: a lone surrogate or a year past 64 bits is one counted reject, not a crash."""

from __future__ import annotations

import json

import pytest

from fakes.fuzzing.hostile import own_record
from sciembed.papers.ingest import ingest
from sciembed.papers.readers import Rejection, read_papers


def _write(path, lines: list[str]):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("field", ["title", "abstract", "venue"])
def test_lone_surrogate_is_one_counted_reject(tmp_path, field):
    bad = json.dumps(own_record("bad")).replace('"id": "bad"', '"id": "bad"')
    bad = json.dumps({**own_record("bad"), field: "PLACEHOLDER"}).replace("PLACEHOLDER", "T \\ud800 x")
    path = _write(tmp_path / "s.jsonl", [json.dumps(own_record("ok")), bad])
    result = ingest([path], tmp_path / "out", progress=False)
    assert (result.read, result.accepted, result.rejected) == (2, 1, 1)
    (reject,) = [r for r in read_papers(path) if isinstance(r, Rejection)]
    assert reject.loc.line == 2 and "surrogate" in reject.message and reject.id == "bad"


def test_year_past_64_bits_is_one_counted_reject(tmp_path):
    path = _write(tmp_path / "y.jsonl", [json.dumps({**own_record("big"), "year": 2**63}),
                                         json.dumps({**own_record("neg"), "year": -(2**70)}),
                                         json.dumps({**own_record("ok"), "year": 2020})])
    result = ingest([path], tmp_path / "out", progress=False)
    assert (result.read, result.accepted, result.rejected) == (3, 1, 2)
    reasons = [r for r in read_papers(path) if isinstance(r, Rejection)]
    assert [r.loc.line for r in reasons] == [1, 2] and all("year" in r.message for r in reasons)

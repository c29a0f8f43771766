"""Issue 23, defects 7 and 8: a lone surrogate or a year past 64 bits is one counted reject, not a crash."""

from __future__ import annotations

import json
from pathlib import Path

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


def _surrogate_id_line(pid: str = "bad\\ud800") -> str:
    return json.dumps({**own_record("x"), "id": "PLACE"}).replace("PLACE", pid)


def test_lone_surrogate_in_an_id_is_one_counted_reject(tmp_path):
    """Issue 33, defect 7: the rejection itself must be writable (rejects.jsonl), or the whole ingest fails."""
    path = _write(tmp_path / "s.jsonl", [json.dumps(own_record("ok")), _surrogate_id_line(),
                                         _surrogate_id_line("\\udfff")])
    result = ingest([path], tmp_path / "out", progress=False)
    assert (result.read, result.accepted, result.rejected) == (3, 1, 2)
    written = [json.loads(line) for line in (tmp_path / "out" / "rejects.jsonl").read_text("utf-8").splitlines()]
    assert [r["id"] for r in written] == ["bad\\ud800", "\\udfff"] and all(r["line"] in (2, 3) for r in written)


def test_corpus_ingest_cli_survives_a_surrogate_id_and_an_undecodable_file_name(tmp_path):
    import os

    from typer.testing import CliRunner

    from sciembed.cli.main import app

    folder = tmp_path / "in"
    folder.mkdir()
    _write(folder / "a.jsonl", [json.dumps(own_record("ok")), _surrogate_id_line()])
    odd = os.fsdecode(b"b\xff.jsonl")  # a name that is not UTF-8: Python reads it with surrogateescape
    _write(folder / odd, [json.dumps(own_record("ok2")), _surrogate_id_line("\\ud801")])
    result = CliRunner().invoke(app, ["corpus", "ingest", str(folder), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["counts"]["accepted"] == 2 and manifest["counts"]["rejected"] == 2, manifest["counts"]
    rejects = [json.loads(line) for line in (tmp_path / "out" / "rejects.jsonl").read_text("utf-8").splitlines()]
    assert sorted(Path(r["file"]).name for r in rejects) == ["a.jsonl", "b\\udcff.jsonl"]
    assert sorted(r["id"] for r in rejects) == ["\\ud801", "bad\\ud800"]

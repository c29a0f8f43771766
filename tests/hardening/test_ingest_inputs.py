"""Regression tests for issue 15, defects 1, 2, 4, 9, 10, 13, 14 and 16 (ingest side)."""

from __future__ import annotations

import gzip
import json

import pyarrow.parquet as pq
import pytest
from lxml import etree
from typer.testing import CliRunner

from fakes.fuzzing.hostile import deep_json, own_record, s2orc_record, tei, write_lines, zero_bomb
from sciembed.cli.main import app
from sciembed.papers.ingest import TooManyErrors, ingest
from sciembed.papers.readers import Accepted, Rejection, read_papers
from sciembed.papers.readers.limits import ReadLimits, using_limits
from sciembed.papers.readers.xmltext import text_of


def _reasons(path, fmt="auto", **kw):
    return [r.reason if isinstance(r, Rejection) else "accepted" for r in read_papers(path, fmt, **kw)]


# -- 1: deep JSON ------------------------------------------------------------------------------------------------


def test_deep_json_is_one_rejection_not_a_crash(tmp_path):
    path = write_lines(tmp_path / "d.jsonl", [deep_json(1000), own_record("ok")])
    assert _reasons(path, "jsonl") == ["too_deeply_nested", "accepted"]
    assert _reasons(path) == ["too_deeply_nested", "accepted"]  # detection peeks past the deep line
    single = tmp_path / "d.json"
    single.write_text(deep_json(5000))
    assert _reasons(single, "s2orc") == ["too_deeply_nested"]
    nested_field = write_lines(tmp_path / "f.jsonl", [own_record("x", sections=json.loads(deep_json(300)))])
    assert _reasons(nested_field, "jsonl") == ["too_deeply_nested"]
    result = ingest([path], tmp_path / "out", fmt="jsonl", progress=False)
    assert (result.read, result.accepted, result.reasons["too_deeply_nested"]) == (2, 1, 1)


# -- 2: deep XML ----------------------------------------------------------------------------------------------------


def test_text_extraction_is_iterative_and_keeps_order(tmp_path):
    el = etree.fromstring("<p>a<hi>b<hi>c</hi>d</hi>e<skip>no</skip>f<item>g</item>h</p>")
    assert text_of(el, skip=("skip",), blocks=("item",)) == "abcdef g h"
    deep = etree.fromstring("<p>" + "<hi>" * 2000 + "x" + "</hi>" * 2000 + "</p>", etree.XMLParser(huge_tree=True))
    assert text_of(deep) == "x"
    path = tmp_path / "n.tei.xml"
    path.write_text(tei("<p>" + "<hi>" * 1000 + "deep words " * 40 + "</hi>" * 1000 + "</p>"))
    (record,) = read_papers(path)
    assert isinstance(record, Accepted) and "deep words" in record.paper.body_text


# -- 4: bombs and huge records -------------------------------------------------------------------------------------


def test_gzip_bomb_stops_at_the_ratio_limit(tmp_path):
    bomb = zero_bomb(tmp_path / "z.jsonl.gz", 8 << 20)
    with using_limits(ReadLimits(ratio_after_bytes=1 << 20, max_record_bytes=1 << 20)):
        assert _reasons(bomb, "jsonl") == ["decompression_limit"]
        xml_bomb = zero_bomb(tmp_path / "z.tei.xml.gz", 8 << 20)
        assert _reasons(xml_bomb, "tei") == ["decompression_limit"]


def test_oversized_record_is_skipped_and_the_next_line_read(tmp_path):
    big = own_record("big", abstract="x" * 50_000)
    path = write_lines(tmp_path / "big.jsonl", [own_record("a"), big, own_record("b")])
    result = ingest([path], tmp_path / "out", progress=False, limits=ReadLimits(max_record_bytes=10_000))
    assert (result.read, result.accepted, dict(result.reasons)) == (3, 2, {"record_too_large": 1})
    rejected = json.loads((tmp_path / "out" / "rejects.jsonl").read_text())
    assert rejected["line"] == 2 and rejected["reason"] == "record_too_large"
    xml = tmp_path / "big.tei.xml"
    xml.write_text(tei("<p>" + "long " * 5000 + "</p>"))
    with using_limits(ReadLimits(max_record_bytes=10_000)):
        assert _reasons(xml) == ["record_too_large"]


# -- 9: ids normalised before validation ---------------------------------------------------------------------------


def test_ids_are_normalised_then_validated(tmp_path):
    path = write_lines(tmp_path / "ids.jsonl", [own_record("\u0000"), own_record("   "), own_record("a b"),
                                                 own_record("\tok\u0000")])
    records = list(read_papers(path, "jsonl"))
    assert [r.reason if isinstance(r, Rejection) else r.paper.id for r in records] == [
        "missing_id", "missing_id", "invalid_id", "ok"]  # never "duplicate id ''"
    assert "whitespace" in records[2].message


# -- 10: rejects cap and --max-errors ------------------------------------------------------------------------------


def test_rejects_file_is_capped_but_counts_stay_exact(tmp_path):
    path = write_lines(tmp_path / "bad.jsonl", ["{}"] * 50 + [own_record("a")])
    result = ingest([path], tmp_path / "out", fmt="jsonl", progress=False, max_reject_details=10)
    assert (result.read, result.rejected, result.rejects_written) == (51, 50, 10)
    assert len((tmp_path / "out" / "rejects.jsonl").read_text().splitlines()) == 10
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["rejects_file"] == {"written": 10, "truncated": True} and manifest["counts"]["rejected"] == 50


def test_max_errors_stops_early_and_writes_nothing(tmp_path):
    path = write_lines(tmp_path / "bad.jsonl", ["{oops"] * 20)
    with pytest.raises(TooManyErrors, match="stopped after 5 rejected"):
        ingest([path], tmp_path / "out", progress=False, fmt="jsonl", max_errors=5)
    assert not (tmp_path / "out").exists()
    run = CliRunner().invoke(app, ["corpus", "ingest", str(path), "--out", str(tmp_path / "o"), "--format", "jsonl",
                                   "--max-errors", "3", "--no-progress"])
    assert run.exit_code == 2 and "max-errors 3" in run.output and not (tmp_path / "o").exists()


# -- 13: no silent coercion ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [{"id": 1}, True, [1], 1.5])
def test_wrongly_typed_ids_are_rejected_not_stringified(tmp_path, value):
    path = write_lines(tmp_path / "s.jsonl", [s2orc_record(value)])
    (record,) = read_papers(path, "s2orc")
    assert isinstance(record, Rejection) and record.reason == "invalid_record" and "paper_id" in record.message


def test_fields_of_study_and_references_are_not_coerced(tmp_path):
    fos = s2orc_record("f")
    fos["metadata"]["mag_field_of_study"] = [{"name": "Biology"}]
    refs = s2orc_record("r", bib_entries=["just a string"])
    path = write_lines(tmp_path / "s.jsonl", [fos, refs, s2orc_record("ok")])
    records = list(read_papers(path, "s2orc"))
    assert [r.reason if isinstance(r, Rejection) else "accepted" for r in records] == [
        "invalid_record", "invalid_record", "accepted"]
    assert "mag_field_of_study" not in records[0].message and "fields_of_study" in records[0].message
    assert "bib_entries" in records[1].message


# -- 14: unknown keys, untitled papers, nothing accepted, plain progress ----------------------------------------


def test_unknown_keys_are_ignored_with_a_counted_warning(tmp_path):
    path = write_lines(tmp_path / "own.jsonl", [own_record("a", benchmark_id=7), own_record("b")])
    run = CliRunner().invoke(app, ["corpus", "ingest", str(path), "--out", str(tmp_path / "o"), "--no-progress"])
    assert run.exit_code == 0, run.output
    assert "read 2 = accepted 2 + rejected 0" in run.output and "1 record(s) carried keys" in run.output
    flags = pq.read_table(tmp_path / "o" / "papers.parquet").column("flags").to_pylist()
    assert flags[0] == ["unknown_keys"] and flags[1] == []


def test_keep_untitled_flags_and_titles_from_the_abstract(tmp_path):
    path = write_lines(tmp_path / "own.jsonl", [own_record("a", title=""), own_record("b", title="", abstract="")])
    assert _reasons(path) == ["missing_title", "missing_title"]
    kept = [r.paper for r in read_papers(path, keep_untitled=True)]
    assert [p.title for p in kept] == ["An abstract.", "own"]
    assert all("missing_title" in p.flags for p in kept)


def test_untitled_rejections_name_the_option_and_a_long_stand_in_title_ends_at_a_word(tmp_path):
    sentence = "Word " * 60 + "end."  # a 304-character first sentence
    path = write_lines(tmp_path / "own.jsonl", [own_record("a", title="", abstract=sentence), own_record("b")])
    run = CliRunner().invoke(app, ["corpus", "ingest", str(path), "--out", str(tmp_path / "o"), "--no-progress"])
    assert run.exit_code == 0, run.output
    assert "1 paper(s) without a title were rejected (missing_title); pass --keep-untitled" in run.output
    assert "pass --keep-untitled to keep them" in (tmp_path / "o" / "ingest_report.md").read_text()
    (kept, _) = [r.paper for r in read_papers(path, keep_untitled=True)]
    assert kept.title == ("Word " * 40).strip() + "…" and len(kept.title) == 200  # whole words, then "…"
    clean = CliRunner().invoke(app, ["corpus", "ingest", str(path), "--out", str(tmp_path / "k"), "--no-progress",
                                     "--keep-untitled"])
    assert clean.exit_code == 0 and "--keep-untitled" not in clean.output


def test_an_ingest_that_accepts_nothing_exits_non_zero(tmp_path):
    path = write_lines(tmp_path / "x.jsonl", ["{}", "[1]"])
    run = CliRunner().invoke(app, ["corpus", "ingest", str(path), "--out", str(tmp_path / "o"), "--format", "jsonl"])
    assert run.exit_code == 2 and "no record was accepted" in run.output
    assert "ingest: done, 2 records read" in run.output  # not a terminal: a plain progress line instead of a bar


# -- 16: own output is never input ---------------------------------------------------------------------------------


def test_output_inside_the_input_directory_is_not_read_back(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    write_lines(data / "a.jsonl", [own_record("a"), "{bad"])
    first = ingest([data], data / "out", progress=False)
    second = ingest([data], data / "out", progress=False, overwrite=True)
    assert (first.read, first.rejected) == (second.read, second.rejected) == (2, 1)


def test_gzip_of_empty_objects_is_counted_not_exploded(tmp_path):
    path = tmp_path / "e.jsonl.gz"
    with gzip.open(path, "wt") as out:
        out.write("{}\n" * 30_000)
    result = ingest([path], tmp_path / "out", fmt="jsonl", progress=False)
    assert result.rejected == 30_000 and result.rejects_written == 10_000
    assert (tmp_path / "out" / "rejects.jsonl").stat().st_size < 2_000_000

"""`ingest()` / `sciembed ingest`: the corpus directory, the counts, and every kind of bad input."""

from __future__ import annotations

import gzip
import json
import re

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.corpus.layout import SCHEMA_VERSION, CorpusDir
from sciembed.papers.ingest import IngestError, ingest
from sciembed.papers.io import read_parquet, write_jsonl
from sciembed.papers.model import Paper, Section

BODY = "The method is evaluated on three public benchmarks with strong baselines. " * 6
SENTENCE = "In this section we describe how the model was trained on the data and then evaluated."
BIG = " ".join(f"token{i % 113}" for i in range(20_000))


def _paper(pid: str, **changes) -> dict:
    paper = Paper(
        pid, f"Paper {pid}", "An abstract.", (Section("Introduction", BODY), Section("Results", BODY)),
        source="synthetic:test",
    )
    return {**paper.to_dict(), **changes}


@pytest.fixture(scope="module")
def messy(tmp_path_factory):
    """One input directory holding every kind of record ingest must handle, and its ingested corpus."""
    root = tmp_path_factory.mktemp("messy")
    inputs = root / "inputs"
    inputs.mkdir()
    lines = [
        json.dumps(_paper("ok")),
        json.dumps(_paper("sentence", sections=[
            {"heading": "Introduction", "text": "Opening words."},
            {"heading": SENTENCE, "text": "Details of training."},
            {"heading": "Results", "text": BODY},
        ])),
        json.dumps(_paper("no-abstract", abstract="")),
        json.dumps(_paper("ta-only", sections=[])),
        json.dumps(_paper("big", sections=[{"heading": "Results", "text": BIG}])),
        json.dumps(_paper("ok", title="A later record reusing the id")),
        json.dumps(_paper("untitled", title="   ")),
        '{"id": "broken", "title": "Half a rec',
    ]
    (inputs / "a.jsonl").write_bytes("\n".join(lines).encode() + b'\n{"id": "bad\xff", "title": "x"}\n')
    zipped = gzip.compress(("\n".join(json.dumps(_paper(f"z{i}", abstract="y" * 300)) for i in range(100))).encode())
    (inputs / "b.jsonl.gz").write_bytes(zipped[: len(zipped) * 2 // 3])
    (inputs / "c.xml").write_text("<article><front><article-meta></front></article>")
    (inputs / "notes.txt").write_text("not a paper")
    out = root / "corpus"
    result = ingest([inputs], out, progress=False)
    rejects = [json.loads(line) for line in (out / "rejects.jsonl").read_text().splitlines()]
    papers = {p.id: p for p in CorpusDir(out).iter_papers()}
    return result, out, rejects, papers


def _reject(rejects: list[dict], reason: str) -> list[dict]:
    return [r for r in rejects if r["reason"] == reason]


def test_counts_add_up_everywhere(messy):
    result, out, rejects, papers = messy
    manifest = CorpusDir(out).manifest()
    counts = manifest["counts"]
    assert counts["read"] == counts["accepted"] + counts["rejected"] == result.read
    assert counts["accepted"] == len(papers) == pq.ParquetFile(out / "papers.parquet").metadata.num_rows
    assert counts["rejected"] == len(rejects) == sum(manifest["rejected_by_reason"].values())
    for name in ("read", "accepted", "rejected"):
        assert sum(f[name] for f in manifest["files"].values()) == counts[name]
    assert manifest["schema_version"] == SCHEMA_VERSION and manifest["synthetic"] is True
    assert manifest["skipped_files"] == [str(out.parent / "inputs" / "notes.txt")]
    report = (out / "ingest_report.md").read_text()
    assert f"read {counts['read']} = accepted {counts['accepted']} + rejected {counts['rejected']}" in report


def test_malformed_json_line(messy):
    _, _, rejects, _ = messy
    (bad,) = _reject(rejects, "malformed_json")
    assert bad["file"].endswith("a.jsonl") and bad["line"] == 8


def test_invalid_utf8(messy):
    _, _, rejects, _ = messy
    (bad,) = _reject(rejects, "invalid_utf8")
    assert bad["file"].endswith("a.jsonl") and bad["line"] == 9


def test_truncated_gzip(messy):
    result, _, rejects, papers = messy
    (bad,) = _reject(rejects, "truncated_gzip")
    kept = sum(1 for pid in papers if pid.startswith("z"))
    assert 0 < kept < 100 and bad["line"] == kept + 1
    assert result.files[bad["file"]].read == kept + 1


def test_malformed_xml(messy):
    _, _, rejects, _ = messy
    (bad,) = _reject(rejects, "malformed_xml")
    assert bad["file"].endswith("c.xml") and bad["line"] == 1


def test_missing_title_is_rejected(messy):
    _, _, rejects, papers = messy
    (bad,) = _reject(rejects, "missing_title")
    assert (bad["id"], bad["line"]) == ("untitled", 7) and "untitled" not in papers


def test_empty_abstract_is_kept_and_flagged(messy):
    result, _, _, papers = messy
    assert papers["no-abstract"].flags == ("empty_abstract",)
    assert result.flags["empty_abstract"] == 1


def test_no_body_is_kept_as_title_abstract_only(messy):
    _, out, _, papers = messy
    assert papers["ta-only"].sections == () and papers["ta-only"].flags == ("no_body",)
    assert CorpusDir(out).manifest()["flags"]["no_body"] == 1


def test_duplicate_ids_keep_the_first(messy):
    _, _, rejects, papers = messy
    (dup,) = _reject(rejects, "duplicate_id")
    assert dup["id"] == "ok" and dup["line"] == 6 and "'ok'" in dup["message"]
    assert papers["ok"].title == "Paper ok"


def test_twenty_thousand_word_section_is_kept(messy):
    _, _, _, papers = messy
    (section,) = papers["big"].sections
    assert len(section.text.split()) == 20_000


def test_headings_that_are_sentences_are_not_headers(messy):
    _, _, _, papers = messy
    paper = papers["sentence"]
    assert [s.heading for s in paper.sections] == ["Introduction", "Results"]
    assert paper.sections[0].text == f"Opening words.\n\n{SENTENCE}\n\nDetails of training."


def test_strict_stops_at_the_first_bad_record(tmp_path):
    inputs = tmp_path / "in.jsonl"
    inputs.write_text(json.dumps(_paper("a")) + "\n{oops\n" + json.dumps(_paper("b")) + "\n")
    with pytest.raises(IngestError) as err:
        ingest([inputs], tmp_path / "out", strict=True, progress=False)
    assert err.value.rejection.reason == "malformed_json" and err.value.rejection.loc.line == 2
    assert str(err.value).startswith(f"{inputs}:2: malformed_json:")
    assert not (tmp_path / "out" / "manifest.json").exists()  # never looks like a finished corpus
    run = CliRunner().invoke(app, ["corpus", "ingest", str(inputs), "--out", str(tmp_path / "cli"), "--strict",
                                   "--no-progress"])
    assert run.exit_code == 2
    assert "malformed_json" in run.output and ":2:" in " ".join(run.output.split())


def test_cli_prints_the_balance_and_real_samples_ingest(shared_data, tmp_path):
    out = tmp_path / "samples"
    samples = [str(shared_data / "formats"), str(shared_data / "unarxive-sample")]  # the full-text samples
    run = CliRunner().invoke(app, ["corpus", "ingest", *samples, "--out", str(out), "--no-progress"])
    assert run.exit_code == 0, run.output
    match = re.search(r"read (\d+) = accepted (\d+) \+ rejected (\d+)", run.output)
    assert match and int(match.group(1)) == int(match.group(2)) + int(match.group(3))
    manifest = CorpusDir(out).manifest()
    assert manifest["accepted_by_format"] == {"jats": 3, "s2orc": 1, "science-parse": 2, "tei": 3, "unarxive": 49}
    # N18-3011 three times (TEI, S2ORC, PDF), SPECTER twice (TEI, PDF); the 2020 S2ORC record has no title
    assert manifest["rejected_by_reason"] == {"duplicate_id": 3, "missing_title": 1}
    assert manifest["pdf"]["files"] == 2 and manifest["pdf"]["reader"].startswith("offline")
    assert manifest["synthetic"] is False


def test_unarxive_sample_ingests_cleanly(shared_data, tmp_path):
    result = ingest([shared_data / "unarxive-sample"], tmp_path / "ux", progress=False)
    assert (result.read, result.accepted, result.rejected) == (49, 49, 0)
    papers = list(CorpusDir(tmp_path / "ux").iter_papers())
    assert len(papers) == 49 and all(p.sections and all(s.text for s in p.sections) for p in papers)
    for paper in papers:
        for text in (paper.title, paper.abstract, *(s.heading + s.text for s in paper.sections)):
            assert "{{formula:" not in text and "{{cite:" not in text


def test_same_input_same_output(tmp_path):
    path = tmp_path / "in.jsonl"
    write_jsonl([Paper.from_dict(_paper(f"p{i}")) for i in range(5)], path)
    first, second = tmp_path / "one", tmp_path / "two"
    ingest([path], first, progress=False)
    ingest([path], second, progress=False)
    for name in ("manifest.json", "rejects.jsonl", "ingest_report.md"):
        assert (first / name).read_text() == (second / name).read_text()
    assert pq.read_table(first / "papers.parquet").equals(pq.read_table(second / "papers.parquet"))


def test_usage_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="input not found"):
        ingest([tmp_path / "missing"], tmp_path / "out", progress=False)
    with pytest.raises(ValueError, match="unknown format"):
        ingest([tmp_path], tmp_path / "out", fmt="docx", progress=False)


def test_synthetic_corpus_back_matter_is_cut(tmp_path):
    from sciembed.synth import write_synthetic

    source = write_synthetic(tmp_path / "synth", 40, seed=3)
    result = ingest([source / "papers.jsonl.gz"], tmp_path / "corpus", progress=False)
    expected = json.loads((source / "synth_manifest.json").read_text())["counts"]
    assert (result.read, result.accepted, result.synthetic) == (40, 40, True)
    assert (result.sections, result.body_words) == (expected["body_sections"], expected["body_words"])
    assert result.flags["no_body"] == expected["no_body"]
    headings = {s.heading for p in CorpusDir(tmp_path / "corpus").iter_papers() for s in p.sections}
    assert not any(h.startswith(("Acknowledg", "References", "Appendix")) for h in headings)


def test_empty_files_are_listed_and_repeated_inputs_read_once(tmp_path):
    empty = tmp_path / "in" / "empty.jsonl"
    empty.parent.mkdir()
    empty.write_text("")
    one = tmp_path / "in" / "one.jsonl"
    one.write_text(json.dumps(_paper("solo")) + "\n")
    result = ingest([tmp_path / "in", one], tmp_path / "out", fmt="jsonl", progress=False)
    assert (result.read, result.accepted, result.rejected) == (1, 1, 0)  # no duplicate_id from reading twice
    assert {name: c.read for name, c in result.files.items()} == {str(empty): 0, str(one): 1}


def test_header_rule_s2full_reaches_ingest(tmp_path):
    """`ingest --header-rule s2full` applies the paper's rule (no sentence veto) to paragraphs without
    section names (an S2ORC 2019 record with "section": null); the default keeps the veto."""
    body = [{"text": t, "section": None} for t in
            ("What Is Machine Learning", "Learning from data is " + "a long running paragraph " * 10 + ".")]
    record = {"paper_id": "h1", "metadata": {"title": "Header rules", "abstract": "An abstract."},
              "grobid_parse": {"body_text": body}}
    src = tmp_path / "s2orc.jsonl"
    src.write_text(json.dumps(record) + "\n")
    headings = {}
    for rule in ("sciembed", "s2full"):
        out = tmp_path / rule
        run = CliRunner().invoke(app, ["corpus", "ingest", str(src), "--out", str(out), "--format", "s2orc",
                                       "--no-progress",
                                       "--header-rule", rule])
        assert run.exit_code == 0, run.output
        (paper,) = list(read_parquet(out / "papers.parquet"))
        headings[rule] = [s.heading for s in paper.sections]
        assert json.loads((out / "manifest.json").read_text())["header_rule"] == rule
    assert headings == {"sciembed": [""], "s2full": ["What Is Machine Learning"]}
    bad = CliRunner().invoke(app, ["corpus", "ingest", str(src), "--out", str(tmp_path / "x"), "--header-rule", "nope"])
    assert bad.exit_code == 2

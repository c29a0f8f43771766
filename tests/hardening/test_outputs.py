"""Regression tests for issue 15, defects 3 (edge CSV quotes) and 6 (atomic, locked, refusing outputs)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fakes.fuzzing.hostile import own_record, write_lines
from sciembed.cli.main import app
from sciembed.corpus.build import BuildError, build_corpus
from sciembed.corpus.config import FunnelConfig
from sciembed.corpus.layout import CorpusDir
from sciembed.ioutil.atomic import OutputError, output_lock, staged_dir
from sciembed.papers.ingest import ingest
from sciembed.synth import write_synthetic


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    root = tmp_path_factory.mktemp("synth")
    write_synthetic(root / "synth", 60, seed=3)
    ingest([root / "synth" / "papers.jsonl.gz"], root / "ingested", progress=False)
    return root


# -- 3: an unterminated quote costs its own line only --------------------------------------------------------------


def test_unterminated_quote_in_an_edge_csv_loses_no_line(ingested, tmp_path):
    ids = [p.id for p in CorpusDir(ingested / "ingested").iter_papers()]
    lines = ["citing_id,cited_id"] + [f"{ids[i]},{ids[i + 1]}" for i in range(40)]
    lines.insert(5, '"x,C')
    (tmp_path / "e.csv").write_text("\n".join(lines) + "\n")
    result = build_corpus(ingested / "ingested", tmp_path / "built", FunnelConfig(test_size=0.2, val_size=0),
                          [tmp_path / "e.csv"])
    (stat,) = result.edge_files
    assert (stat.lines, stat.accepted, stat.rejected) == (41, 40, {"malformed_line": 1})
    assert stat.examples == [f"{tmp_path / 'e.csv'}:6: malformed CSV line: unexpected end of data"]


def test_the_issue_reproduction_counts_every_edge_line(ingested, tmp_path):
    (tmp_path / "e.csv").write_text('citing_id,cited_id\nA,B\n"x,C\nD,E\nF,G\n')
    result = build_corpus(ingested / "ingested", tmp_path / "o", FunnelConfig(), [tmp_path / "e.csv"])
    assert (result.edge_files[0].lines, result.edge_files[0].accepted) == (4, 3)


# -- 6: atomic outputs, locks, refusals ----------------------------------------------------------------------------


def test_ingest_refuses_an_existing_corpus_and_overwrite_leaves_nothing_stale(ingested, tmp_path):
    src = write_lines(tmp_path / "a.jsonl", [own_record("a")])
    out = tmp_path / "corpus"
    ingest([src], out, progress=False)
    (out / "pairs.parquet").write_text("stale")
    run = CliRunner().invoke(app, ["corpus", "ingest", str(src), "--out", str(out), "--no-progress"])
    assert run.exit_code == 2 and "--overwrite" in run.output
    ingest([src], out, progress=False, overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == ["ingest_report.md", "manifest.json", "papers.parquet",
                                                      "rejects.jsonl"]
    assert not list(tmp_path.glob(".corpus.partial-*"))


def test_a_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path):
    src = write_lines(tmp_path / "a.jsonl", [own_record("a")])
    out = tmp_path / "corpus"
    with output_lock(out):
        with pytest.raises(OutputError, match="another sciembed run"):
            ingest([src], out, progress=False)
        run = CliRunner().invoke(app, ["corpus", "ingest", str(src), "--out", str(out), "--no-progress"])
        # the message may wrap at the terminal width (long temp paths): compare with whitespace joined
        assert run.exit_code == 2 and "another sciembed run" in " ".join(run.output.split())
    assert not out.exists()
    ingest([src], out, progress=False)  # the lock is free again
    assert (out / "manifest.json").exists()


def test_a_failed_run_leaves_the_previous_output(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "manifest.json").write_text("{}")
    with pytest.raises(RuntimeError), staged_dir(out, overwrite=True) as stage:
        (stage / "manifest.json").write_text('{"new": 1}')
        raise RuntimeError("killed halfway")
    assert (out / "manifest.json").read_text() == "{}" and len(list(tmp_path.iterdir())) == 2  # o + its lock


def test_overwrite_never_replaces_a_directory_sciembed_did_not_write(tmp_path):
    out = tmp_path / "home"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    with pytest.raises(OutputError, match=r"no manifest\.json"):
        ingest([write_lines(tmp_path / "a.jsonl", [own_record("a")])], out, progress=False, overwrite=True)
    assert (out / "thesis.tex").exists()


def test_a_symlinked_rejects_file_is_not_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    out = tmp_path / "corpus"
    out.mkdir()
    (out / "manifest.json").write_text("{}")
    (out / "rejects.jsonl").symlink_to(victim)
    ingest([write_lines(tmp_path / "a.jsonl", ["{bad", own_record("a")])], out, progress=False, overwrite=True)
    assert victim.read_text() == "keep me" and not (out / "rejects.jsonl").is_symlink()


def test_corpus_build_refuses_an_unfinished_ingest(ingested, tmp_path):
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    (unfinished / "papers.parquet").write_bytes((ingested / "ingested" / "papers.parquet").read_bytes())
    with pytest.raises(BuildError, match="never finished"):
        build_corpus(unfinished, tmp_path / "built", FunnelConfig())
    run = CliRunner().invoke(app, ["corpus", "build", str(unfinished), "-o", str(tmp_path / "b2")])
    assert run.exit_code == 2 and "never finished" in " ".join(run.output.split())
    assert not (tmp_path / "built").exists()


def test_corpus_build_output_appears_whole(ingested, tmp_path):
    out = tmp_path / "built"
    build_corpus(ingested / "ingested", out, FunnelConfig(test_size=0.2, val_size=0.1))
    assert json.loads((out / "manifest.json").read_text())["kind"] == "built"
    # 60 papers: the test zone covers the graph, so val is empty: a warning, not an error
    assert "warning: the val split has no anchor query (0 papers)" in (out / "funnel.md").read_text()
    assert not (out / ".duckdb_tmp").exists() and not list(tmp_path.glob(".built.*-*"))

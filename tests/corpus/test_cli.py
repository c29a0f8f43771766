"""`sciembed corpus build` / `show` end to end through the real typer app."""

from __future__ import annotations

from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.corpus.layout import CorpusDir

runner = CliRunner()


def test_build_with_yaml_and_flags_then_show(paper, write_corpus, write_csv, tmp_path):
    corpus = write_corpus([paper(f"p{i}") for i in range(8)] + [paper("nv", venue=None)])
    edges = write_csv([(f"p{i}", f"p{(i + 1) % 8}") for i in range(8)] + [("p0", "nv"), "p1,p2,p3"])
    config = tmp_path / "funnel.yaml"
    config.write_text("max_degree: 1\nseed: 3\ntest_size: 3\nval_size: 0\n")
    out = tmp_path / "built"
    result = runner.invoke(app, ["corpus", "build", str(corpus), "--out", str(out), "--edges", str(edges),
                                 "--config", str(config), "--set", "max_degree=5"])  # with the progress bar
    assert result.exit_code == 0, result.output
    assert "Corpus funnel" in result.output and "missing_venue 1" in result.output
    assert f"{edges}:11: TOO MANY COLUMNS" in result.output
    manifest = CorpusDir(out).manifest()
    assert manifest["config"]["max_degree"] == 5 and manifest["seed"] == 3  # the flag overrides, the YAML stays
    assert len(CorpusDir(out).split_ids("test")) == 3

    shown = runner.invoke(app, ["corpus", "show", str(out)])
    assert shown.exit_code == 0 and "Splits" in shown.output


def test_errors_exit_2_with_a_message(paper, write_corpus, tmp_path):
    corpus = write_corpus([paper("a")])
    result = runner.invoke(app, ["corpus", "build", str(corpus), "--out", str(tmp_path / "o"), "--test-size", "x"])
    assert result.exit_code == 2 and "expected a fraction like 0.1" in result.output
    result = runner.invoke(app, ["corpus", "build", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "missing papers.parquet" in result.output
    result = runner.invoke(app, ["corpus", "show", str(corpus)])
    assert result.exit_code == 2 and "not a built corpus" in result.output


def test_a_build_that_empties_exits_2_naming_the_stage(paper, write_corpus, write_csv, tmp_path):
    corpus = write_corpus([paper(f"p{i}", body_chars=500) for i in range(6)])  # every body under 3,000 chars
    edges = write_csv([(f"p{i}", f"p{i + 1}") for i in range(5)])
    out = tmp_path / "built"
    result = runner.invoke(app, ["corpus", "build", str(corpus), "--out", str(out), "--edges", str(edges),
                                 "--no-progress"])
    assert result.exit_code == 2, result.output
    assert "funnel stage 6 (Text quality (≥ 3,000 chars, ≥ 2 sections)) left no paper" in result.output
    assert "short_body 6" in result.output and "--set text_filter=false" in result.output
    assert not out.exists()
    # the funnel keeps papers but the splits leave train without a pair: exit 2 as well
    result = runner.invoke(app, ["corpus", "build", str(corpus), "--out", str(out), "--edges", str(edges),
                                 "--no-progress", "--set", "text_filter=false", "--test-size", "6", "--val-size", "0"])
    assert result.exit_code == 2 and "train has no citation pair left to train on" in result.output
    assert not out.exists()

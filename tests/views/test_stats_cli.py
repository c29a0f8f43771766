import json

from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper, Section, SectionRole
from sciembed.views.stats import length_stats

runner = CliRunner()


def _corpus(tmp_path):
    papers = [
        Paper(
            id="a",
            title="Alpha",
            abstract="About alpha.",
            sections=(
                Section("1 Introduction", "w " * 100, SectionRole.INTRODUCTION),
                Section("2 Method", "w " * 400, SectionRole.METHOD),
            ),
        ),
        Paper(id="b", title="Beta only TA", abstract="x", flags=("no_body",)),
    ]
    write_parquet(papers, tmp_path / "papers.parquet")
    (tmp_path / "manifest.json").write_text(json.dumps({"synthetic": False}))
    return tmp_path


def test_length_stats_by_hand():
    papers = [
        Paper(id="a", title="A", sections=(Section("1 Intro", "w " * 100), Section("2 Method", "w " * 400))),
    ]
    stats = length_stats(papers, target_words=358)
    assert stats.sections_per_paper.tolist() == [2]
    assert stats.words_per_section.tolist() == [100, 400]
    # window at section 0: 2 heading words + 100 + 2 + 400 = 504 words ahead -> full 358;
    # window at section 1: 402 words ahead -> full 358
    assert stats.words_per_window.tolist() == [358, 358]
    assert stats.window_full_share == 1.0
    short = length_stats(papers, target_words=500)
    assert short.words_per_window.tolist() == [500, 402]
    assert short.window_full_share == 0.5


def test_stats_cli_writes_json_and_png(tmp_path):
    corpus = _corpus(tmp_path)
    result = runner.invoke(app, ["corpus", "stats", str(corpus)])
    assert result.exit_code == 0, result.output
    assert "words per window" in result.output
    stats = json.loads((corpus / "stats.json").read_text())
    assert stats["papers"] == 2 and stats["papers_with_body"] == 1
    assert (corpus / "lengths.png").stat().st_size > 1000


def test_inspect_cli_shows_roles_and_views(tmp_path):
    corpus = _corpus(tmp_path)
    result = runner.invoke(app, ["corpus", "inspect", str(corpus), "--paper", "a"])
    assert result.exit_code == 0, result.output
    assert "introduction" in result.output and "method" in result.output
    assert "window" in result.output and "chunks" in result.output
    ta_only = runner.invoke(app, ["corpus", "inspect", str(corpus), "--paper", "b"])
    assert "TA-only" in ta_only.output
    missing = runner.invoke(app, ["corpus", "inspect", str(corpus), "--paper", "zzz"])
    assert missing.exit_code == 2 and "no paper 'zzz' in" in missing.output

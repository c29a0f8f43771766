"""Nouns group the commands; every old top-level spelling is a hidden command that runs the new one (issue 25)."""

from __future__ import annotations

import typer.main
from typer.testing import CliRunner

from sciembed.cli.groups import MOVED
from sciembed.cli.main import app

ROOT = typer.main.get_command(app)


def _command(path: str):
    command = ROOT
    for name in path.split():
        command = command.commands[name]
    return command


def test_nouns_hold_their_commands_and_old_spellings_are_hidden() -> None:
    assert set(ROOT.commands["corpus"].commands) >= {"ingest", "build", "stats", "inspect"}
    assert set(ROOT.commands["index"].commands) == {"build", "search", "serve", "compact"}
    assert set(ROOT.commands["eval"].commands) == {"run", "compare", "suite"}
    for old, new in MOVED.items():
        alias, target = ROOT.commands[old], _command(new)
        assert alias.hidden and not target.hidden
        assert [p.name for p in alias.params] == [p.name for p in target.params], old  # the same options
    shown = CliRunner().invoke(app, ["--help"]).output
    assert "│ corpus" in shown and "│ ingest" not in shown and "│ bench" not in shown


def test_old_spellings_print_the_new_one(tmp_path) -> None:
    for args, note in ((["index", str(tmp_path / "none"), "--model", "bm25", "-o", str(tmp_path / "ix")],
                        "use `sciembed index build"),
                       (["eval", "--kind", "beir", str(tmp_path / "none"), "-m", "bm25", "-o", str(tmp_path / "e")],
                        "use `sciembed eval run --kind"),
                       (["stats", str(tmp_path / "none")], "use `sciembed corpus stats`")):
        run = CliRunner().invoke(app, args)
        assert run.exit_code == 2 and note in " ".join(run.output.split()), run.output  # then the input error

"""Nouns group the commands; there are no hidden aliases: old top-level spellings and groups run without a
subcommand are usage errors (issue 34: the version they were kept for was never released)."""

from __future__ import annotations

import typer.main
from typer.testing import CliRunner

from sciembed.cli.main import app

ROOT = typer.main.get_command(app)
OLD_TOP_LEVEL = ("ingest", "stats", "inspect", "search", "serve", "compact", "compare", "bench")


def _hidden(command) -> list[str]:
    """Every hidden command or option under `command`, as a path."""
    found = [f"option {o}" for p in command.params if getattr(p, "hidden", False) for o in p.opts]
    for name, sub in getattr(command, "commands", {}).items():
        found += [f"command {name}"] if sub.hidden else [f"{name}: {h}" for h in _hidden(sub)]
    return found


def test_nouns_hold_their_commands_and_nothing_is_hidden() -> None:
    assert set(ROOT.commands["corpus"].commands) >= {"ingest", "build", "stats", "inspect"}
    assert set(ROOT.commands["index"].commands) == {"build", "search", "serve", "compact"}
    assert set(ROOT.commands["eval"].commands) == {"run", "compare", "suite", "s2and-inputs"}
    assert not set(OLD_TOP_LEVEL) & set(ROOT.commands)
    assert _hidden(ROOT) == []


def test_old_spellings_are_usage_errors(tmp_path) -> None:
    for args in (["index", str(tmp_path / "none"), "--model", "bm25", "-o", str(tmp_path / "ix")],
                 ["eval", "--kind", "beir", str(tmp_path / "none"), "-m", "bm25", "-o", str(tmp_path / "e")],
                 ["stats", str(tmp_path / "none")]):
        run = CliRunner().invoke(app, args)
        assert run.exit_code == 2 and "deprecated" not in run.output, run.output

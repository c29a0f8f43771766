"""The `sciembed` command: one typer app, each stage registers its commands.

The script registers only the module of the command it runs when `COMMANDS` names it (so `index search
--server URL` starts without the index and model code; ``--version`` registers none); anything else
(``--help``, an unknown name) builds the whole tree, as `app` does for the tests.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from importlib import import_module

import typer

from sciembed.cli.errors import GuardedTyper
from sciembed.cli.groups import NOUNS

# registration order: the order of the commands in --help
MODULES = ("synth", "ingest", "inspect", "corpus", "encode", "evaluate", "index_build", "search", "train", "model",
           "demo", "beir", "study", "bench", "prism", "summaries", "serve", "s2and")
# the leading words of a command line -> the one module (of sciembed.cli) that registers that command
COMMANDS: dict[tuple[str, ...], str] = {("corpus", "ingest"): "ingest", ("corpus", "inspect"): "inspect",
                                        ("corpus", "stats"): "inspect", ("corpus", "build"): "corpus",
                                        ("corpus", "show"): "corpus", ("index", "build"): "index_build",
                                        ("index", "search"): "search", ("index", "serve"): "serve",
                                        ("index", "compact"): "serve", ("eval", "run"): "evaluate",
                                        ("eval", "compare"): "evaluate", ("eval", "suite"): "bench",
                                        ("eval", "s2and-inputs"): "s2and", ("synth",): "synth", ("encode",): "encode",
                                        ("demo",): "demo", ("train",): "train", ("model",): "model", ("beir",): "beir",
                                        ("study",): "study", ("prism",): "prism", ("summaries",): "summaries", }
LOG_COLUMNS = 200  # rich's width when no terminal is attached (it would wrap every table at 80)
_whole: GuardedTyper | None = None


def _show_version(value: bool) -> None:
    if value:
        from sciembed import __version__

        typer.echo(f"sciembed {__version__}")
        raise typer.Exit()


def _root(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_show_version,
                                 help="Print sciembed's version and exit."),
) -> None:
    """Full-text scientific paper embeddings and paper-to-paper retrieval."""


def build(modules: Iterable[str]) -> GuardedTyper:
    """The root app with the commands of `modules` (names of sciembed.cli modules) registered."""
    root = GuardedTyper(name="sciembed", help="Full-text scientific paper embeddings and paper-to-paper retrieval.",
                        no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
    root.callback()(_root)
    for noun in NOUNS:  # corpus, index, eval first in --help; their commands are registered by the modules
        noun.registered_commands.clear()  # a second build in one process registers them afresh, in order
        root.add_typer(noun)
    for name in modules:
        import_module(f"sciembed.cli.{name}").register(root)
    return root


def module_for(args: Sequence[str]) -> str | None:
    """The module registering the command that `args` (the command line after `sciembed`) runs; None: any."""
    return COMMANDS.get(tuple(args[:2])) or COMMANDS.get(tuple(args[:1]))


def command_app(args: Sequence[str]) -> GuardedTyper:
    """The app that runs the command line `args`: that command alone when `COMMANDS` names it (no command for
    ``--version``), else all."""
    if _whole is not None:
        return _whole
    if list(args[:1]) == ["--version"]:  # eager: it prints and exits before any command is looked up
        return build(())
    name = module_for(args)
    return build([name]) if name is not None else whole()


def whole() -> GuardedTyper:
    """The app with every command (built once)."""
    global _whole
    if _whole is None:
        _whole = build(MODULES)
    return _whole


def __getattr__(name: str) -> GuardedTyper:
    if name == "app":  # `from sciembed.cli.main import app`: the whole tree, built on first use
        return whole()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def wide_when_detached() -> None:
    """Tables and messages written to a log with no terminal attached keep their rows whole."""
    if "COLUMNS" in os.environ:
        return
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        try:
            if stream is not None and os.isatty(stream.fileno()):
                return  # rich takes the terminal's width
        except (AttributeError, OSError, ValueError):
            continue
    os.environ["COLUMNS"] = str(LOG_COLUMNS)


def main() -> None:
    """The `sciembed` console script."""
    wide_when_detached()
    command_app(sys.argv[1:])()


if __name__ == "__main__":
    main()

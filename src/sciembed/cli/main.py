"""The `sciembed` command: one typer app, each stage registers its commands."""

from __future__ import annotations

import os
import sys

import typer

from sciembed.cli import (
    beir,
    bench,
    corpus,
    demo,
    encode,
    evaluate,
    index_build,
    ingest,
    inspect,
    model,
    prism,
    s2and,
    search,
    serve,
    study,
    summaries,
    synth,
    train,
)
from sciembed.cli.errors import GuardedTyper
from sciembed.cli.groups import NOUNS

app = GuardedTyper(
    name="sciembed",
    help="Full-text scientific paper embeddings and paper-to-paper retrieval.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

def _show_version(value: bool) -> None:
    if value:
        from sciembed import __version__

        typer.echo(f"sciembed {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_show_version,
                                 help="Print sciembed's version and exit."),
) -> None:
    """Full-text scientific paper embeddings and paper-to-paper retrieval."""


for noun in NOUNS:  # corpus, index, eval first in --help; their commands are registered by the modules below
    app.add_typer(noun)
for module in (synth, ingest, inspect, corpus, encode, evaluate, index_build, search, train, model, demo, beir, study,
               bench, prism, summaries, serve, s2and):
    module.register(app)

LOG_COLUMNS = 200  # rich's width when no terminal is attached (it would wrap every table at 80)


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
    app()


if __name__ == "__main__":
    main()

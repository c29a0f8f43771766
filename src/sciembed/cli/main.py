"""The `sciembed` command: one typer app, each stage registers its commands."""

from __future__ import annotations

import typer

from sciembed.cli import beir, corpus, demo, evaluate, ingest, inspect, prism, search, synth, train

app = typer.Typer(
    name="sciembed",
    help="Full-text scientific paper embeddings and paper-to-paper retrieval.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (synth, ingest, inspect, corpus, evaluate, search, train, demo, beir, prism):
    module.register(app)


if __name__ == "__main__":
    app()

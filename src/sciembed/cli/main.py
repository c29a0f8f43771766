"""The `sciembed` command: one typer app, each stage registers its commands."""

from __future__ import annotations

import typer

from sciembed.cli import corpus, demo, evaluate, ingest, inspect, search, serve, synth, train

app = typer.Typer(
    name="sciembed",
    help="Full-text scientific paper embeddings and paper-to-paper retrieval.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (synth, ingest, inspect, corpus, evaluate, search, serve, train, demo):
    module.register(app)


if __name__ == "__main__":
    app()

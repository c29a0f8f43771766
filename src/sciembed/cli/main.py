"""The `sciembed` command: one typer app, each stage registers its commands."""

from __future__ import annotations

from sciembed.cli import (
    beir,
    bench,
    corpus,
    demo,
    evaluate,
    ingest,
    inspect,
    prism,
    search,
    serve,
    study,
    summaries,
    synth,
    train,
)
from sciembed.cli.errors import GuardedTyper

app = GuardedTyper(
    name="sciembed",
    help="Full-text scientific paper embeddings and paper-to-paper retrieval.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (synth, ingest, inspect, corpus, evaluate, search, train, demo, beir, study, bench, prism, summaries,
               serve):
    module.register(app)


if __name__ == "__main__":
    app()

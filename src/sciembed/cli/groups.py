"""Commands grouped by noun: ``sciembed corpus|index|eval …``; a group given no subcommand shows its help."""

from __future__ import annotations

import typer


def noun_group(name: str, help: str) -> typer.Typer:
    """A typer sub-app for one noun."""
    return typer.Typer(name=name, help=help, no_args_is_help=True)


corpus_app = noun_group("corpus", "Papers on disk: ingest files, build the citation corpus (funnel, splits), "
                        "stats and inspect.")
index_app = noun_group("index", "Search indexes: build one from a corpus or vectors, search, serve, compact.")
eval_app = noun_group("eval", "Evaluate models: one benchmark (run), a suite of many (suite), two runs (compare).")
NOUNS = (corpus_app, index_app, eval_app)

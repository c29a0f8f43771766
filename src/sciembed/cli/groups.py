"""Commands grouped by noun, and today's top-level spellings kept for a release as hidden aliases.

    sciembed corpus {ingest, build, stats, inspect, show}
    sciembed index  {build, search, serve, compact}
    sciembed eval   {run, compare, suite}

`sciembed ingest …` still runs `sciembed corpus ingest …` (hidden from
``--help``, printing where the command is now); so do `stats`, `inspect`,
`search`, `serve`, `compact`, `compare` and `bench`. Two old spellings were a
command where a group now is: `sciembed index CORPUS …` and `sciembed eval
--kind …` — a group whose first argument is not one of its subcommands runs
its default subcommand (`index build`, `eval run`) with the same note.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperGroup

from sciembed.cli.deprecation import note

# old top-level spelling -> the new one (the deprecation table the docs show)
MOVED = {
    "ingest": "corpus ingest",
    "stats": "corpus stats",
    "inspect": "corpus inspect",
    "search": "index search",
    "serve": "index serve",
    "compact": "index compact",
    "compare": "eval compare",
    "bench": "eval suite",
}


class DefaultingGroup(TyperGroup):
    """A group that runs `default_command` when its first argument is none of its subcommands (the old spelling)."""

    default_command = ""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        help_names = set(ctx.help_option_names)
        if args and args[0] not in self.commands and args[0] not in help_names:
            note(f"sciembed {self.name} {args[0]} …", f"sciembed {self.name} {self.default_command} {args[0]} …")
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)


def noun_group(name: str, help: str, default: str | None = None) -> typer.Typer:
    """A typer sub-app for one noun; with `default`, the old single-command spelling still runs it."""
    cls = TyperGroup if default is None else type(f"{name.title()}Group", (DefaultingGroup,),
                                                   {"default_command": default})
    return typer.Typer(name=name, help=help, no_args_is_help=True, cls=cls)


corpus_app = noun_group("corpus", "Papers on disk: ingest files, build the citation corpus (funnel, splits), "
                        "stats and inspect.")
index_app = noun_group("index", "Search indexes: build one from a corpus or vectors, search, serve, compact.",
                       default="build")
eval_app = noun_group("eval", "Evaluate models: one benchmark (run), a suite of many (suite), two runs (compare).",
                      default="run")
NOUNS = (corpus_app, index_app, eval_app)


def alias(app: typer.Typer, old: str, func: Callable[..., Any], **command_kwargs: Any) -> None:
    """Register `func` as the hidden top-level command `old`, printing its new spelling (`MOVED`) when used."""
    new = MOVED[old]

    @functools.wraps(func)
    def moved(*args: Any, **kwargs: Any) -> Any:
        note(f"sciembed {old}", f"sciembed {new}")
        return func(*args, **kwargs)

    app.command(old, hidden=True, **command_kwargs)(moved)

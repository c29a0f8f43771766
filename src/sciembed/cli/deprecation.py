"""Whether an option was given on the command line (not left at its default)."""

from __future__ import annotations

import typer


def was_given(ctx: typer.Context, name: str) -> bool:
    """Whether parameter `name` was set on the command line (not left at its default).

    Compared by name: typer vendors its own click, whose `ParameterSource` is not click's.
    """
    source = ctx.get_parameter_source(name)
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT", "PROMPT")

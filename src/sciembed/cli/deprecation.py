"""Old option spellings kept for a release: they still work and say what replaced them."""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console


def was_given(ctx: typer.Context, name: str) -> bool:
    """Whether parameter `name` was set on the command line (not left at its default).

    Compared by name: typer vendors its own click, whose `ParameterSource` is not click's.
    """
    source = ctx.get_parameter_source(name)
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT", "PROMPT")


def note(old: str, new: str) -> None:
    Console(stderr=True, soft_wrap=True).print(f"note: `{old}` is deprecated; use `{new}`", highlight=False)


def renamed(ctx: typer.Context, old: str, new: str, old_value: Any, new_value: Any) -> Any:
    """`new_value`, or `old_value` (with a note naming `new`) when only the old option was given."""
    if not was_given(ctx, old):
        return new_value
    note(f"--{old.replace('_', '-')}", new)
    return old_value

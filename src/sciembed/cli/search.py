"""CLI commands of this stage (filled in by the stage's owner)."""

import typer


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the app."""

"""`sciembed model push`: publish a trained model (its saved directory) to the Hugging Face Hub."""

from __future__ import annotations

from pathlib import Path

import typer

from sciembed.cli.errors import failing

model_app = typer.Typer(name="model", help="Trained models: publish one to the Hugging Face Hub.", no_args_is_help=True)

PRIVATE = typer.Option(False, "--private", help="Create the repository private (an existing one keeps its setting).")


def push_and_report(model: Path, repo_id: str, private: bool, message: str | None = None) -> None:
    """Push, print the commit URL; a refusal or hub error prints one line and exits 2."""
    from rich.console import Console

    from sciembed.models.push import PushError, push_model

    with failing(PushError):
        url = push_model(model, repo_id, private=private, commit_message=message)
    Console(soft_wrap=True).print(f"pushed {model} to https://huggingface.co/{repo_id}: {url}", highlight=False)


def push(model: Path = typer.Argument(..., help="A saved model directory or a training run directory (its model/)."),
         repo_id: str = typer.Argument(..., help="Hub repository, owner/name (created if missing)."),
         private: bool = PRIVATE,
         message: str | None = typer.Option(None, "--message", help="Commit message (default: names the model)."),
         ) -> None:
    """Upload a trained model to the hub with its model card (the token: HF_TOKEN or `huggingface-cli login`)."""
    push_and_report(model, repo_id, private, message)


def register(app: typer.Typer) -> None:
    """Add `sciembed model push`."""
    model_app.command("push")(push)
    app.add_typer(model_app)

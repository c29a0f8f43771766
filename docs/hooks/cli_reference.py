"""mkdocs hook: the CLI reference page is generated from the click tree (`sciembed --help` of every command).

A page containing the marker ``<!-- cli-reference -->`` gets it replaced by one
section per command: its help text and its options (hidden deprecated aliases left out).
"""

from __future__ import annotations

from typing import Any

MARKER = "<!-- cli-reference -->"


def _leaves(command: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    children = getattr(command, "commands", None)
    if not children:
        return [(path, command)]
    return [leaf for name, sub in sorted(children.items()) for leaf in _leaves(sub, (*path, name))]


def _option_row(param: Any) -> str | None:
    if getattr(param, "hidden", False):
        return None
    names = ", ".join(f"`{o}`" for o in (*param.opts, *getattr(param, "secondary_opts", [])))
    kind = "argument" if param.param_type_name == "argument" else "option"
    help_text = (getattr(param, "help", None) or "").replace("|", "\\|").replace("\n", " ")
    default = param.default if not callable(param.default) else None
    shown = f" (default: `{default}`)" if default not in (None, False, (), []) and kind == "option" else ""
    return f"| {names} | {kind} | {help_text}{shown} |"


def reference() -> str:
    import typer.main

    from sciembed.cli.main import app

    root = typer.main.get_command(app)
    out = []
    for path, command in _leaves(root):
        if getattr(command, "hidden", False):
            continue
        out += [f"## `sciembed {' '.join(path)}`", "", (command.help or "").strip(), ""]
        rows = [r for r in (_option_row(p) for p in command.params) if r]
        if rows:
            out += ["| name | kind | meaning |", "|---|---|---|", *rows, ""]
    return "\n".join(out)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return markdown.replace(MARKER, reference()) if MARKER in markdown else markdown

"""Count the `sciembed` CLI's commands and distinct flags by walking the click tree.

    python benchmarks/cli_flags.py [--label after] [--out benchmarks/results/cli_flags.json]

Visible flags are those `--help` shows; hidden ones are the deprecated aliases
kept for a release. The JSON keeps one entry per label, so a "before" count
taken on an older checkout and an "after" count sit side by side.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def walk(command: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """(path, click command) for every leaf command under `command`."""
    children = getattr(command, "commands", None)
    if not children:
        return [(path, command)]
    return [leaf for name, sub in sorted(children.items()) for leaf in walk(sub, (*path, name))]


def count(app: Any) -> dict[str, Any]:
    import typer.main

    root = typer.main.get_command(app)
    leaves = walk(root)
    visible: set[str] = set()
    primary: set[str] = set()  # one name per option: its first long flag (``--geometry``, not ``--no-geometry``)
    hidden: set[str] = set()
    per_command: dict[str, int] = {}
    commands = 0
    for path, command in leaves:
        if getattr(command, "hidden", False):
            continue
        commands += 1
        flags = set()
        for param in command.params:
            names = [o for o in (*getattr(param, "opts", []), *getattr(param, "secondary_opts", []))
                     if o.startswith("-")]
            (hidden if getattr(param, "hidden", False) else flags).update(names)
            longs = [o for o in getattr(param, "opts", []) if o.startswith("--")]
            if longs and not getattr(param, "hidden", False):
                primary.add(longs[0])
        visible |= flags
        per_command[" ".join(path)] = len(flags)
    long_flags = sorted(f for f in visible if f.startswith("--"))
    return {"commands": commands, "distinct_flags": len(visible), "distinct_long_flags": len(long_flags),
            "distinct_options": len(primary),
            "hidden_alias_flags": len(hidden - visible), "per_command": per_command, "flags": sorted(visible)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="current")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/cli_flags.json"))
    args = parser.parse_args()
    from sciembed.cli.main import app

    result = count(app)
    data = json.loads(args.out.read_text()) if args.out.is_file() else {}
    data[args.label] = result
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{args.label}: {result['commands']} commands, {result['distinct_flags']} distinct flags "
          f"({result['distinct_long_flags']} long, {result['distinct_options']} options), "
          f"{result['hidden_alias_flags']} hidden aliases")


if __name__ == "__main__":
    main()

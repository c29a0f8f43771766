"""Count the `sciembed` CLI's commands and distinct flags by walking the click tree.

    python benchmarks/cli_flags.py [--label after] [--out benchmarks/results/cli_flags.json]

Visible flags are those `--help` shows; hidden ones are the deprecated aliases
kept for a release. The JSON keeps one entry per label, so a "before" count
taken on an older checkout and an "after" count sit side by side.

`vocabulary` describes the shared options (`-o/--out`, `-m/--model`, …) across
every visible command: how many commands spell each, in how many different
ways (flags, value type, minimum), and how many take it from a type in
`sciembed/cli/options.py` rather than spelling it inline.
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


VOCABULARY = ("--out", "--model", "--config", "--cache-dir", "--batch-size", "--seed", "--overwrite")


def _shared_types() -> set[tuple[frozenset[str], str | None]]:
    """(flags, help) of every Annotated option type in `sciembed.cli.options` (empty before that module existed)."""
    import typing

    try:
        from sciembed.cli import options
    except ImportError:
        return set()
    found = set()
    for value in vars(options).values():
        if typing.get_origin(value) is typing.Annotated:
            info = typing.get_args(value)[1]
            decls = [*([info.default] if isinstance(info.default, str) and info.default.startswith("-") else []),
                     *info.param_decls]
            found.add((frozenset(decls), info.help))
    return found


def vocabulary(leaves: list[tuple[tuple[str, ...], Any]]) -> dict[str, dict[str, int]]:
    """Per shared flag: visible commands using it, distinct (flags, type, min) spellings, uses from cli/options.py."""
    shared = _shared_types()
    result = {}
    for flag in VOCABULARY:
        params = [p for _, command in leaves if not getattr(command, "hidden", False) for p in command.params
                  if flag in getattr(p, "opts", [])]
        descriptor = [getattr(p, "type_descriptor", None) for p in params]
        spellings = {(tuple(sorted(p.opts)), str(getattr(d, "annotation", None)), getattr(p, "min", None))
                     for p, d in zip(params, descriptor, strict=True)}
        shared_uses = sum((frozenset(p.opts), getattr(getattr(d, "parameter_info", None), "help", None)) in shared
                          for p, d in zip(params, descriptor, strict=True))
        result[flag] = {"commands": len(params), "spellings": len(spellings), "from_options_py": shared_uses}
    return result


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
            "hidden_alias_flags": len(hidden - visible), "vocabulary": vocabulary(leaves),
            "per_command": per_command, "flags": sorted(visible)}


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
    for flag, v in result["vocabulary"].items():
        print(f"  {flag}: {v['commands']} commands, {v['spellings']} spelling(s), "
              f"{v['from_options_py']} from cli/options.py")


if __name__ == "__main__":
    main()

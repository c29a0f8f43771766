"""One CLI vocabulary (issue 25): -o/--out, -m/--model, -c/--config, --cache-dir, --batch-size, --seed and
--overwrite mean the same in every command, and every command takes them from `sciembed.cli.options`."""

from __future__ import annotations

import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from sciembed.cli import options
from sciembed.cli.main import app

ROOT = typer.main.get_command(app)
VOCABULARY = ("--out", "--model", "--config", "--cache-dir", "--batch-size", "--seed", "--overwrite")


def leaves(command: Any = ROOT, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(path, command) for every leaf command, hidden aliases included."""
    children = getattr(command, "commands", None)
    if not children:
        yield path, command
        return
    for name, sub in sorted(children.items()):
        yield from leaves(sub, (*path, name))


def uses(flag: str) -> list[tuple[str, Any]]:
    """('command path', option) for every option spelled `flag`."""
    found = [(" ".join(path), p) for path, command in leaves() for p in command.params
             if p.param_type_name == "option" and flag in p.opts]
    assert found, flag
    return found


def value_type(param: Any) -> Any:
    """The option's value type with `| None` and `list[...]` taken off (``int`` for ``int | None``)."""
    annotation = param.type_descriptor.annotation
    if typing.get_origin(annotation) is list:
        (annotation,) = typing.get_args(annotation)
    return annotation


def shared_types() -> set[tuple[frozenset[str], str | None]]:
    """(flags, help) of every Annotated option type `cli/options.py` defines."""
    found = set()
    for value in vars(options).values():
        if typing.get_origin(value) is not typing.Annotated:
            continue
        info = typing.get_args(value)[1]
        decls = list(info.param_decls)
        if isinstance(info.default, str) and info.default.startswith("-"):  # typer.Option("--out", "-o") in Annotated
            decls.insert(0, info.default)
        found.add((frozenset(decls), info.help))
    return found


@pytest.mark.parametrize(("flag", "short", "kind"), [("--out", "-o", Path), ("--model", "-m", str),
                                                      ("--config", "-c", Path)])
def test_every_out_model_and_config_has_its_short_flag_and_kind(flag: str, short: str, kind: type) -> None:
    for command, param in uses(flag):
        assert sorted(param.opts) == sorted([flag, short]), (command, param.opts)
        assert value_type(param) is kind, (command, flag, value_type(param))


def test_seed_is_an_int_and_batch_size_a_positive_int_everywhere() -> None:
    for command, param in uses("--seed"):
        assert value_type(param) is int, (command, value_type(param))
    for command, param in uses("--batch-size"):
        assert value_type(param) is int and param.min == 1, (command, value_type(param), param.min)
    for flag in ("--cache-dir", "--overwrite"):
        for command, param in uses(flag):
            assert value_type(param) is (Path if flag == "--cache-dir" else bool), (command, flag)


def test_every_vocabulary_option_is_a_shared_type_from_cli_options() -> None:
    shared = shared_types()
    inline = [f"{command} {flag}" for flag in VOCABULARY for command, param in uses(flag)
              if (frozenset(param.opts), param.type_descriptor.parameter_info.help) not in shared]
    assert not inline, f"spelled inline instead of with a type from sciembed.cli.options: {inline}"


def test_batch_size_zero_and_a_non_integer_seed_are_usage_errors_in_every_command() -> None:
    runner = CliRunner()
    for flag, bad in (("--batch-size", "0"), ("--seed", "x")):
        for command, _ in uses(flag):
            run = runner.invoke(app, [*command.split(), flag, bad])
            assert run.exit_code == 2 and flag in run.output, (command, flag, run.output[-300:])


def test_the_flag_count_benchmark_sees_one_spelling_per_shared_option() -> None:
    """benchmarks/cli_flags.py's `vocabulary` entry: every use of a shared flag comes from cli/options.py."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "cli_flags.py"
    spec = importlib.util.spec_from_file_location("cli_flags", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = module.count(app)["vocabulary"]
    assert set(found) == set(VOCABULARY)
    for flag, v in found.items():
        assert v["commands"] and v["from_options_py"] == v["commands"], (flag, v)
        assert v["spellings"] == (2 if flag == "--model" else 1), (flag, v)  # --model: one value, or repeatable

"""Option groups: options several commands share, declared once and handed to each command as one object.

A command names the group by one parameter (``encoder: EncoderOptions = EncoderOptions()``) and is decorated
with `option_group`; typer sees the group's options in that parameter's place, and the command receives the
object they build.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from sciembed.llm.cli_options import llm_option_types, llm_options_of

F = TypeVar("F", bound=Callable[..., Any])


def option_group(name: str, build: Callable[..., Any], options: dict[str, tuple[Any, Any]]) -> Callable[[F], F]:
    """Decorator: the command's parameter `name` becomes `options` (parameter -> (``Annotated`` type, default))
    on the command line, in its place; the command is called with ``name=build(**their values)``."""

    def wrap(func: F) -> F:
        signature = inspect.signature(func, eval_str=True)  # typer reads the wrapper's signature as it is
        params: list[inspect.Parameter] = []
        for param in signature.parameters.values():
            if param.name != name:
                params.append(param)
                continue
            params += [inspect.Parameter(option, param.kind, default=default, annotation=kind)
                       for option, (kind, default) in options.items()]

        @functools.wraps(func)
        def command(*args: Any, **kwargs: Any) -> Any:
            values = {option: kwargs.pop(option, default) for option, (_, default) in options.items()}
            return func(*args, **kwargs, **{name: build(**values)})

        command.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}  # evaluated, for typer's type hints
        return command  # type: ignore[return-value]

    return wrap


def llm_options(timeout: float = 60.0) -> Callable[[F], F]:
    """Decorator: the command's ``llm: LLMOptions`` parameter becomes the ``--llm-*`` options (`timeout`:
    --llm-timeout's default)."""
    return option_group("llm", llm_options_of, llm_option_types(timeout))

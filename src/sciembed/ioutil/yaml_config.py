"""Pydantic models from YAML files: one reader and one error format for every config sciembed loads.

A missing, unreadable or non-YAML file, or a top level that is not a mapping, raises the caller's error
class naming the file; a validation failure lists every problem as ``dotted.field: message``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


def read_yaml_mapping(path: str | Path, error: type[Exception], what: str = "config") -> dict[str, Any]:
    """The file's top-level mapping (an empty file is an empty mapping)."""
    path = Path(path)
    if not path.is_file():
        raise error(f"{path}: {what} not found")
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"{path}: cannot read {what} ({exc.strerror or exc})") from exc
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError) as exc:
        raise error(f"{path}: not valid YAML ({type(exc).__name__}: {exc})") from exc
    if loaded is not None and not isinstance(loaded, dict):
        raise error(f"{path}: top level must be a mapping, got {type(loaded).__name__}")
    return loaded or {}


def validation_message(source: str, exc: ValidationError, counted: str = "problem(s)") -> str:
    """``<source>: <n> <counted>: field.path: message; …`` (the field path of each problem, dotted)."""
    problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}" for e in exc.errors())
    return f"{source}: {exc.error_count()} {counted}: {problems}"


def validate_model(cls: type[M], data: dict[str, Any], source: str, error: type[Exception],
                   counted: str = "problem(s)") -> M:
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        raise error(validation_message(source, exc, counted)) from None


def packaged_config(name: str) -> Path:
    """A config shipped with sciembed (``sciembed/configs/<name>``: package data, the repository's ``configs/``)."""
    from importlib.resources import files

    return Path(str(files("sciembed").joinpath("configs", name)))

"""The Paper schema, derived: Arrow table schema and JSONL validator from the dataclasses in `model.py`, so a
field added to the dataclass shows up in both (tests/papers/test_schema.py ties the three together).

Rules, from a field's type hint:

- ``str`` → Arrow string; in JSONL a string, ``null`` read as the default (``""`` when the dataclass has none);
- ``int | None`` → Arrow int32; JSONL an integer or ``null``;
- a ``StrEnum`` → Arrow string (its value); JSONL one of its values;
- ``tuple[X, ...]`` → Arrow list of X; JSONL a list (not ``null``);
- a nested dataclass → Arrow struct; JSONL an object or ``null``.

The key field (``metadata={"key": True}``: `Paper.id`) is required and non-empty in JSONL; integers are accepted
there and read as text.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from enum import Enum
from functools import cache
from typing import Annotated, Any

import pyarrow as pa
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, create_model

KEY = {"key": True}  # dataclass field metadata: the record's identifier


def _strip_optional(annotation: Any) -> tuple[Any, bool]:
    """(the type inside ``X | None``, whether None was allowed)."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) != 1:
            raise TypeError(f"unsupported union in the Paper schema: {annotation}")
        return args[0], True
    return annotation, False


def arrow_type(annotation: Any) -> pa.DataType:
    """The Arrow type of one dataclass field's type hint."""
    inner, _ = _strip_optional(annotation)
    if typing.get_origin(inner) is tuple:
        return pa.list_(arrow_type(typing.get_args(inner)[0]))
    if dataclasses.is_dataclass(inner):
        return pa.struct([pa.field(f.name, arrow_type(hint)) for f, hint in _fields(inner)])
    if inner is str or (isinstance(inner, type) and issubclass(inner, Enum)):
        return pa.string()
    if inner is int:
        return pa.int32()
    raise TypeError(f"no Arrow type for {annotation!r} in the Paper schema")


def _fields(cls: type) -> list[tuple[dataclasses.Field, Any]]:
    hints = typing.get_type_hints(cls)
    return [(f, hints[f.name]) for f in dataclasses.fields(cls)]


@cache
def arrow_schema(cls: type) -> pa.Schema:
    """The Arrow schema of a table holding one `cls` record per row, columns in field order."""
    return pa.schema([pa.field(f.name, arrow_type(hint)) for f, hint in _fields(cls)])


def _int_as_text(value: Any) -> Any:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _validator_field(field: dataclasses.Field, annotation: Any) -> tuple[Any, Any]:
    """(pydantic type, pydantic default) for one dataclass field."""
    if field.metadata.get("key"):
        return Annotated[str, BeforeValidator(_int_as_text)], Field(min_length=1)
    inner, _ = _strip_optional(annotation)
    if typing.get_origin(inner) is tuple:
        item = typing.get_args(inner)[0]
        item_type = validator_model(item) if dataclasses.is_dataclass(item) else item
        return list[item_type], []
    if dataclasses.is_dataclass(inner):
        return validator_model(inner) | None, None
    if isinstance(inner, type) and issubclass(inner, Enum):
        return inner, field.default
    has_default = field.default is not dataclasses.MISSING
    if inner is str:
        return str | None, field.default if has_default else ""
    return inner | None, field.default if has_default else None


@cache
def validator_model(cls: type) -> type[BaseModel]:
    """A pydantic model that checks one JSON record of `cls` (unknown keys are ignored, and told by `unknown_keys`)."""
    definitions = {f.name: _validator_field(f, hint) for f, hint in _fields(cls)}
    return create_model(f"{cls.__name__}Record", __config__=ConfigDict(extra="ignore"), **definitions)


def field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


def unknown_keys(obj: dict[str, Any], cls: type) -> list[str]:
    """Keys of a JSON record that `cls` does not know, nested lists of dataclasses included ("sections.0.page")."""
    found = [k for k in obj if k not in field_names(cls)]
    for f, hint in _fields(cls):
        inner, _ = _strip_optional(hint)
        items = obj.get(f.name)
        if typing.get_origin(inner) is not tuple or not isinstance(items, list):
            continue
        item_cls = typing.get_args(inner)[0]
        if dataclasses.is_dataclass(item_cls):
            names = field_names(item_cls)
            for i, item in enumerate(items):
                if isinstance(item, dict):
                    found += [f"{f.name}.{i}.{k}" for k in item if k not in names]
    return found

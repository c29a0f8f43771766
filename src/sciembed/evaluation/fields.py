"""Typed field checks for the bring-your-own benchmark loaders (BEIR, pools).

A number where a title belongs, a list as a text, a string as `metadata`, relevance like `inf` / `1e400`: each is
a counted issue with file:line, never a crash and never a Python repr used as text or id.
"""

from __future__ import annotations

import math
from typing import Any

MAX_RELEVANCE = 2**31 - 1  # qrels are int32 in ranx / TREC tools


def id_value(value: Any) -> str | None:
    """An id from a string or an integer (not a bool); None when missing, of another type, or holding whitespace.

    Whitespace inside an id would split into extra columns of the TREC run and
    qrels files the report writes (a chosen id could forge a score column).
    """
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = str(value).strip()
    return text if text and not any(c.isspace() for c in text) else None


def id_type(value: Any) -> Any:
    """`value` when it is a string or an integer (the JSON types an id may have), else None."""
    return value if isinstance(value, str | int) and not isinstance(value, bool) else None


def trec_id(value: str) -> str:
    """An id as written to a TREC file; one with whitespace is refused (it would forge columns)."""
    if not value or any(c.isspace() for c in value):
        raise ValueError(f"id {value!r} is empty or contains whitespace; TREC run / qrels files cannot hold it")
    return value


def text_value(value: Any) -> str | None:
    """A text field: a string, or "" when absent; None when it holds another JSON type."""
    if value is None:
        return ""
    return value if isinstance(value, str) else None


def relevance_value(value: Any) -> int | None:
    """A graded relevance: a finite number within int32, read as an integer; None otherwise."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if not math.isfinite(number) or abs(number) > MAX_RELEVANCE:
        return None
    return int(number)


def wrong_types(record: dict[str, Any], checks: dict[str, Any]) -> list[str]:
    """Names of the fields in `checks` (field -> checker) whose value the checker refuses."""
    return [name for name, check in checks.items() if name in record and check(record[name]) is None]


def relevance_problem(value: Any) -> str:
    """Why `relevance_value` refused a value: "not a number", or "not finite or out of range"."""
    try:
        float(value)
    except (TypeError, ValueError, OverflowError):
        return "not a number"
    return "not a number" if isinstance(value, bool) else "not finite or out of range"

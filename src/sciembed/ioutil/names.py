"""File-name-safe forms of user-given names (models, benchmarks, scenarios)."""

from __future__ import annotations

import re


def slug(name: str, fill: str = "-", empty: str = "x") -> str:
    """`name` with every run of characters other than letters, digits, ``.``, ``_`` and ``-`` replaced by `fill`."""
    return re.sub(r"[^A-Za-z0-9._-]+", fill, name).strip(fill) or empty

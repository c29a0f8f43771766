"""Reading a JSON file that must hold one object, with the file named in every error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_json_object(path: Path, error: type[Exception], *, missing: str, shape: str) -> dict[str, Any]:
    """The object in `path`; else `error` saying what is wrong: "not found (`missing`)", not JSON, not `shape`."""
    if not path.is_file():
        raise error(f"{path}: not found ({missing})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise error(f"{path}: not JSON ({err})") from err
    if not isinstance(data, dict):
        raise error(f"{path}: expected {shape}")
    return data

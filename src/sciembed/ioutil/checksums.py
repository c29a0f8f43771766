"""Checksums that make an edited or damaged output file a refusal, not a silently wrong result: `seal` adds a
checksum of a JSON record's own content, `sha256_file` covers the data files a record names."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

SEAL = "self_sha256"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _digest(record: dict[str, Any]) -> str:
    body = {k: v for k, v in record.items() if k != SEAL}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def seal(record: dict[str, Any]) -> dict[str, Any]:
    """`record` with its own checksum added."""
    return {**record, SEAL: _digest(record)}


def seal_problem(record: dict[str, Any], where: str) -> str | None:
    """Why a sealed record cannot be trusted (None when its checksum matches; unsealed records pass)."""
    if SEAL not in record:
        return None
    if record[SEAL] != _digest(record):
        return f"{where}: was changed after it was written (its checksum does not match); rebuild it"
    return None


def files_problem(root: Path, digests: dict[str, str]) -> str | None:
    """The first file under `root` that is missing or whose sha256 differs from `digests`."""
    for name, digest in digests.items():
        path = root / name
        if not path.is_file():
            return f"{path}: missing (directory incomplete)"
        if sha256_file(path) != digest:
            return f"{path}: checksum mismatch; the file is damaged or was changed after saving — rebuild"
    return None

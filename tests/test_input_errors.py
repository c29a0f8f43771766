"""One base class for input errors: every sciembed error class is a `SciembedInputError`, or named here as internal.

The CLI guard recognises input errors by that base alone (`cli/errors.py`), so an
error class that forgets it would end in a traceback and exit code 1.
"""

from __future__ import annotations

import ast
from pathlib import Path

from sciembed.cli.errors import data_error_message, is_input_error
from sciembed.errors import SciembedInputError

SRC = Path(__file__).resolve().parents[1] / "src" / "sciembed"
# Not input errors: raised and caught inside one stage (a reader's record becomes a rejection), a failed
# invariant (a bug), the HTTP API's own error type, the GROBID server being down (retried, then told per file).
INTERNAL = {"FunnelInvariantError", "ApiError", "FieldTypeError", "TooDeepError", "JsonLinesFileError",
            "GrobidUnavailable"}


def _error_classes() -> dict[str, list[str]]:
    """Every class in src/ whose name ends in Error or Unavailable: its base names."""
    found: dict[str, list[str]] = {}
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.name.endswith(("Error", "Unavailable", "Errors")):
                bases = [b.id if isinstance(b, ast.Name) else ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases]
                found.setdefault(node.name, []).extend(bases)
    return found


def test_every_error_class_derives_from_the_one_base() -> None:
    classes = _error_classes()

    def is_input(name: str, seen: frozenset[str] = frozenset()) -> bool:
        bases = classes.get(name, [])
        return "SciembedInputError" in bases or any(b in classes and b not in seen and is_input(b, seen | {name})
                                                    for b in bases)

    missing = sorted(n for n in classes if n not in INTERNAL | {"SciembedInputError"} and not is_input(n))
    assert not missing, f"error classes that the CLI guard would not catch: {missing}"
    assert set(classes) >= INTERNAL, f"stale names in INTERNAL: {sorted(INTERNAL - set(classes))}"


def test_the_guard_catches_the_base_and_keeps_the_message() -> None:
    from sciembed.papers.scitldr import SciTldrError  # was listed under the wrong module, so never caught

    err = SciTldrError("dev.jsonl line 3: no TLDR")
    assert is_input_error(err) and isinstance(err, ValueError)
    assert data_error_message(err) == "dev.jsonl line 3: no TLDR"
    assert data_error_message(SciembedInputError("")) == "SciembedInputError"
    assert data_error_message(KeyError("a bug")) is None

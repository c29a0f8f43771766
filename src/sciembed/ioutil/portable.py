"""Paths as results files keep them: relative to the repository, never the absolute path of the machine that ran.

Every absolute path a writer passes through `portable` becomes ``site-packages/<package>/…`` for an
installed package, else relative to the repository (or the working directory); other strings are kept.
Free text quoting paths (a log tail, a traceback) goes through `portable_text`.
"""

from __future__ import annotations

import os
import re
import tempfile
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

SITE_PACKAGES = "site-packages"
# an absolute path inside prose: a "/" not preceded by a word, ":", "/" or "." (so URLs stay whole)
_PATH_IN_TEXT = re.compile(r"(?<![\w:/.])/(?:[\w.+-]+/)*[\w.+-]+")


@cache
def repository_root() -> Path:
    """The checkout sciembed runs from (``src/sciembed`` inside a folder with pyproject.toml), else the cwd."""
    here = Path(__file__).resolve().parents[3]
    return here if (here / "pyproject.toml").is_file() else Path.cwd().resolve()


def is_absolute_path(value: str) -> bool:
    """An absolute POSIX path as sciembed writes them (no whitespace: "/ is a slash" is prose, not a path)."""
    return value.startswith("/") and 1 < len(value) < 4096 and not any(c.isspace() for c in value)


def portable_path(value: str | os.PathLike[str], root: Path | None = None) -> str:
    """`value` relative to the repository (`root`), or from ``site-packages/`` for an installed package."""
    text = os.fspath(value)
    if not is_absolute_path(text):
        return text
    parts = PurePosixPath(text).parts
    if SITE_PACKAGES in parts:
        return str(PurePosixPath(*parts[parts.index(SITE_PACKAGES):]))
    return os.path.relpath(text, root or repository_root())


def portable_text(text: str, root: Path | None = None) -> str:
    """`text` with every machine path quoted in it made `portable_path`: one under the repository's parent
    folder, the temporary folder, the home folder or a ``site-packages``. Other slashes stay as written
    (URLs, routes such as ``POST /search``, ``a/b``)."""
    base = root or repository_root()
    prefixes = tuple(f"{p.rstrip('/')}/" for p in (str(base.parent), tempfile.gettempdir(), str(Path.home())))

    def rewrite(match: re.Match[str]) -> str:
        path = match.group(0)
        machine = path.startswith(prefixes) or SITE_PACKAGES in PurePosixPath(path).parts
        return portable_path(path, base) if machine else path

    return _PATH_IN_TEXT.sub(rewrite, text)


def portable(obj: Any, root: Path | None = None, *, in_text: bool = False) -> Any:
    """`obj` (JSON-like: dicts, lists, strings, numbers) with every absolute path made `portable_path`;
    with `in_text`, also the machine paths quoted inside strings (`portable_text`: commands, messages, logs)."""
    if isinstance(obj, str):
        if is_absolute_path(obj):
            return portable_path(obj, root)
        return portable_text(obj, root) if in_text else obj
    if isinstance(obj, Path):
        return portable_path(obj, root)
    if isinstance(obj, dict):
        return {key: portable(value, root, in_text=in_text) for key, value in obj.items()}
    if isinstance(obj, list | tuple):
        return [portable(value, root, in_text=in_text) for value in obj]
    return obj

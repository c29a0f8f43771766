"""Query files of `sciembed index search`: paper ids (`--papers`) and query texts (`--queries`).

Kept apart from the search code so that reading them imports nothing heavy (`index search --server`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sciembed.errors import SciembedInputError


class QueryFileError(SciembedInputError, ValueError):
    """A papers / queries / PRISM query-set file that cannot be used (file and line in the message)."""


def _records(path: str | Path, comments: bool) -> Iterator[tuple[int, str, dict[str, Any] | None]]:
    """(line number, stripped text, the JSON object when the line is one) per non-blank line."""
    path = Path(path)
    if not path.is_file():
        raise QueryFileError(f"{path}: no such file")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise QueryFileError(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or (comments and text.startswith("#")):
            continue
        record = None
        if text.startswith("{"):
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                raise QueryFileError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
        yield number, text, record


def read_paper_ids(path: str | Path) -> list[str]:
    """One paper id per line (first whitespace-separated field; `#` comments and blank lines skipped),
    or JSONL with ``paper_id`` / ``id``."""
    ids = []
    for number, text, record in _records(path, comments=True):
        if record is None:
            ids.append(text.split()[0])
            continue
        pid = record.get("paper_id") or record.get("id")
        if not pid:
            raise QueryFileError(f"{path}:{number}: no paper_id")
        ids.append(str(pid))
    if not ids:
        raise QueryFileError(f"{path}: no paper ids")
    return ids


def read_query_texts(path: str | Path) -> list[tuple[str, str]]:
    """(query id, text): JSONL (``_id``/``id`` + ``text``/``query``, BEIR's queries.jsonl), TSV ``id<TAB>text``,
    or one text per line (ids q1, q2, …)."""
    out = []
    for number, text, record in _records(path, comments=False):
        if record is not None:
            query = record.get("text") or record.get("query")
            if not query:
                raise QueryFileError(f"{path}:{number}: no text")
            out.append((str(record.get("_id") or record.get("id") or f"q{number}"), str(query)))
        elif "\t" in text:
            qid, query = text.split("\t", 1)
            out.append((qid, query))
        else:
            out.append((f"q{len(out) + 1}", text))
    if not out:
        raise QueryFileError(f"{path}: no queries")
    return out

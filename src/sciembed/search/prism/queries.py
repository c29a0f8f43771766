"""Aspect queries on disk: generate once (`sciembed prism queries`), reuse in every search and evaluation.

One JSON object per line (`QuerySet.to_dict`): paper id, title, sample index, the queries by aspect, where each
came from, and notes. Written to a temporary file and renamed, so an interrupted run never leaves half a file.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from sciembed.ioutil.atomic import write_jsonl_atomic
from sciembed.papers.readers.jsonlines import JsonLinesFileError, json_object_lines
from sciembed.search.prism.aspects import QuerySet
from sciembed.search.query_files import QueryFileError


def write_query_sets(sets: Iterable[QuerySet], path: str | Path) -> int:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_jsonl_atomic(path, (query_set.to_dict() for query_set in sets))


def read_query_sets(path: str | Path) -> dict[tuple[str, int], QuerySet]:
    """(paper id, sample) -> QuerySet; one clear error for a bad line."""
    path = Path(path)
    if not path.is_file():
        raise QueryFileError(f"{path}: no such queries file")
    out: dict[tuple[str, int], QuerySet] = {}
    try:
        for line in json_object_lines(path):
            if line.record is None:
                raise QueryFileError(f"{path}:{line.number}: not a query set ({line.problem}: {line.detail})")
            try:
                query_set = QuerySet.from_dict(line.record)
            except (KeyError, TypeError, ValueError) as exc:
                raise QueryFileError(f"{path}:{line.number}: not a query set ({exc})") from exc
            out[(query_set.paper_id, query_set.sample)] = query_set
    except JsonLinesFileError as exc:
        raise QueryFileError(str(exc)) from exc
    return out

"""Streaming readers for every supported full-text format: `read_papers(path)` yields `Accepted` (finalised)
papers and `Rejection`s; formats are auto-detected (`detect_format`) unless named (`FORMAT_NAMES`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from sciembed.papers.readers.checks import display_title, id_problem, value_problem
from sciembed.papers.readers.detect import detect_format, walk_inputs
from sciembed.papers.readers.front_matter import FRONT_MATTER, front_matter_reason
from sciembed.papers.readers.limits import TOO_DEEPLY_NESTED
from sciembed.papers.readers.records import (
    INVALID_RECORD,
    MISSING_TITLE,
    UNKNOWN_FORMAT,
    Accepted,
    Loc,
    Record,
    Rejection,
)
from sciembed.papers.readers.registry import FORMAT_NAMES, FORMATS
from sciembed.papers.sections import finalize

__all__ = ["FORMATS", "FORMAT_NAMES", "Accepted", "Record", "Rejection", "detect_format", "read_papers", "walk_inputs"]


def read_papers(path: Path, fmt: str = "auto", name: str | None = None,
                keep_untitled: bool = False) -> Iterator[Record]:
    """Finalised papers and rejections from one file; `name` is how the file is named in messages.

    `keep_untitled` keeps untitled papers, flagged `missing_title`, with a display title (`checks.display_title`).
    Proceedings front matter is rejected as `front_matter` (`front_matter.py`).
    """
    name = name or str(path)
    if fmt == "auto":
        detected = detect_format(path)
        if detected is None:
            yield Rejection(Loc(name), UNKNOWN_FORMAT, f"cannot tell the format; pass --format ({', '.join(FORMATS)})")
            return
        fmt = detected
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected auto or one of {', '.join(FORMATS)}")
    spec = FORMATS[fmt]
    for record in spec.read(path, name):
        if isinstance(record, Rejection):
            yield record
            continue
        try:
            paper = finalize(record.paper, noisy_headings=spec.noisy_headings)
        except (TypeError, ValueError, AttributeError) as err:  # a field of an unexpected type
            yield Rejection(record.loc, INVALID_RECORD, f"unexpected field value: {err}", str(record.paper.id))
            continue
        except RecursionError:
            yield Rejection(record.loc, TOO_DEEPLY_NESTED, "a field is nested too deeply to read")
            continue
        # Ids are validated after normalisation: "\x00" or "  " must not pass as the empty id.
        bad_id = id_problem(paper.id, record.paper.id) or value_problem(paper)
        if bad_id:
            shown = paper.id.encode("utf-8", "backslashreplace").decode("utf-8")  # a surrogate id stays writable
            yield Rejection(record.loc, bad_id[0], bad_id[1], shown or None)
        elif front := front_matter_reason(paper):  # before the title check: untitled front matter is front matter
            yield Rejection(record.loc, FRONT_MATTER, front, paper.id)
        elif not paper.title and keep_untitled:
            yield replace(record, paper=replace(display_title(paper, name), flags=(*paper.flags, MISSING_TITLE)))
        elif not paper.title:
            yield Rejection(record.loc, MISSING_TITLE, "record has no title (--keep-untitled keeps it flagged)",
                            paper.id or None)
        else:
            yield replace(record, paper=paper)

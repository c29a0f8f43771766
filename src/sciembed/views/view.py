"""`View`: a piece of text cut from a paper, with where it came from."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ViewKind(StrEnum):
    TA = "ta"
    SECTION = "section"
    WINDOW = "window"
    CHUNK = "chunk"
    SEGMENT = "segment"
    ASPECT = "aspect"
    FULLTEXT = "fulltext"


@dataclass(frozen=True, slots=True)
class View:
    """Derived text unit. `section` is the body section index it starts in
    (None for TA); `start`/`end` are word offsets into the paper's body word
    sequence (see `sciembed.views.body.body_words`)."""

    paper_id: str
    kind: ViewKind
    text: str
    section: int | None = None
    start: int | None = None
    end: int | None = None

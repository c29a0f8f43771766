"""What a reader yields: an `Accepted` paper or a `Rejection` saying what, where and why.

Readers never raise on bad input nor skip a record: each comes out as one of the two (accepted + rejected = read).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from sciembed.papers.model import Paper

# Stable reason codes (counted per code in the manifest); the message carries the detail.
MALFORMED_JSON = "malformed_json"
MALFORMED_XML = "malformed_xml"
INVALID_UTF8 = "invalid_utf8"
TRUNCATED_GZIP = "truncated_gzip"
INVALID_RECORD = "invalid_record"
MISSING_ID = "missing_id"
MISSING_TITLE = "missing_title"
DUPLICATE_ID = "duplicate_id"
UNKNOWN_FORMAT = "unknown_format"
UNREADABLE_FILE = "unreadable_file"


def writable(text: str | None) -> str | None:
    """`text` with any lone surrogate written as its escape (``\\ud800``), so a rejection quoting a JSON id or
    an undecodable file name stays writable to rejects.jsonl or a reply."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    except AttributeError:  # None, or not a string: left as it is
        pass
    return text


@dataclass(frozen=True, slots=True)
class Loc:
    """Where a record sits: a file plus a line (JSON/JSONL) or an element path (XML)."""

    file: str
    line: int | None = None
    element: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "file", writable(self.file))  # a file name read with surrogateescape
        object.__setattr__(self, "element", writable(self.element))

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
        if self.element:
            where += f" {self.element}"
        return where


@dataclass(frozen=True, slots=True)
class Rejection:
    """A record that was read but not accepted."""

    loc: Loc
    reason: str
    message: str
    id: str | None = None

    def __post_init__(self) -> None:
        # A rejection is written out (rejects.jsonl, an HTTP reply): what it quotes from the record must encode.
        object.__setattr__(self, "message", writable(self.message))
        object.__setattr__(self, "id", writable(self.id))

    def __str__(self) -> str:
        ident = f" (id {self.id!r})" if self.id else ""
        return f"{self.loc}: {self.reason}: {self.message}{ident}"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self.loc), "reason": self.reason, "message": self.message, "id": self.id}


@dataclass(frozen=True, slots=True)
class Accepted:
    """A paper and where it was read from (kept so later checks can still point at the line)."""

    loc: Loc
    paper: Paper


Record = Accepted | Rejection

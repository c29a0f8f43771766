"""Bounds on what one input may cost: record size, decompression ratio, JSON nesting.

A 1,000-level JSON array, a gzip bomb or a 300 MB record each become one located rejection, not a
RecursionError or gigabytes of memory. The limits live in a context variable (`using_limits`), so the
readers' signatures stay as they are; ``ingest --max-record-mb`` sets them for one run.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from sciembed.errors import SciembedInputError

# Reason codes (counted per code in the manifest like the ones in records.py).
RECORD_TOO_LARGE = "record_too_large"
TOO_DEEPLY_NESTED = "too_deeply_nested"
DECOMPRESSION_LIMIT = "decompression_limit"

MB = 1 << 20


@dataclass(frozen=True)
class ReadLimits:
    """What a single record or file may cost.

    `max_record_bytes` bounds one JSONL line and one single-document file (TEI / JATS / JSON); a gzip stream
    past `ratio_after_bytes` at more than `max_ratio` times its compressed size is stopped (text compresses
    3-20x; a bomb of zeros about 1,000x).
    """

    max_record_bytes: int = 20 * MB
    max_ratio: float = 100.0
    ratio_after_bytes: int = 32 * MB
    max_json_depth: int = 200
    max_total_bytes: int | None = None  # decompressed bytes of one gzip stream (None: only the ratio bounds it)

    def __post_init__(self) -> None:
        if self.max_record_bytes < 1 or self.max_ratio <= 1 or self.max_json_depth < 1:
            raise ValueError(f"read limits must be positive: {self}")


_DEFAULT = ReadLimits()
_LIMITS: ContextVar[ReadLimits | None] = ContextVar("sciembed_read_limits", default=None)


def current() -> ReadLimits:
    return _LIMITS.get() or _DEFAULT


@contextmanager
def using_limits(limits: ReadLimits | None) -> Iterator[ReadLimits]:
    token = _LIMITS.set(limits)
    try:
        yield current()
    finally:
        _LIMITS.reset(token)


class DecompressionLimitError(SciembedInputError, OSError):
    """A compressed file expands past the allowed ratio: a file-level event, later records are not read."""


class _RatioGuard:
    """Wraps a GzipFile and stops when decompressed bytes outgrow the compressed bytes consumed."""

    def __init__(self, raw: IO[bytes], limits: ReadLimits) -> None:
        self._raw = raw
        self._gzip = gzip.GzipFile(fileobj=raw, mode="rb")
        self._limits = limits
        self._out = 0

    def _count(self, data: bytes) -> bytes:
        self._out += len(data)
        if self._limits.max_total_bytes is not None and self._out > self._limits.max_total_bytes:
            raise DecompressionLimitError(f"gzip expands past {self._limits.max_total_bytes} bytes: later records "
                                          "are not read")
        if self._out > self._limits.ratio_after_bytes:
            consumed = max(self._raw.tell(), 1)
            if self._out / consumed > self._limits.max_ratio:
                raise DecompressionLimitError(f"gzip expands more than {self._limits.max_ratio:g}x ({self._out} bytes "
                                              f"from {consumed}): refusing a likely decompression bomb; later records "
                                              "are not read")
        return data

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:  # whole stream: read in chunks so the guard sees it grow
            parts = []
            while chunk := self._count(self._gzip.read(MB)):
                parts.append(chunk)
            return b"".join(parts)
        return self._count(self._gzip.read(size))

    def readline(self, size: int = -1) -> bytes:
        return self._count(self._gzip.readline(size))

    def read_whole(self, max_bytes: int) -> bytes:
        """What `read(max_bytes + 1)` gives, errors and limits included, faster.

        One complete gzip member within the limits is inflated by one `zlib` decompressor (a third of
        `GzipFile`'s cost on a 60 kB TEI file); anything else is read again from its start by `GzipFile` under
        the ratio guard, so every error and message stays the guarded reader's.
        """
        total = self._limits.max_total_bytes
        cap = min(max_bytes, self._limits.ratio_after_bytes, max_bytes if total is None else total)
        if self._out == 0 and self._raw.tell() == 0:
            data = _inflate_single_member(self._raw, cap)
            if data is not None:
                return data
            self._raw.seek(0)
            self._gzip = gzip.GzipFile(fileobj=self._raw, mode="rb")
        return self.read(max_bytes + 1)

    def __enter__(self) -> _RatioGuard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._gzip.close()
        self._raw.close()


def _inflate_single_member(raw: IO[bytes], cap: int) -> bytes | None:
    """A gzip stream that is exactly one complete member of at most `cap` bytes inflated (bounded as it grows,
    CRC and length checked as `GzipFile` does), else None."""
    inflater = zlib.decompressobj(wbits=31)  # 16 + 15: a gzip header and trailer around deflate
    parts: list[bytes] = []
    size = 0
    try:
        while not inflater.eof:
            chunk = inflater.unconsumed_tail or raw.read(MB)
            if not chunk:
                return None  # ends early: GzipFile says how
            parts.append(inflater.decompress(chunk, cap + 1 - size))
            size += len(parts[-1])
            if size > cap:
                return None
    except zlib.error:
        return None
    if inflater.unused_data or raw.read(1):
        return None  # another member or padding after this one
    return b"".join(parts)


def open_guarded(path: Path) -> IO[bytes]:
    """A byte stream over the (possibly gzipped, by magic bytes) file with the ratio guard on gzip."""
    raw = open(path, "rb")  # noqa: SIM115 - handed to the caller, who closes it
    if raw.read(2) == b"\x1f\x8b":
        raw.seek(0)
        return _RatioGuard(raw, current())  # type: ignore[return-value]
    raw.seek(0)
    return raw


def bounded_lines(stream: IO[bytes], max_bytes: int | None = None) -> Iterator[tuple[int, bytes | None]]:
    """(line number, bytes) per line; a line longer than `max_bytes` yields None, its rest drained in 1 MB
    pieces unkept (`for line in stream` would hold it whole)."""
    limit = max_bytes or current().max_record_bytes
    line_no = 0
    while raw := stream.readline(limit + 1):
        line_no += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            while (rest := stream.readline(MB)) and not rest.endswith(b"\n"):
                pass
            yield line_no, None
        else:
            yield line_no, raw


def read_capped(stream: IO[bytes], max_bytes: int | None = None) -> bytes | None:
    """The whole stream, or None when it is longer than `max_bytes` (read no further than that)."""
    limit = max_bytes or current().max_record_bytes
    data = stream.read_whole(limit) if isinstance(stream, _RatioGuard) else stream.read(limit + 1)
    return None if len(data) > limit else data


def too_large_message(size_limit: int | None = None) -> str:
    limit = size_limit or current().max_record_bytes
    return f"record is larger than {limit / MB:g} MB (--max-record-mb); skipped"


class TooDeepError(ValueError):
    """JSON nested deeper than the limit (a RecursionError in the decoder, or in any code walking it)."""


def loads(text: str | bytes) -> Any:
    """`json.loads` that turns nesting past `max_json_depth` (later code walks values recursively) or the C
    decoder's RecursionError (~1,000 levels) into `TooDeepError`."""
    limit = current().max_json_depth
    try:
        value = json.loads(text)
    except RecursionError as err:
        raise TooDeepError(f"JSON nested deeper than the decoder allows (limit {limit} levels)") from err
    except json.JSONDecodeError:
        raise
    except ValueError as err:  # e.g. an integer of more than 4,300 digits
        raise json.JSONDecodeError(f"unreadable value ({err})", "", 0) from err
    brackets = text.count("[" if isinstance(text, str) else b"[") + text.count("{" if isinstance(text, str) else b"{")
    if brackets > limit and _deeper_than(value, limit):  # cheap count first: most records are shallow
        raise TooDeepError(f"JSON nested deeper than {limit} levels")
    return value


def _deeper_than(value: Any, limit: int) -> bool:
    """Iterative depth check of a decoded value (no recursion, stops at the first too-deep branch)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False

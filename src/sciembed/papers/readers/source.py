"""Raw input: gz-aware byte streams, JSON lines / documents and safe XML, with located errors: a broken input
becomes a `Rejection` naming the file, the line (or line and column) and what is wrong, never an exception."""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from lxml import etree

from sciembed.papers.model import Paper
from sciembed.papers.readers import limits
from sciembed.papers.readers.limits import (
    DECOMPRESSION_LIMIT,
    RECORD_TOO_LARGE,
    TOO_DEEPLY_NESTED,
    DecompressionLimitError,
    TooDeepError,
)
from sciembed.papers.readers.records import (
    INVALID_RECORD,
    INVALID_UTF8,
    MALFORMED_JSON,
    MALFORMED_XML,
    TRUNCATED_GZIP,
    UNREADABLE_FILE,
    Accepted,
    Loc,
    Record,
    Rejection,
)
from sciembed.papers.readers.xmltext import element_path

_GZIP_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error)


def open_bytes(path: Path) -> IO[bytes]:
    """Raw or gunzipped bytes; gzip streams stop at the decompression-ratio limit (`limits.py`)."""
    return limits.open_guarded(path)


def _gzip_message(err: Exception, after_line: int | None = None) -> str:
    where = f" after line {after_line}" if after_line is not None else ""
    return f"gzip stream ends early or is corrupt{where} ({type(err).__name__}: {err}); later records are lost"


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8").removeprefix("\ufeff")


def _utf8_message(err: UnicodeDecodeError) -> str:
    return f"invalid UTF-8 at byte {err.start} ({err.reason})"


def iter_json_lines(path: Path, name: str) -> Iterator[tuple[Loc, dict[str, Any]] | Rejection]:
    """One JSON object per non-blank line; a bad line is one rejection, a truncated gzip ends the file."""
    line_no = 0
    try:
        with open_bytes(path) as stream:
            for line_no, raw in limits.bounded_lines(stream):
                if raw is None:
                    yield Rejection(Loc(name, line_no), RECORD_TOO_LARGE, limits.too_large_message())
                elif raw.strip():
                    yield _parse_json(raw, Loc(name, line_no))
    except DecompressionLimitError as err:
        yield Rejection(Loc(name, line_no + 1), DECOMPRESSION_LIMIT, str(err))
    except _GZIP_ERRORS as err:
        yield Rejection(Loc(name, line_no + 1), TRUNCATED_GZIP, _gzip_message(err, line_no))
    except OSError as err:
        yield Rejection(Loc(name, line_no + 1 if line_no else None), UNREADABLE_FILE, str(err))


def _parse_json(raw: bytes, loc: Loc) -> tuple[Loc, dict[str, Any]] | Rejection:
    try:
        text = _decode(raw)
    except UnicodeDecodeError as err:
        return Rejection(loc, INVALID_UTF8, _utf8_message(err))
    try:
        obj = limits.loads(text)
    except json.JSONDecodeError as err:
        return Rejection(loc, MALFORMED_JSON, f"{err.msg} at column {err.colno}")
    except TooDeepError as err:
        return Rejection(loc, TOO_DEEPLY_NESTED, str(err))
    if not isinstance(obj, dict):
        return Rejection(loc, INVALID_RECORD, f"expected a JSON object, got {type(obj).__name__}")
    return loc, obj


def read_json_document(path: Path, name: str) -> Iterator[tuple[Loc, dict[str, Any]] | Rejection]:
    """A whole file holding one JSON object (S2ORC single records, science-parse output) or an array of them."""
    item = _read_json_document(path, name)
    if isinstance(item, Rejection):
        yield item
        return
    loc, document = item
    if isinstance(document, dict):
        yield loc, document
        return
    for index, obj in enumerate(document):
        loc = Loc(name, element=f"[{index}]")
        yield (loc, obj) if isinstance(obj, dict) else Rejection(loc, INVALID_RECORD,
                                                                 f"expected a JSON object, got {type(obj).__name__}")


def read_bytes(path: Path, name: str) -> bytes | Rejection:
    """A whole (possibly gzipped) file, or a rejection saying why it could not be read."""
    try:
        with open_bytes(path) as stream:
            data = limits.read_capped(stream)
    except DecompressionLimitError as err:
        return Rejection(Loc(name), DECOMPRESSION_LIMIT, str(err))
    except _GZIP_ERRORS as err:
        return Rejection(Loc(name), TRUNCATED_GZIP, _gzip_message(err))
    except OSError as err:
        return Rejection(Loc(name), UNREADABLE_FILE, str(err))
    if data is None:  # a single-document file is one record: the same size limit holds
        return Rejection(Loc(name), RECORD_TOO_LARGE, limits.too_large_message())
    return data


def file_stem(name: str, suffixes: tuple[str, ...]) -> str:
    """The file name without its folder and the given suffixes ("a/304.pdf.json.gz" -> "304")."""
    stem = name.rsplit("/", 1)[-1]
    for suffix in suffixes:
        stem = stem.removesuffix(suffix)
    return stem


def parse_each(documents: Iterable[etree._Element], name: str, parse: Callable[[etree._Element, str], Paper]
               ) -> Iterator[Record]:
    """One record per XML document: the parsed paper, or a rejection naming its element path."""
    for document in documents:
        loc = Loc(name, element=element_path(document))
        try:
            yield Accepted(loc, parse(document, name))
        except (TypeError, ValueError, AttributeError) as err:
            yield Rejection(loc, INVALID_RECORD, f"unexpected structure: {type(err).__name__}: {err}")
        except RecursionError:
            yield Rejection(loc, TOO_DEEPLY_NESTED, "elements are nested too deeply to read")


def _read_json_document(path: Path, name: str) -> tuple[Loc, Any] | Rejection:
    raw = read_bytes(path, name)
    if isinstance(raw, Rejection):
        return raw
    try:
        text = _decode(raw)
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        return Rejection(Loc(name, line), INVALID_UTF8, _utf8_message(err))
    try:
        obj = limits.loads(text)
    except json.JSONDecodeError as err:
        return Rejection(Loc(name, err.lineno), MALFORMED_JSON, f"{err.msg} at line {err.lineno} column {err.colno}")
    except TooDeepError as err:
        return Rejection(Loc(name, 1), TOO_DEEPLY_NESTED, str(err))
    if not isinstance(obj, dict | list):
        return Rejection(Loc(name, 1), INVALID_RECORD, f"expected a JSON object, got {type(obj).__name__}")
    return Loc(name, 1), obj


def peek_json_objects(path: Path, limit: int = 5, max_bytes: int = 64 << 20) -> tuple[list[dict[str, Any]], bool]:
    """Up to `limit` objects from the start of a file, and whether it is line-delimited (a first line holding a
    complete object, with more lines after it); otherwise one document. Unreadable starts give ([], False)."""
    objects: list[dict[str, Any]] = []
    lines_seen = 0
    try:
        with open_bytes(path) as stream:
            for _line_no, raw in limits.bounded_lines(stream):
                if raw is not None and not raw.strip():
                    continue
                lines_seen += 1
                try:
                    obj = limits.loads(_decode(raw)) if raw is not None else None
                except (UnicodeDecodeError, json.JSONDecodeError, TooDeepError):
                    obj = None
                if isinstance(obj, dict):
                    objects.append(obj)
                if (len(objects) >= limit and lines_seen >= 2) or lines_seen >= 20:
                    break  # two lines suffice to tell JSONL from one document
    except (*_GZIP_ERRORS, OSError):
        pass
    if lines_seen > 1 and objects:
        return objects, True
    if objects:  # a single line holding one object
        return objects, False
    try:
        with open_bytes(path) as stream:
            obj = limits.loads(_decode(stream.read(min(max_bytes, limits.current().max_record_bytes))))
    except (*_GZIP_ERRORS, OSError, UnicodeDecodeError, json.JSONDecodeError, TooDeepError):
        return [], False
    if isinstance(obj, list):  # a JSON array of records
        return [o for o in obj[:limit] if isinstance(o, dict)], False
    return ([obj] if isinstance(obj, dict) else []), False


# ------------------------------------------------------------------- XML


def safe_parser() -> etree.XMLParser:
    """No DTD loading, no entity expansion, no network: JATS files declare external DTDs."""
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True,
                           remove_pis=True, huge_tree=True)


def parse_xml(path: Path, name: str) -> etree._Element | Rejection:
    """The root element of an XML file, or a rejection with line and column."""
    raw = read_bytes(path, name)
    if isinstance(raw, Rejection):
        return raw
    try:
        root = etree.fromstring(raw, safe_parser())
    except etree.XMLSyntaxError as err:
        line = err.lineno if isinstance(err.lineno, int) else None
        message = str(err.msg or err)  # libxml2's message already ends with "line L, column C"
        reason = INVALID_UTF8 if ("UTF-8" in message or "encoding" in message.lower()) else MALFORMED_XML
        return Rejection(Loc(name, line), reason, message)
    if root is None:
        return Rejection(Loc(name), MALFORMED_XML, "empty document")
    return root


def read_xml_documents(path: Path, name: str, documents: Callable[[etree._Element], list[etree._Element] | str],
                       parse: Callable[[etree._Element, str], Paper]) -> Iterator[Record]:
    """One record per document of an XML file (JATS articles, TEI documents); `documents` picks them under the
    parsed root, or says why the root is not this format's (one rejection for the file, as for a parse error)."""
    root = parse_xml(path, name)
    if isinstance(root, Rejection):
        yield root
        return
    found = documents(root)
    if isinstance(found, str):
        yield Rejection(Loc(name, element=element_path(root)), INVALID_RECORD, found)
        return
    yield from parse_each(found, name, parse)


def peek_xml_root(path: Path, chunk: int = 4096, max_bytes: int = 1 << 20, piece: int = 512) -> str | None:
    """Tag ("{namespace}local") of the root element, read from the file's first bytes only (None past
    `max_bytes`): fed to a pull parser in `piece`s, since it builds every element it is fed and a TEI root
    starts within 200 bytes (a first 512-byte piece costs a fifth of a 4 kB one)."""
    parser = etree.XMLPullParser(events=("start",), resolve_entities=False, no_network=True, load_dtd=False)
    try:
        with open_bytes(path) as stream:
            for _ in range(max_bytes // chunk):
                data = stream.read(chunk)
                if not data:
                    break
                for start in range(0, len(data), piece):
                    try:
                        parser.feed(data[start : start + piece])
                    except etree.XMLSyntaxError:  # broken later in the piece: the root may have been seen already
                        return next((str(element.tag) for _event, element in parser.read_events()), None)
                    for _event, element in parser.read_events():
                        return str(element.tag)
    except (*_GZIP_ERRORS, OSError):
        return None
    return None

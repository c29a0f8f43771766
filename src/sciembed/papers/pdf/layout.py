"""PDF pages -> text lines in reading order, with font size and weight (pdfminer.six's layout analysis).

Why pdfminer.six, the reading order and the margin rules: docs/pdf.md ("Offline").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_BOLD = re.compile(r"bold|medi|black|heavy|demi|semibold|cmbx|\.b$|-b$|,bold", re.IGNORECASE)
_CID = re.compile(r"\(cid:\d+\)")
_PAGE_NUMBER = re.compile(r"^(?:page\s*)?(?:\d{1,4}|[ivxlc]{1,6})(?:\s*(?:/|of)\s*\d{1,4})?$", re.IGNORECASE)
_LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
                            "\ufb05": "st", "\ufb06": "st"})
MARGIN = 0.085  # share of the page height at top and bottom where running heads and footers live


@dataclass(frozen=True, slots=True)
class Line:
    """One visual line: where it sits, its dominant font size, how much of it is bold, its text."""

    page: int
    x0: float
    x1: float
    y0: float
    y1: float
    size: float
    bold: float  # share of characters in a bold face
    text: str
    column: int  # 0 left, 1 right, -1 spanning

    @property
    def words(self) -> int:
        return len(self.text.split())


@dataclass(frozen=True, slots=True)
class Page:
    number: int
    width: float
    height: float
    lines: tuple[Line, ...]


@dataclass(frozen=True, slots=True)
class _Fragment:
    x0: float
    x1: float
    y0: float
    y1: float
    chars: tuple[tuple[str, float, bool], ...]  # (text, size, bold) per character


def _fragments(obj: Any) -> Iterator[_Fragment]:
    from pdfminer.layout import LTAnno, LTChar, LTTextLineHorizontal

    if isinstance(obj, LTTextLineHorizontal):
        chars: list[tuple[str, float, bool]] = []
        for item in obj:
            if isinstance(item, LTChar):
                chars.append((item.get_text(), float(item.size), bool(_BOLD.search(item.fontname or ""))))
            elif isinstance(item, LTAnno) and item.get_text() == " ":
                chars.append((" ", 0.0, chars[-1][2] if chars else False))
        if any(c[0].strip() for c in chars):
            yield _Fragment(obj.x0, obj.x1, obj.y0, obj.y1, tuple(chars))
    elif hasattr(obj, "__iter__") and not isinstance(obj, LTChar):
        for child in obj:
            yield from _fragments(child)


def _column(frag: _Fragment, width: float) -> int:
    mid, slack = width / 2, width * 0.02
    if frag.x1 <= mid + slack:
        return 0
    if frag.x0 >= mid - slack:
        return 1
    return -1


def _join(frags: list[_Fragment], page: int, column: int) -> Line:
    frags = sorted(frags, key=lambda f: f.x0)
    chars: list[tuple[str, float, bool]] = []
    for frag in frags:
        if chars and chars[-1][0] != " ":
            chars.append((" ", 0.0, frag.chars[0][2]))
        chars.extend(frag.chars)
    sizes = Counter(round(size * 2) / 2 for text, size, _ in chars if text.strip())
    visible = [bold for text, _, bold in chars if text.strip()]
    text = " ".join(_CID.sub("", "".join(c[0] for c in chars)).translate(_LIGATURES).split())
    return Line(page=page, x0=frags[0].x0, x1=max(f.x1 for f in frags), y0=min(f.y0 for f in frags),
                y1=max(f.y1 for f in frags), size=sizes.most_common(1)[0][0] if sizes else 0.0,
                bold=sum(visible) / max(len(visible), 1), text=text, column=column)


def _lines(frags: list[_Fragment], page: int, width: float) -> list[Line]:
    """Fragments on one baseline in one column become one line; lines come in reading order."""
    by_column: dict[int, list[_Fragment]] = {}
    for frag in frags:
        by_column.setdefault(_column(frag, width), []).append(frag)
    lines: list[Line] = []
    for column, items in by_column.items():
        items.sort(key=lambda f: (-f.y0, f.x0))
        group: list[_Fragment] = []
        for frag in items:
            height = max(frag.y1 - frag.y0, 1.0)
            if group and abs(group[0].y0 - frag.y0) > 0.35 * height:
                lines.append(_join(group, page, column))
                group = []
            group.append(frag)
        if group:
            lines.append(_join(group, page, column))
    return _reading_order(lines)


def _reading_order(lines: list[Line]) -> list[Line]:
    """Spanning lines cut the page into bands; each band reads its left column, then its right."""
    spanning = sorted((ln for ln in lines if ln.column == -1), key=lambda ln: -ln.y0)
    columns = [ln for ln in lines if ln.column != -1]
    out: list[Line] = []
    top = float("inf")
    for cut in [*spanning, None]:
        bottom = cut.y0 if cut is not None else float("-inf")
        band = [ln for ln in columns if bottom < ln.y0 <= top]
        out.extend(sorted(band, key=lambda ln: (ln.column, -ln.y0, ln.x0)))
        if cut is not None:
            out.append(cut)
            top = cut.y0
    return out


def read_pages(path: str, max_pages: int) -> list[Page]:
    """Every page's lines (at most `max_pages` pages), in reading order, margins not yet cleaned."""
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LAParams

    pages = []
    for number, layout in enumerate(extract_pages(path, laparams=LAParams(all_texts=True), maxpages=max_pages)):
        frags = list(_fragments(layout))
        pages.append(Page(number, layout.width, layout.height, tuple(_lines(frags, number, layout.width))))
    return pages


def body_size(pages: list[Page]) -> float:
    """The font size most characters are set in."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            sizes[line.size] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def _margin_key(text: str) -> str:
    return re.sub(r"\d+", "#", text.lower())


def drop_margins(pages: list[Page], size: float) -> list[Page]:
    """Without page numbers, running heads and footers: margin lines that are numbers, small or repeated."""
    in_margin = [[ln for ln in p.lines if ln.y1 < p.height * MARGIN or ln.y0 > p.height * (1 - MARGIN)] for p in pages]
    repeats = Counter(key for lines in in_margin for key in {_margin_key(ln.text) for ln in lines})
    out = []
    for page, margin in zip(pages, in_margin, strict=True):
        drop = {id(ln) for ln in margin if _PAGE_NUMBER.match(ln.text) or ln.size < size - 0.4
                or (len(pages) > 2 and repeats[_margin_key(ln.text)] > 1)}
        out.append(Page(page.number, page.width, page.height, tuple(ln for ln in page.lines if id(ln) not in drop)))
    return out

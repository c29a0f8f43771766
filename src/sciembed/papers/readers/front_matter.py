"""Proceedings front matter (prefaces, committees, tables of contents, indexes) is no paper: rejected as `FRONT_MATTER`.

The evidence (paper 0 of an ACL volume, a front-matter or over-long title, two front-matter headings) is listed
in docs/ingest.md ("Front matter"). A title opening "Proceedings of the …" alone is not enough: GROBID gives
that title to real papers whose first line is the running header.
"""

from __future__ import annotations

import re

from sciembed.papers.model import Paper
from sciembed.papers.readers.id_policy import acl_id

FRONT_MATTER = "front_matter"
MAX_TITLE_CHARS = 300
MIN_FRONT_HEADINGS = 2
_TITLE = re.compile(r"^(?:preface\b|table of contents\b|foreword\b|author index\b|"
                    r"organi[sz]ing committee\b|program(?:me)? committee\b)", re.IGNORECASE)
_HEADING = re.compile(r"^(?:preface\b|table of contents\b|organi[sz]ing committee\b|program(?:me)? committee\b|"
                      r"program(?:me)? co-chairs\b|author index\b|conference program\b|primary reviewers\b|"
                      r"secondary reviewers\b|invited (?:speakers?|talks?)\b|sponsors?\b|outstanding papers\b|"
                      r"area chairs\b)", re.IGNORECASE)
_OLD_NUMBER = re.compile(r"^([A-Z])\d{2}-\d(\d{3})$")


def _volume_front(acl: str) -> bool:
    """Paper number 0 of its volume: the Anthology's id for a volume's front matter."""
    old = _OLD_NUMBER.match(acl)
    if old:
        return old.group(2).endswith("00") if old.group(1) == "W" else old.group(2) == "000"
    return acl.endswith(".0")


def front_matter_reason(paper: Paper) -> str | None:
    """Why `paper` is front matter (every piece of evidence, "; "-joined), else None."""
    found = []
    acl = acl_id(paper.id) or acl_id(paper.external_ids.acl)
    if acl and _volume_front(acl):
        found.append(f"ACL Anthology id {acl} is paper 0 of its volume")
    title = paper.title or ""
    if len(title) > MAX_TITLE_CHARS:
        found.append(f"a {len(title):,}-character title (a table of contents read as a title): {title[:60]!r}…")
    elif _TITLE.match(title):
        found.append(f"the title {title[:60]!r} is a front-matter title")
    headings = [s.heading for s in paper.sections if _HEADING.match(s.heading or "")]
    if len(headings) >= MIN_FRONT_HEADINGS:
        found.append(f"{len(headings)} front-matter headings: {', '.join(repr(h[:40]) for h in headings[:3])}")
    return "; ".join(found) or None

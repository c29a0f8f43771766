"""Authors as the readers find them: a name from its parts, affiliations joined, values made safe to store.

`clean_authors` (called by `sections.finalize`) drops what no table could store, so an author never turns an
accepted paper into a rejected one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sciembed.papers.model import Author
from sciembed.papers.text_cleaning import clean_inline

AFFILIATION_SEPARATOR = "; "


def person_name(*parts: str | None) -> str:
    """"Given Middle Surname Suffix" from the non-empty parts, one line."""
    return clean_inline(" ".join(p for p in parts if p and p.strip()))


def join_affiliations(names: Iterable[str | None]) -> str | None:
    """Distinct non-empty affiliations in order, "; "-joined; None when there are none."""
    kept = list(dict.fromkeys(a for a in (clean_inline(n) for n in names) if a))
    return AFFILIATION_SEPARATOR.join(kept) or None


def _encodable(text: str | None) -> bool:
    try:
        (text or "").encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def clean_authors(authors: Iterable[Author]) -> tuple[Author, ...]:
    """Names and affiliations on one line; nameless or unstorable (lone surrogate) authors left out."""
    kept = []
    for author in authors:
        name, affiliation = clean_inline(author.name), clean_inline(author.affiliation) or None
        if name and _encodable(name) and _encodable(affiliation):
            kept.append(Author(name, affiliation))
    return tuple(kept)


def authors_from_json(value: Any) -> tuple[Author, ...] | None:
    """Authors from JSON as datasets write them: a list of names, of {name, affiliation(s)} objects, of S2ORC
    name parts ({first, middle, last, suffix, affiliation}); None when the value is none of these shapes."""
    if not isinstance(value, list):
        return None
    found = []
    for item in value:
        if isinstance(item, str):
            found.append(Author(item))
        elif isinstance(item, dict):
            name = item.get("name")
            if not isinstance(name, str) or not name.strip():
                middle = item.get("middle")
                middle = " ".join(m for m in middle if isinstance(m, str)) if isinstance(middle, list) else middle
                parts = [item.get("first"), middle, item.get("last"), item.get("suffix")]
                if not all(p is None or isinstance(p, str) for p in parts):
                    return None
                name = person_name(*parts)
            found.append(Author(name, _affiliation(item.get("affiliation", item.get("affiliations")))))
        else:
            return None
    return tuple(found)


def _affiliation(value: Any) -> str | None:
    """An affiliation given as text, a list of texts or objects, or S2ORC's {laboratory, institution, location}."""
    if isinstance(value, str):
        return clean_inline(value) or None
    if isinstance(value, list):
        return join_affiliations(_affiliation(v) for v in value)
    if isinstance(value, dict):
        for key in ("institution", "name", "laboratory"):
            if isinstance(value.get(key), str) and value[key].strip():
                return clean_inline(value[key])
    return None

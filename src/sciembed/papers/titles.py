"""Title keys for query self-exclusion and benchmark matching: the `norm_title` DuckDB macro of
`sciembed.corpus.keys` in plain Python (exclusion runs per query, where a DuckDB connection per title would
dominate the search time)."""

from __future__ import annotations

import string
import unicodedata
from collections import defaultdict
from collections.abc import Iterable

_ASCII_PUNCTUATION = str.maketrans(string.punctuation, " " * len(string.punctuation))  # all Unicode P or S


def title_key(title: str | None) -> str:
    """"Attention Is All You Need!" -> "attention is all you need"; "" when nothing is left."""
    if not title:
        return ""
    if title.isascii():  # no accents to strip; a translation table folds punctuation in one pass (6× faster)
        return " ".join(title.lower().translate(_ASCII_PUNCTUATION).split())
    text = unicodedata.normalize("NFKD", title.lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = "".join(" " if unicodedata.category(c)[0] in "PS" else c for c in text)
    return " ".join(text.split())


class TitleTwins:
    """Papers sharing a normalised title: a query paper must not retrieve any of them (`add` / `remove` keep
    a live collection's current)."""

    def __init__(self, titles: Iterable[tuple[str, str]] = ()) -> None:
        self._key_of: dict[str, str] = {}
        self._ids_of: dict[str, list[str]] = defaultdict(list)  # key -> ids, in the order added
        for pid, title in titles:
            self.add(pid, title)

    def add(self, paper_id: str, title: str | None) -> None:
        """Add a paper, or replace its title."""
        self.remove(paper_id)
        key = self._key_of[paper_id] = title_key(title)
        if key:
            self._ids_of[key].append(paper_id)

    def remove(self, paper_id: str) -> None:
        key = self._key_of.pop(paper_id, "")
        if key:
            twins = self._ids_of[key]
            twins.remove(paper_id)
            if not twins:
                del self._ids_of[key]

    def excluded(self, paper_id: str, title: str | None = None) -> list[str]:
        """The query's own id plus every paper whose title key equals the query's."""
        key = title_key(title) if title is not None else self._key_of.get(paper_id, "")
        return list(dict.fromkeys([paper_id, *(self._ids_of.get(key, ()) if key else ())]))

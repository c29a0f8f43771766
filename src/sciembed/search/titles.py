"""Title keys for query self-exclusion and benchmark matching.

The same folding as the `norm_title` DuckDB macro of `sciembed.corpus.keys`
(lower case, accents stripped, punctuation and symbols to spaces, whitespace
collapsed), in plain Python: exclusion runs per query, where opening a DuckDB
connection per title would dominate the search time.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Iterable


def title_key(title: str | None) -> str:
    """"Attention Is All You Need!" -> "attention is all you need"; "" when nothing is left."""
    if not title:
        return ""
    text = unicodedata.normalize("NFKD", title.lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = "".join(" " if unicodedata.category(c)[0] in "PS" else c for c in text)
    return " ".join(text.split())


class TitleTwins:
    """Papers sharing a normalised title: a query paper must not retrieve any of them."""

    def __init__(self, titles: Iterable[tuple[str, str]]) -> None:
        self._key_of: dict[str, str] = {}
        self._ids_of: dict[str, list[str]] = defaultdict(list)
        for pid, title in titles:
            key = title_key(title)
            self._key_of[pid] = key
            if key:
                self._ids_of[key].append(pid)

    def excluded(self, paper_id: str, title: str | None = None) -> list[str]:
        """The query's own id plus every paper whose title key equals the query's."""
        key = title_key(title) if title is not None else self._key_of.get(paper_id, "")
        return list(dict.fromkeys([paper_id, *(self._ids_of.get(key, []) if key else [])]))

"""A paper named the way people name it: its id, any of its external ids, or else near ids and titles as hints.

Every ``--paper X`` and the server's ``/papers/{id}`` and ``/search`` go through `PaperLookup.resolve`: the id
as given, in another letter case when only one paper has it, or an external id (DOI, arXiv without version,
ACL, PMC, PubMed, S2, OpenAlex) held by exactly one paper; else `UnknownPaperError` suggests near ids and
titles. External ids are loaded on a miss only, from a served collection's catalog or the index's corpus.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

from sciembed.errors import SciembedInputError
from sciembed.papers.readers import ids as id_spelling
from sciembed.papers.readers.id_policy import acl_id

MAX_SUGGESTIONS = 5
_WORDS = re.compile(r"[a-z0-9]{3,}")
_SPELL = {"doi": id_spelling.doi, "arxiv": id_spelling.arxiv, "pmc": id_spelling.pmc, "openalex": id_spelling.openalex}
ExternalRows = Iterable[tuple[str, Mapping[str, Any]]]  # (paper id, {kind: value})


class UnknownPaperError(SciembedInputError, KeyError):
    """No paper has the given id or external id; the message names near ids and titles."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _keys(kind: str, value: Any) -> list[str]:
    """The spellings under which an external id of `kind` is found (lower-cased)."""
    if value in (None, ""):
        return []
    text = str(value).strip()
    spelled = _SPELL[kind](text) if kind in _SPELL else text
    out = {text.lower(), (spelled or text).lower()}
    if kind == "acl" and acl_id(text):
        out.add(acl_id(text).lower())
    return sorted(out)


def _query_keys(key: str) -> set[str]:
    """The spellings under which `key` may be any kind of external id."""
    return set().union(*(_keys(kind, key) for kind in (*_SPELL, "acl")))


class PaperLookup:
    """Resolves what a user typed to a paper id of `titles` (id -> title); external ids loaded on first need."""

    def __init__(self, titles: Mapping[str, str], external: Callable[[], ExternalRows] | None = None,
                 where: str = "the index") -> None:
        self.titles, self._external, self.where = titles, external, where
        self._by_external: dict[str, set[str]] | None = None

    def _external_index(self) -> dict[str, set[str]]:
        if self._by_external is None:
            self._by_external = {}
            for pid, found in (self._external() if self._external else ()):
                if pid not in self.titles:
                    continue
                for kind, value in found.items():
                    for spelled in _keys(kind, value):
                        self._by_external.setdefault(spelled, set()).add(pid)
        return self._by_external

    def find(self, key: str) -> str | None:
        """The one paper id `key` names, else None."""
        if key in self.titles:
            return key
        folded = key.strip().lower()
        same = [p for p in self.titles if p.lower() == folded] if folded else []
        if len(same) == 1:
            return same[0]
        index = self._external_index()
        hits = set().union(*(index.get(k, set()) for k in _query_keys(key))) if folded else set()
        return next(iter(hits)) if len(hits) == 1 else None

    def resolve(self, key: str) -> str:
        found = self.find(key)
        if found is None:
            raise UnknownPaperError(self.message(key))
        return found

    def suggestions(self, key: str, n: int = MAX_SUGGESTIONS) -> list[str]:
        """Ids near `key` (as strings, any case), then ids whose titles share the most words with it."""
        lowered = {p.lower(): p for p in self.titles}
        near = [lowered[p] for p in difflib.get_close_matches(key.strip().lower(), list(lowered), n, 0.6)]
        words = set(_WORDS.findall(key.lower()))
        if words and len(near) < n:
            scored = sorted(((len(words & set(_WORDS.findall((t or "").lower()))), p)
                             for p, t in self.titles.items()), key=lambda x: (-x[0], x[1]))
            near += [p for score, p in scored if score and p not in near][: n - len(near)]
        return near

    def message(self, key: str) -> str:
        shown = "; ".join(f"{p} ({self.titles.get(p, '')[:70]!r})" for p in self.suggestions(key))
        external = "" if self._external is not None else " (no external ids known here)"
        return (f"no paper {key!r} in {self.where} ({len(self.titles):,} papers) by id or external id "
                f"(DOI, arXiv, ACL, PMC, PubMed, S2, OpenAlex){external}"
                + (f"; did you mean: {shown}" if shown else ""))


def corpus_external_ids(manifest: Mapping[str, Any]) -> Callable[[], ExternalRows] | None:
    """The external ids of the corpus an index's manifest names (None when that corpus is not there)."""
    corpus = manifest.get("corpus")
    path = Path(corpus) / "papers.parquet" if corpus else None
    if path is None or not path.is_file():
        return None

    def rows() -> ExternalRows:
        import pyarrow.parquet as pq

        table = pq.read_table(path, columns=["id", "external_ids"]).to_pydict()
        return [(pid, ext or {}) for pid, ext in zip(table["id"], table["external_ids"], strict=True)]

    return rows


def corpus_lookup(corpus: str | Path) -> PaperLookup:
    """A lookup over a corpus directory's ``papers.parquet`` (`corpus inspect --paper`, `prism --paper`)."""
    import pyarrow.parquet as pq

    from sciembed.corpus.layout import PAPERS_FILE, CorpusDir

    CorpusDir(corpus).require(PAPERS_FILE)  # a CorpusError naming what is missing
    path = Path(corpus) / PAPERS_FILE
    table = pq.read_table(path, columns=["id", "title"]).to_pydict()
    titles = dict(zip(table["id"], table["title"], strict=True))
    return PaperLookup(titles, corpus_external_ids({"corpus": str(corpus)}), str(path))


def papers_lookup(papers: Mapping[str, Any], where: str = "the corpus") -> PaperLookup:
    """A lookup over loaded `Paper`s (id -> Paper): their titles and external ids."""
    return PaperLookup({pid: p.title for pid, p in papers.items()},
                       lambda: [(pid, p.external_ids.to_dict()) for pid, p in papers.items()], where)


def catalog_external_ids(path: Path) -> Callable[[], ExternalRows]:
    """The external ids in a served collection's catalog (``collection.sqlite``)."""

    def rows() -> ExternalRows:
        from sciembed.index.catalog import Catalog

        with closing(Catalog(path)) as catalog:
            return catalog.external_ids()

    return rows


def index_lookup(titles: Mapping[str, str], indexes: Iterable[tuple[Path, Mapping[str, Any]]]) -> PaperLookup:
    """A lookup over index directories ((path, manifest) each): a catalog's external ids, else its corpus'."""
    from sciembed.index.catalog import CATALOG

    sources = [catalog_external_ids(path / CATALOG) if (path / CATALOG).is_file() else corpus_external_ids(manifest)
               for path, manifest in indexes]
    found = [s for s in sources if s is not None]

    def rows() -> ExternalRows:
        return [row for source in found for row in source()]

    return PaperLookup(titles, rows if found else None, "the index" if len(sources) == 1 else "the indexes")


def resolve_all(keys: list[str], lookup: PaperLookup) -> list[str]:
    """Every key as a paper id; one error naming each unknown key (the first few) with its suggestions."""
    found = [lookup.find(k) for k in keys]
    missing = [k for k, f in zip(keys, found, strict=True) if f is None]
    if not missing:
        return [f for f in found if f is not None]
    if len(keys) == 1:
        raise UnknownPaperError(lookup.message(keys[0]))
    details = " | ".join(lookup.message(k) for k in missing[:3])
    raise UnknownPaperError(f"{len(missing)} of {len(keys)} query papers are in none of the indexes: {details}")

"""JATS / NLM XML (PMC ``.nxml``, eLife, PLOS), parsed without DTD, entities or network.

Only the main ``<article>``'s own ``<body>`` is body (not eLife's ``<sub-article>`` letters). Nested ``<sec>``s
are flattened in document order; ``sec-type`` and the parent's heading give the role where the own heading says
nothing. The id is the PMC id, else the file stem; DOI and PMID are external ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from lxml import etree

from sciembed.papers.model import Paper, Reference, Section, SectionRole
from sciembed.papers.readers import ids
from sciembed.papers.readers.records import Record
from sciembed.papers.readers.source import file_stem, read_xml_documents
from sciembed.papers.readers.xml_authors import jats_authors
from sciembed.papers.readers.xmltext import child, children, descendants, find_path, ids_by_type, local, text_of
from sciembed.papers.roles import role_of
from sciembed.papers.text_cleaning import clean_inline, clean_paragraphs

FORMAT = "jats"
_SKIP = (
    "fig", "fig-group", "table-wrap", "table-wrap-group", "disp-formula", "disp-formula-group", "inline-formula",
    "tex-math", "math", "graphic", "media", "supplementary-material", "object-id", "alternatives", "fn",
)  # fmt: skip
_BLOCKS = ("p", "list-item", "title", "label", "td", "th", "tr", "def-item", "term", "def", "break")
_TEXT_BLOCKS = ("p", "list", "disp-quote", "statement", "def-list", "boxed-text", "verse-group", "speech")
# sec-type values that mark back matter placed inside <body>.
_BACK_SEC_TYPES = frozenset({"supplementary-material", "data-availability", "coi-statement", "funding-information",
                             "author-contributions"})
_ARTICLE_TYPE_SUBJECT = re.compile(
    r"\b(article|report|editorial|review|letter|commentary|insight|correction|research|perspective|feature)s?\b", re.I)
_MINOR_ABSTRACTS = frozenset({"executive-summary", "summary", "author-summary", "teaser", "toc", "graphical",
                              "web-summary", "short", "precis"})


def matches_root(tag: str) -> bool:
    return tag.rsplit("}", 1)[-1] in ("article", "pmc-articleset")


def read(path: Path, name: str) -> Iterator[Record]:
    return read_xml_documents(path, name, _articles, parse)


def _articles(root: etree._Element) -> list[etree._Element] | str:
    """The root ``<article>``, or those of a ``<pmc-articleset>``; why there are none otherwise."""
    articles = [root] if local(root) == "article" else children(root, "article")
    return articles or f"no <article> under <{local(root)}>"


def _abstract(meta: etree._Element | None) -> str:
    abstracts = children(meta, "abstract")
    main = next((a for a in abstracts if (a.get("abstract-type") or "") not in _MINOR_ABSTRACTS), None)
    if main is None:
        return ""
    paragraphs = [text_of(p, (*_SKIP, "title", "label"), _BLOCKS) for p in descendants(main, "p")]
    return clean_paragraphs(paragraphs) or clean_inline(text_of(main, (*_SKIP, "title", "label"), _BLOCKS))


def _year(meta: etree._Element | None) -> int | None:
    dates = children(meta, "pub-date")
    for kind in ("epub", "ppub", "pub", "epub-ppub", "collection", None):
        for date in dates:
            if kind is None or kind in (date.get("pub-type"), date.get("date-type")):
                found = ids.year(date.findtext("year") or "")
                if found:
                    return found
    # no publication date: any other date of the article's metadata (history, copyright year)
    for el in (*descendants(find_path(meta, "history"), "year"), child(find_path(meta, "permissions"),
                                                                        "copyright-year")):
        found = ids.year(el.text or "") if el is not None else None
        if found:
            return found
    return None


def _venue(article: etree._Element) -> str | None:
    """Journal title, else the conference name, else the publisher."""
    for element in (
        next(iter(descendants(find_path(article, "front", "journal-meta"), "journal-title")), None),
        next(iter(descendants(find_path(article, "front", "article-meta", "conference"), "conf-name")), None),
        find_path(article, "front", "journal-meta", "publisher", "publisher-name"),
    ):
        text = clean_inline(text_of(element)) if element is not None else ""
        if text:
            return text
    return None


def _fields(meta: etree._Element | None) -> tuple[str, ...]:
    """Discipline subjects first (PLOS), then heading subjects that name a field, not an article type (eLife)."""
    groups = descendants(find_path(meta, "article-categories"), "subj-group")
    disciplines, headings = [], []
    for group in groups:
        kind = (group.get("subj-group-type") or "").lower()
        subjects = [clean_inline(text_of(s)) for s in children(group, "subject")]
        if kind.startswith("discipline"):
            disciplines.extend(subjects)
        elif kind == "heading":
            headings.extend(s for s in subjects if not _ARTICLE_TYPE_SUBJECT.search(s))
    return tuple(dict.fromkeys(s for s in (*disciplines, *headings) if s))


def _sec_hint(sec: etree._Element, parent_role: SectionRole) -> SectionRole:
    sec_type = (sec.get("sec-type") or "").replace("|", " ").replace("-", " ")
    hint = role_of(sec_type) if sec_type else SectionRole.OTHER
    return hint if hint is not SectionRole.OTHER else parent_role


def _sections(container: etree._Element, parent_role: SectionRole, out: list[Section]) -> None:
    for sec in children(container, "sec"):
        if (sec.get("sec-type") or "").lower() in _BACK_SEC_TYPES:
            continue
        heading = clean_inline(text_of(child(sec, "title"), _SKIP))
        label = clean_inline(text_of(child(sec, "label"))) or None
        hint = _sec_hint(sec, parent_role)
        text = clean_paragraphs(text_of(b, _SKIP, _BLOCKS) for b in sec if local(b) in _TEXT_BLOCKS)
        out.append(Section(heading, text, hint, label))
        own = role_of(heading)
        _sections(sec, own if own is not SectionRole.OTHER else hint, out)


def _body(article: etree._Element) -> tuple[Section, ...]:
    body = child(article, "body")  # the article's own body: never a <sub-article>'s
    if body is None:
        return ()
    out: list[Section] = []
    loose = clean_paragraphs(text_of(b, _SKIP, _BLOCKS) for b in body if local(b) in _TEXT_BLOCKS)
    if loose:
        out.append(Section("", loose))
    _sections(body, SectionRole.OTHER, out)
    return tuple(out)


def parse(article: etree._Element, name: str) -> Paper:
    meta = find_path(article, "front", "article-meta")
    found = ids_by_type(children(meta, "article-id"), "pub-id-type")
    pmc = ids.pmc(found.get("pmc") or found.get("pmcid"))
    return Paper(  # the id is the source's own (PMC id, else file stem); a DOI is an external id (`id_policy.py`)
        id=pmc or file_stem(name, (".gz", ".xml", ".nxml")),
        title=clean_inline(text_of(find_path(meta, "title-group", "article-title"), ("xref", "fn"))),
        abstract=_abstract(meta), sections=_body(article),
        references=tuple(_reference(r) for r in descendants(child(article, "back"), "ref")), venue=_venue(article),
        authors=jats_authors(meta), year=_year(meta), fields_of_study=_fields(meta),
        external_ids=ids.external_ids(doi_=ids.doi(found.get("doi")), pmid_=found.get("pmid"), pmc_=pmc,
                                      arxiv_=found.get("arxiv")),
        source=f"{FORMAT}:{name}")


def _reference(ref: etree._Element) -> Reference:
    citation = next((c for c in ref if local(c) in ("element-citation", "mixed-citation", "citation", "nlm-citation")),
                    None)
    if citation is None:
        return Reference(raw=clean_inline(text_of(ref, ("label",), _BLOCKS)) or None)
    pub_ids = {(p.get("pub-id-type") or "").lower(): (p.text or "").strip() for p in descendants(citation, "pub-id")}
    title_el = next((t for t in citation if local(t) in ("article-title", "chapter-title")), None)
    if title_el is None:
        title_el = child(citation, "source")
    return Reference(title=clean_inline(text_of(title_el)) or None, year=ids.year(citation.findtext("year") or ""),
                     raw=clean_inline(text_of(citation, (), (*_BLOCKS, "name", "person-group", "source", "year")))
                     or None,
                     external_ids=ids.external_ids(doi_=pub_ids.get("doi"), pmid_=pub_ids.get("pmid"),
                                                   pmc_=pub_ids.get("pmcid"), arxiv_=pub_ids.get("arxiv")))

"""GROBID TEI XML: header metadata, flat body ``<div>``s, ``<back>`` as back matter.

GROBID keeps the section hierarchy only in ``head/@n`` ("2.1"); the body is read in document order, nested
divs (other producers) flattened. Nothing in ``<back>`` becomes body text; its ``biblStruct``s become
references. Ids follow `id_policy.py`; line-end hyphens are joined (`papers/dehyphen.py`). Venue: the
``monogr`` title, else the meeting, else the publisher; year: the publication dates, else any ``fileDesc`` date.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lxml import etree

from sciembed.papers.dehyphen import join_paper_hyphens
from sciembed.papers.model import Paper, Reference, Section
from sciembed.papers.readers import id_policy, ids
from sciembed.papers.readers.records import Record
from sciembed.papers.readers.source import file_stem, read_xml_documents
from sciembed.papers.readers.xml_authors import tei_authors
from sciembed.papers.readers.xmltext import child, children, descendants, find_path, ids_by_type, local, text_of
from sciembed.papers.text_cleaning import clean_inline, clean_paragraphs
from sciembed.papers.venues import short_venue

FORMAT = "tei"
TEI_NS = "http://www.tei-c.org/ns/1.0"
_SKIP = ("figure", "table", "note", "formula", "graphic")
_BLOCKS = ("item", "cell", "row", "lb")


def matches_root(tag: str) -> bool:
    return tag == f"{{{TEI_NS}}}TEI" or tag in ("TEI", "teiCorpus", f"{{{TEI_NS}}}teiCorpus")


def read(path: Path, name: str) -> Iterator[Record]:
    return read_xml_documents(path, name, _documents, parse)


def _documents(root: etree._Element) -> list[etree._Element] | str:
    """The root ``<TEI>``, or those of a ``<teiCorpus>``; why the root is not TEI otherwise."""
    if not matches_root(str(root.tag)):
        return f"root is <{local(root)}>, not <TEI>"
    return children(root, "TEI") if local(root) == "teiCorpus" else [root]


def _title(el: etree._Element | None, *levels: str) -> str:
    titles = descendants(el, "title")
    for level in levels:
        for t in titles:
            if t.get("level") == level and t.get("type") in (None, "main"):
                return clean_inline(text_of(t))
    return clean_inline(text_of(titles[0])) if titles else ""


def _when(el: etree._Element | None) -> int | None:
    return next(filter(None, (ids.year(d.get("when") or d.text or "") for d in descendants(el, "date"))), None)


def _venue(monogr: etree._Element | None, publication: etree._Element | None) -> str | None:
    """Journal / proceedings title, else the meeting's name (its address left out), else the publisher."""
    publishers = (clean_inline(text_of(child(b, "publisher"))) for b in (publication, child(monogr, "imprint")))
    return (_title(monogr, "j", "m") or clean_inline(text_of(child(monogr, "meeting"), ("address",)))
            or next(filter(None, publishers), None))


def _paragraphs(div: etree._Element) -> list[str]:
    return [text_of(p, _SKIP, _BLOCKS) for p in div.iterchildren("{*}p", "{*}list", "{*}quote")]


def _body_sections(body: etree._Element | None) -> list[Section]:
    sections: list[Section] = []
    loose: list[str] = []  # paragraphs directly under <body>, outside any div
    for node in [] if body is None else body.iter("{*}p", "{*}div"):  # filtered in libxml2, not per element
        name = local(node)
        if name == "p" and node.getparent() is body:
            loose.append(text_of(node, _SKIP, _BLOCKS))
        elif name == "div":
            head = child(node, "head")
            heading = clean_inline(text_of(head, _SKIP)) if head is not None else ""
            number = head.get("n") if head is not None else None
            sections.append(Section(heading, clean_paragraphs(_paragraphs(node)), number=number))
    if loose:
        sections.insert(0, Section("", clean_paragraphs(loose)))
    return sections


def parse(root: etree._Element, name: str) -> Paper:
    header = child(root, "teiHeader")
    source_desc = find_path(header, "fileDesc", "sourceDesc")
    title_stmt = find_path(header, "fileDesc", "titleStmt")
    abstract = find_path(header, "profileDesc", "abstract")
    text = child(root, "text")
    found = ids_by_type(descendants(source_desc, "idno"), "type")
    monogr = next(iter(descendants(source_desc, "monogr")), None)
    venue = _venue(monogr, find_path(header, "fileDesc", "publicationStmt"))
    meeting = clean_inline(text_of(child(monogr, "meeting"), ("address",)))
    stem = file_stem(name, (".gz", ".xml", ".tei"))
    abstract_text, sections = join_paper_hyphens(
        clean_paragraphs(text_of(p, _SKIP, _BLOCKS) for p in descendants(abstract, "p"))
        or clean_inline(text_of(abstract, _SKIP)), _body_sections(child(text, "body")))
    paper = Paper(
        id=stem, title=_title(title_stmt, "a") or _title(source_desc, "a"), abstract=abstract_text,
        sections=sections, references=tuple(_reference(b) for b in descendants(child(text, "back"), "biblStruct")),
        venue=venue, venue_short=short_venue([venue, meeting], [stem]), authors=tei_authors(source_desc),
        year=_when(find_path(header, "fileDesc", "publicationStmt")) or _when(monogr)
        or _when(child(header, "fileDesc")),
        source=f"{FORMAT}:{name}")
    header_ids = ids.external_ids(doi_=ids.doi(found.get("doi")), arxiv_=found.get("arxiv"), pmid_=found.get("pmid"),
                                  pmc_=found.get("pmcid"))
    return id_policy.with_source_ids(paper, name, header_ids)


def _reference(bibl: etree._Element) -> Reference:
    found = ids_by_type(descendants(bibl, "idno"), "type")
    analytic, monogr, raw = _bibl_parts(bibl)
    title = _title(analytic, "a") if analytic is not None else ""
    return Reference(title=title or _title(monogr, "m", "j") or None, year=_when(monogr),
                     raw=clean_inline(text_of(raw)) or None,
                     external_ids=ids.external_ids(doi_=found.get("doi"), arxiv_=found.get("arxiv"),
                                                   pmid_=found.get("pmid"), pmc_=found.get("pmcid")))


def _bibl_parts(bibl: etree._Element) -> tuple[etree._Element | None, ...]:
    """The first ``analytic``, ``monogr`` and raw-reference ``note`` children of a ``biblStruct``, in one pass
    (three `iterchildren` lookups cost more than the rest of the reference)."""
    analytic = monogr = raw = None
    for part in bibl:
        name = local(part)
        if name == "analytic":
            analytic = part if analytic is None else analytic
        elif name == "monogr":
            monogr = part if monogr is None else monogr
        elif name == "note" and raw is None and part.get("type") == "raw_reference":
            raw = part
    return analytic, monogr, raw

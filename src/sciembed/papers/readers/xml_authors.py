"""Authors and affiliations from the XML headers: GROBID TEI ``analytic/author``, JATS ``contrib-group``.

TEI affiliations are each ``<affiliation>``'s ``orgName type="institution"`` (else its first ``orgName``); JATS
ones the ``aff``s a contrib's ``xref ref-type="aff"`` point to or that lie inside it (their ``institution``s,
else their text without the label).
"""

from __future__ import annotations

from lxml import etree

from sciembed.papers.authors import join_affiliations, person_name
from sciembed.papers.model import Author
from sciembed.papers.readers.xmltext import child, children, descendants, local, text_of


def _tei_affiliation(affiliation: etree._Element) -> list[str]:
    orgs = children(affiliation, "orgName")
    institutions = [text_of(o) for o in orgs if o.get("type") == "institution"]
    return institutions or [text_of(o) for o in orgs[:1]]


def tei_authors(source_desc: etree._Element | None) -> tuple[Author, ...]:
    """The paper's authors from a TEI header's ``sourceDesc`` (GROBID puts them in ``biblStruct/analytic``)."""
    analytic = next(iter(descendants(source_desc, "analytic")), None)
    found = []
    for author in children(analytic, "author"):
        pers = child(author, "persName")
        if pers is None:
            continue
        name = person_name(*(text_of(f) for f in children(pers, "forename")),
                           *(text_of(s) for s in children(pers, "surname")))
        affiliations = [a for aff in children(author, "affiliation") for a in _tei_affiliation(aff)]
        found.append(Author(name, join_affiliations(affiliations)))
    return tuple(found)


def _jats_affiliation(aff: etree._Element) -> str:
    institutions = [text_of(i) for i in descendants(aff, "institution")]
    if institutions:
        return ", ".join(dict.fromkeys(t.strip() for t in institutions if t.strip()))
    return text_of(aff, ("label", "sup"))


def jats_authors(meta: etree._Element | None) -> tuple[Author, ...]:
    """The article's authors from JATS ``article-meta`` (editors and reviewers left out)."""
    affs = {aff.get("id"): _jats_affiliation(aff) for aff in descendants(meta, "aff") if aff.get("id")}
    found = []
    for group in children(meta, "contrib-group"):
        for contrib in children(group, "contrib"):
            if (contrib.get("contrib-type") or "author") != "author":
                continue
            name_el = child(contrib, "name")
            if name_el is not None:
                name = person_name(text_of(child(name_el, "given-names")), text_of(child(name_el, "surname")),
                                   text_of(child(name_el, "suffix")))
            else:
                name = person_name(text_of(child(contrib, "collab")) or text_of(child(contrib, "string-name")))
            linked = [affs.get(x.get("rid"), "") for x in children(contrib, "xref") if x.get("ref-type") == "aff"]
            inside = [_jats_affiliation(a) for a in contrib.iter() if local(a) == "aff"]
            found.append(Author(name, join_affiliations([*linked, *inside])))
    return tuple(found)

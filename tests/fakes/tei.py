"""A tiny GROBID-shaped TEI document for reader tests (ids, DOIs, front matter, hyphens)."""

from __future__ import annotations


def tei(title: str, doi: str | None = None, *, year: str = "2017", cited_doi: str | None = None,
        body: str = "We study citation graphs of papers in detail.") -> str:
    idno = f'<idno type="DOI">{doi}</idno>' if doi else ""
    ref = (f'<biblStruct><analytic><title level="a">A cited work</title></analytic><monogr><imprint>'
           f'<date when="2005"/></imprint></monogr><idno type="DOI">{cited_doi}</idno></biblStruct>'
           if cited_doi else "")
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<TEI xmlns="http://www.tei-c.org/ns/1.0"><teiHeader><fileDesc>
<titleStmt><title level="a" type="main">{title}</title></titleStmt>
<publicationStmt><date type="published" when="{year}">{year}</date></publicationStmt>
<sourceDesc><biblStruct><analytic><title level="a" type="main">{title}</title></analytic>
<monogr><imprint><date type="published" when="{year}"/></imprint></monogr>{idno}</biblStruct></sourceDesc>
</fileDesc><profileDesc><abstract><p>An abstract about graphs.</p></abstract></profileDesc></teiHeader>
<text><body><div><head n="1">Introduction</head><p>{body}</p></div></body>
<back><div type="references"><listBibl>{ref}</listBibl></div></back></text></TEI>"""

"""A tiny GROBID-shaped TEI document for reader tests (ids, DOIs, front matter, hyphens)."""

from __future__ import annotations

from pathlib import Path

# Three ACL-like papers whose ids, DOIs and titles the paper-lookup tests resolve (ids, case, DOIs, near titles).
LOOKUP_PAPERS = {"P17-1001": "Graph parsing with neural networks", "P17-1002": "Citation graphs of scientific papers",
                 "D18-1005": "Parsing citation contexts in papers"}


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


def lookup_corpus(root: Path) -> Path:
    """`LOOKUP_PAPERS` as TEI files (ACL DOIs) under `root`/tei, ingested into `root`/corpus; returns the corpus."""
    from sciembed.papers.ingest import ingest

    (root / "tei").mkdir()
    for stem, title in LOOKUP_PAPERS.items():
        body = f"{title}. We study graphs, citations and parsing of papers in detail for {stem}."
        (root / "tei" / f"{stem}.tei.xml").write_text(tei(title, f"10.18653/v1/{stem}", body=body))
    ingest([root / "tei"], root / "corpus", progress=False)
    return root / "corpus"

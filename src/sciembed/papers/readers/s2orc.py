"""S2ORC JSON in all its shapes.

- 2019-09-28 release: ``metadata{…}`` + ``grobid_parse`` / ``latex_parse`` (``"section": null`` everywhere, so
  header detection applies; where no paragraph is a heading the body is one unnamed section, since guessed
  splits would invent boundaries that section views then trust);
- 2020-07-05 ``pdf_parses``: flat ``abstract`` / ``body_text`` / ``bib_entries`` (no title: rejected as
  missing_title unless merged with the release's metadata record);
- s2orc-doc2json output: ``title`` + ``pdf_parse{…}`` (``back_matter`` is not body);
- Semantic Scholar Datasets (2023 on): ``content.text`` + ``content.annotations``, each annotation type a
  JSON-encoded list of ``{start, end, attributes}`` spans;
- the 2020 release's ``metadata`` records on their own (title + abstract, no body);
- peS2o (``id``, ``text``, ``source``, ``created``…): ``text`` is title, abstract and body paragraphs separated
  by blank lines, no section names (header detection finds them); ``s2ag`` records are title + abstract only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sciembed.papers import paragraph_sections as sec
from sciembed.papers.authors import authors_from_json
from sciembed.papers.model import Paper, Reference
from sciembed.papers.readers import ids
from sciembed.papers.readers.checks import dict_items, id_text, strings
from sciembed.papers.readers.jsonrecords import read_json_records
from sciembed.papers.readers.records import MISSING_ID, MISSING_TITLE, Loc, Record, Rejection
from sciembed.papers.text_cleaning import clean_inline, clean_paragraphs

FORMAT = "s2orc"
_RELEASE_BODY_KEYS = ("pdf_parse", "grobid_parse", "latex_parse", "body_text")
_RELEASE_METADATA_KEYS = ("mag_field_of_study", "outbound_citations", "has_pdf_parse", "s2_url")


def matches(obj: dict[str, Any]) -> bool:
    if (isinstance(obj.get("content"), dict) and "annotations" in obj["content"]) or _is_pes2o(obj):
        return True
    if "abstractText" in obj or "_source_hash" in obj or "paper_id" not in obj:
        return False
    return any(k in obj for k in _RELEASE_BODY_KEYS) or any(k in obj for k in _RELEASE_METADATA_KEYS)


def _is_pes2o(obj: dict[str, Any]) -> bool:
    return isinstance(obj.get("text"), str) and "id" in obj and "source" in obj and "sections" not in obj


def read(path: Path, name: str) -> Iterator[Record]:
    return read_json_records(path, name, parse)


def parse(obj: dict[str, Any], loc: Loc) -> Paper | Rejection:
    if isinstance(obj.get("content"), dict):
        return _parse_datasets(obj, loc)
    if _is_pes2o(obj):
        return _parse_pes2o(obj, loc)
    return _parse_release(obj, loc)


def _parse_pes2o(obj: dict[str, Any], loc: Loc) -> Paper | Rejection:
    paper_id = clean_inline(id_text(obj.get("id"), "id"))
    if not paper_id:
        return Rejection(loc, MISSING_ID, "record has no id")
    paragraphs = [p for p in (clean_inline(x) for x in obj["text"].split("\n\n")) if p]
    title, abstract = [*paragraphs[:2], "", ""][:2]
    return Paper(id=paper_id, title=title, abstract=abstract,
                 sections=sec.sections_from_paragraphs(sec.Paragraph(p) for p in paragraphs[2:]),
                 year=ids.year(obj.get("created")), external_ids=ids.external_ids(s2=paper_id),
                 source=f"{FORMAT}:{loc.file}")


# ------------------------------------------------------- 2019 / 2020 / doc2json


def _pick_parse(obj: dict[str, Any]) -> dict[str, Any]:
    for key in ("pdf_parse", "latex_parse", "grobid_parse"):
        part = obj.get(key)
        if isinstance(part, dict) and part.get("body_text"):
            return part
    for key in ("pdf_parse", "grobid_parse", "latex_parse"):
        if isinstance(obj.get(key), dict):
            return obj[key]
    return obj


def _paragraph_texts(items: Any) -> list[str]:
    return [p.get("text") or "" for p in items or [] if isinstance(p, dict)]


def _parse_release(obj: dict[str, Any], loc: Loc) -> Paper | Rejection:
    paper_id = clean_inline(id_text(obj.get("paper_id"), "paper_id"))
    if not paper_id:
        return Rejection(loc, MISSING_ID, "record has no paper_id")
    meta = obj["metadata"] if isinstance(obj.get("metadata"), dict) else obj
    if not clean_inline(meta.get("title")):
        hint = " (a 2020 pdf_parses record: titles are in the release's metadata files)" if "_pdf_hash" in obj else ""
        return Rejection(loc, MISSING_TITLE, f"record has no title{hint}", paper_id)
    part = _pick_parse(obj)
    abstract = meta.get("abstract")
    if not isinstance(abstract, str) or not abstract.strip():
        abstract = clean_paragraphs(_paragraph_texts(part.get("abstract") or obj.get("abstract")))
    paragraphs = [sec.Paragraph(p.get("text") or "", p.get("section"),
                                _str_or_none(p.get("sec_num") or p.get("sec_number")))
                  for p in part.get("body_text") or [] if isinstance(p, dict)]
    bib = part.get("bib_entries") or obj.get("bib_entries") or {}
    entries = bib.values() if isinstance(bib, dict) else bib
    doc2json = isinstance(obj.get("header"), dict)  # doc2json names papers after files, not S2 ids
    fields = meta.get("mag_field_of_study") or meta.get("fields_of_study") or meta.get("s2_fields_of_study") or []
    return Paper(
        id=paper_id, title=meta.get("title") or "", abstract=abstract or "",
        sections=sec.sections_from_paragraphs(paragraphs),
        references=tuple(_release_reference(b) for b in dict_items(entries, "bib_entries")),
        venue=meta.get("venue") or meta.get("journal") or None, authors=authors_from_json(meta.get("authors")) or (),
        year=ids.year(meta.get("year")), fields_of_study=strings(fields, "fields_of_study"),
        external_ids=ids.external_ids(doi_=meta.get("doi"), arxiv_=meta.get("arxiv_id"),
                                      s2=None if doc2json else paper_id, pmid_=meta.get("pubmed_id"),
                                      pmc_=meta.get("pmc_id"), acl=meta.get("acl_id")),
        source=f"{FORMAT}:{loc.file}")


def _str_or_none(value: Any) -> str | None:
    return None if value in (None, "") else str(value)


def _other_id(other: dict[str, Any], *keys: str) -> Any:
    lowered = {str(k).lower(): v for k, v in other.items()}
    return next((lowered[k] for k in keys if lowered.get(k)), None)


def _release_reference(entry: dict[str, Any]) -> Reference:
    other = entry.get("other_ids") if isinstance(entry.get("other_ids"), dict) else {}
    link = entry.get("link") or entry.get("links")
    return Reference(title=clean_inline(entry.get("title")) or None, year=ids.year(entry.get("year")),
                     raw=clean_inline(entry.get("raw_text")) or None,
                     external_ids=ids.external_ids(doi_=_other_id(other, "doi"), arxiv_=_other_id(other, "arxiv"),
                                                   s2=link, pmid_=_other_id(other, "pmid", "pubmed"),
                                                   pmc_=_other_id(other, "pmcid", "pmc")))


# ------------------------------------------------------ Semantic Scholar Datasets


def _spans(annotations: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """Spans of one annotation type, sorted by start; "section_header" and "sectionheader" both work."""
    wanted = kind.replace("_", "").lower()
    raw = next((v for k, v in annotations.items() if k.replace("_", "").lower() == wanted), None)
    if raw in (None, ""):
        return []
    spans = json.loads(raw) if isinstance(raw, str) else raw
    out = [{"start": int(s["start"]), "end": int(s["end"]), "attributes": s.get("attributes") or {}}
           for s in spans or []]
    return sorted((s for s in out if s["end"] > s["start"]), key=lambda s: (s["start"], s["end"]))


def _parse_datasets(obj: dict[str, Any], loc: Loc) -> Paper | Rejection:
    paper_id = clean_inline(id_text(obj.get("corpusid") or obj.get("corpusId") or obj.get("paper_id"), "corpusid"))
    if not paper_id:
        return Rejection(loc, MISSING_ID, "record has no corpusid")
    content = obj["content"]
    text = content.get("text") or ""
    annotations = content.get("annotations") or {}

    def cut(span: dict[str, Any]) -> str:
        return text[span["start"] : span["end"]]

    titles = _spans(annotations, "title")
    abstract_spans = _spans(annotations, "abstract")
    headers = _spans(annotations, "section_header")
    paragraphs = []
    h = -1
    for span in _spans(annotations, "paragraph"):
        if any(a["start"] <= span["start"] < a["end"] for a in abstract_spans):
            continue
        while h + 1 < len(headers) and headers[h + 1]["start"] < span["start"]:
            h += 1
        if not headers:
            section, number = None, None  # no names at all: header detection decides
        elif h < 0:
            section, number = "", None
        else:
            section, number = cut(headers[h]), _str_or_none(headers[h]["attributes"].get("n"))
        paragraphs.append(sec.Paragraph(cut(span), section, number))

    external = {str(k).lower(): v for k, v in (obj.get("externalids") or obj.get("externalIds") or {}).items()}
    fields = obj.get("s2fieldsofstudy") or obj.get("fieldsofstudy") or []
    venue = obj.get("venue") or next((cut(s) for s in _spans(annotations, "venue")), None)
    return Paper(
        id=paper_id, title=obj.get("title") or (cut(titles[0]) if titles else ""),
        abstract=clean_paragraphs(cut(s) for s in abstract_spans) or obj.get("abstract") or "",
        sections=sec.sections_from_paragraphs(paragraphs), references=tuple(_datasets_references(annotations, cut)),
        venue=venue or None, authors=authors_from_json(obj.get("authors")) or (), year=ids.year(obj.get("year")),
        fields_of_study=tuple(dict.fromkeys(strings([f.get("category") if isinstance(f, dict) else f for f in fields],
                                                    "s2fieldsofstudy"))),
        external_ids=ids.external_ids(doi_=external.get("doi"), arxiv_=external.get("arxiv"), s2=paper_id,
                                      pmid_=external.get("pubmed"), pmc_=external.get("pubmedcentral"),
                                      acl=external.get("acl")),
        source=f"{FORMAT}:{loc.file}")


def _datasets_references(annotations: dict[str, Any], cut: Any) -> Iterator[Reference]:
    titles = _spans(annotations, "bib_title")
    for entry in _spans(annotations, "bib_entry"):
        attrs = entry["attributes"]
        inside = [t for t in titles if entry["start"] <= t["start"] and t["end"] <= entry["end"]]
        raw = clean_inline(cut(entry))
        yield Reference(title=clean_inline(cut(inside[0])) if inside else None, year=ids.year(raw), raw=raw or None,
                        external_ids=ids.external_ids(doi_=attrs.get("doi"),
                                                      arxiv_=attrs.get("arxiv_id") or attrs.get("arxiv"),
                                                      s2=attrs.get("matched_paper_id"), pmid_=attrs.get("pmid")))

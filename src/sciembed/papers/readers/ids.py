"""One spelling per identifier kind, so references resolve across formats (the corpus builder matches on these
exact strings): DOIs lower-cased without resolver prefix, arXiv ids without "arXiv:" and version, PMC ids with
"PMC", OpenAlex ids the bare W-id."""

from __future__ import annotations

import re
from typing import Any

from sciembed.papers.model import ExternalIds

_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_ARXIV_PREFIX = re.compile(r"^(?:https?://arxiv\.org/(?:abs|pdf)/|arxiv:\s*)", re.IGNORECASE)
_ARXIV_VERSION = re.compile(r"v\d+$")
_OPENALEX = re.compile(r"(W\d+)$", re.IGNORECASE)
_YEAR = re.compile(r"\b(1[5-9]\d\d|2\d\d\d)\b")
_NO_IDS = ExternalIds()


def _first(value: Any) -> str | None:
    """A scalar from a value that may be a list (S2ORC `other_ids`), a number or empty."""
    if isinstance(value, list | tuple):
        value = next((v for v in value if v not in (None, "")), None)
    if value in (None, ""):
        return None
    text = str(value).strip()
    return text or None


def doi(value: Any) -> str | None:
    text = _first(value)
    return (_DOI_PREFIX.sub("", text).strip().lower() or None) if text else None


def arxiv(value: Any) -> str | None:
    text = _first(value)
    if not text:
        return None
    text = _ARXIV_PREFIX.sub("", text).strip()
    return _ARXIV_VERSION.sub("", text.removesuffix(".pdf")) or None


def pmc(value: Any) -> str | None:
    text = _first(value)
    if not text:
        return None
    digits = text.upper().removeprefix("PMC").strip()
    return f"PMC{digits}" if digits.isdigit() else None


def pmid(value: Any) -> str | None:
    text = _first(value)
    return text if text and text.isdigit() else None


def openalex(value: Any) -> str | None:
    text = _first(value)
    match = _OPENALEX.search(text) if text else None
    return match.group(1).upper() if match else None


def plain(value: Any) -> str | None:
    return _first(value)


def external_ids(*, doi_: Any = None, arxiv_: Any = None, s2: Any = None, pmid_: Any = None, pmc_: Any = None,
                 openalex_: Any = None, acl: Any = None) -> ExternalIds:
    """Build `ExternalIds` from raw values, normalising each kind."""
    if doi_ is arxiv_ is s2 is pmid_ is pmc_ is openalex_ is acl is None:  # most references carry none
        return _NO_IDS
    return ExternalIds(doi=doi(doi_), arxiv=arxiv(arxiv_), s2=plain(s2), pmid=pmid(pmid_), pmc=pmc(pmc_),
                       openalex=openalex(openalex_), acl=plain(acl))


def normalize(ids: ExternalIds) -> ExternalIds:
    """Re-spell ids that came from an untrusted source (the project's own JSONL)."""
    return external_ids(doi_=ids.doi, arxiv_=ids.arxiv, s2=ids.s2, pmid_=ids.pmid, pmc_=ids.pmc,
                        openalex_=ids.openalex, acl=ids.acl)


def year(value: Any) -> int | None:
    """A plausible publication year from an int, "2017", "2016-03-08" or "Thu, 22 Dec 2022 …"."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 1000 <= value <= 2999 else None
    if isinstance(value, str):
        match = _YEAR.search(value)
        return int(match.group(1)) if match else None
    return None

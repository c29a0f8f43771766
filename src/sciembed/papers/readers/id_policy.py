"""The paper id policy: the source's own id is the id; a DOI is an external id, and only a trusted one.

DOIs never become ids: GROBID writes into the header a DOI found anywhere on the first page or from a wrong
CrossRef match, so a header DOI is kept only when nothing speaks against it, offline; an untrusted one is
flagged ``untrusted_doi:<reason>:<doi>`` instead. The rules and reasons: docs/ingest.md ("Paper ids").
`SHARED_DOI` is applied by `papers/ingest.py` (`distrust_shared_dois`), after reading.
"""

from __future__ import annotations

import re
from dataclasses import replace

from sciembed.papers.model import ExternalIds, Paper
from sciembed.papers.venues import ACL_NEW_ID, ACL_OLD_ID, strip_suffixes

UNPARSEABLE = "unparseable"
TRAILING_PUNCTUATION = "trailing_punctuation"
ACL_ID_MISMATCH = "acl_id_mismatch"
NOT_ANTHOLOGY_DOI = "not_anthology_doi"
CITED_BY_PAPER = "cited_by_paper"
YEAR_MISMATCH = "year_mismatch"
SHARED_DOI = "shared_doi"
UNTRUSTED_FLAG = "untrusted_doi"

ANTHOLOGY_DOI_PREFIX = "10.18653/v1/"
ID_SUFFIXES = (".gz", ".xml", ".tei", ".nxml", ".pdf", ".PDF", ".json", ".jsonl")
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_DOI_YEAR_MONTH = re.compile(r"\.((?:19|20)\d\d)\.(?:0[1-9]|1[0-2])\.")
_ARXIV = re.compile(r"^(\d{4}\.\d{4,5})(?:v\d+)?$")
_PMC = re.compile(r"^PMC\d+$", re.IGNORECASE)
_ANTHOLOGY_JOURNALS = ("J", "Q")  # CL and TACL: MIT Press DOIs, not the Anthology's
MAX_YEAR_GAP = 2


def source_id(name: str) -> str:
    """A one-paper file's id: its name without folder and format suffixes ("a/P17-2090.tei.xml.gz" -> "P17-2090"),
    whitespace runs as "_" ("My paper.pdf" -> "My_paper": TREC runs cannot hold an id with a space)."""
    return strip_suffixes("_".join(name.replace("\\", "/").rsplit("/", 1)[-1].split()), ID_SUFFIXES)


def acl_id(value: str | None) -> str | None:
    """The ACL Anthology id in `value` (a revision suffix such as ``v2`` dropped), else None."""
    value = (value or "").strip()
    old = ACL_OLD_ID.match(value)
    if old:
        return f"{old.group(1)}{old.group(2)}-{old.group(3)}"
    new = ACL_NEW_ID.match(value)
    return f"{new.group(1)}.{new.group(2)}-{new.group(3)}.{new.group(4)}" if new else None


def ids_of_stem(stem: str) -> dict[str, str]:
    """The external ids a file stem is: {"acl": …}, {"arxiv": …} or {"pmc": …} (empty for other stems)."""
    found = acl_id(stem)
    if found:
        return {"acl": found}
    arxiv = _ARXIV.match(stem)
    if arxiv:
        return {"arxiv": arxiv.group(1)}
    return {"pmc": stem.upper()} if _PMC.match(stem) else {}


def _anthology_has_dois(acl: str) -> bool:
    """Whether the Anthology gives this paper the DOI 10.18653/v1/<id> (its conference volumes since 2016)."""
    old = ACL_OLD_ID.match(acl)
    if old:
        return old.group(1) not in _ANTHOLOGY_JOURNALS and int(old.group(2)) >= 16
    new = ACL_NEW_ID.match(acl)
    return bool(new) and new.group(2) not in ("cl", "tacl")


def _unbalanced_end(doi: str) -> bool:
    last = doi[-1]
    if last in ".,;:":
        return True
    if last in ")]":
        opening = "(" if last == ")" else "["
        return doi.count(last) > doi.count(opening)
    return False


def doi_problem(doi: str, *, acl: str | None = None, year: int | None = None,
                cited: frozenset[str] | set[str] = frozenset()) -> str | None:
    """Why a (normalised) DOI read for a paper is not to be trusted, else None (see docs/ingest.md)."""
    if not _DOI.match(doi):
        return UNPARSEABLE
    if _unbalanced_end(doi):
        return TRAILING_PUNCTUATION
    if acl:
        if doi.startswith(ANTHOLOGY_DOI_PREFIX):
            if doi[len(ANTHOLOGY_DOI_PREFIX):] != acl.lower():
                return ACL_ID_MISMATCH
        elif _anthology_has_dois(acl):
            return NOT_ANTHOLOGY_DOI
    if doi in cited:
        return CITED_BY_PAPER
    named = _DOI_YEAR_MONTH.search(doi)
    if named and year is not None and abs(int(named.group(1)) - year) > MAX_YEAR_GAP:
        return YEAR_MISMATCH
    return None


def untrusted_flag(reason: str, doi: str) -> str:
    return f"{UNTRUSTED_FLAG}:{reason}:{doi}"


def flag_kind(flag: str) -> str:
    """A flag as counted in reports: ``untrusted_doi:<reason>`` without its DOI, any other flag as it is."""
    return flag.rsplit(":", 1)[0] if flag.startswith(UNTRUSTED_FLAG + ":") else flag


def untrusted_dois(paper: Paper) -> list[tuple[str, str]]:
    """(reason, doi) for each DOI the paper's flags record as untrusted."""
    parts = (flag[len(UNTRUSTED_FLAG) + 1:].partition(":") for flag in paper.flags
             if flag.startswith(UNTRUSTED_FLAG + ":"))
    return [(reason, doi) for reason, _, doi in parts]


def distrust(paper: Paper, reason: str) -> Paper:
    """The paper without its DOI, the DOI recorded as untrusted for `reason` (nothing to do without a DOI)."""
    doi = paper.external_ids.doi
    if not doi:
        return paper
    flags = paper.flags if reason == UNPARSEABLE else (*paper.flags, untrusted_flag(reason, doi))
    return replace(paper, external_ids=replace(paper.external_ids, doi=None), flags=flags)


def with_source_ids(paper: Paper, name: str, header_ids: ExternalIds) -> Paper:
    """A one-paper file's paper under the policy: id = the file stem, the stem's own kind of id and the
    header's ids in `external_ids`, the header DOI only when trusted."""
    stem = source_id(name)
    from_stem = ids_of_stem(stem)
    merged = replace(header_ids, **{k: getattr(header_ids, k) or v for k, v in from_stem.items()})
    paper = replace(paper, id=stem, external_ids=merged)
    if not merged.doi:
        return paper
    cited = {r.external_ids.doi for r in paper.references if r.external_ids.doi}
    reason = doi_problem(merged.doi, acl=from_stem.get("acl"), year=paper.year, cited=cited)
    return distrust(paper, reason) if reason else paper

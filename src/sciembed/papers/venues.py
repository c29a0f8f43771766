"""A venue's short name (ACL, EMNLP, NAACL, …) from the source's venue text or an ACL Anthology id.

GROBID's venue text is whatever the first page said ("Natural Language Processing" for EMNLP), so an Anthology
id (``D14-1030`` is EMNLP; workshop volumes name none) is asked first, then the full name or acronym that comes
first in the venue text (a workshop's names none, except WMT). The raw text stays in `Paper.venue` either way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Old-style Anthology ids: the volume letter (https://aclanthology.org/info/ids/); W (workshops) names none.
ANTHOLOGY_LETTERS = {"P": "ACL", "D": "EMNLP", "N": "NAACL", "E": "EACL", "C": "COLING", "Q": "TACL", "J": "CL",
                     "K": "CoNLL", "S": "SemEval", "L": "LREC", "I": "IJCNLP"}
# New-style ids (2020.acl-main.207): the venue part of the volume.
ANTHOLOGY_VENUES = {"acl": "ACL", "emnlp": "EMNLP", "naacl": "NAACL", "eacl": "EACL", "aacl": "AACL",
                    "coling": "COLING", "tacl": "TACL", "cl": "CL", "conll": "CoNLL", "lrec": "LREC",
                    "semeval": "SemEval", "starsem": "*SEM", "wmt": "WMT", "ijcnlp": "IJCNLP"}
_VERSION = r"(?:v\d+(?:\.\d+)?)?"  # a revised file: D14-1096v2, P16-1200v2.1
ACL_OLD_ID = re.compile(rf"^([A-Z])(\d{{2}})-(\d{{4}}){_VERSION}$")  # also `readers/id_policy.py`'s
ACL_NEW_ID = re.compile(rf"^(\d{{4}})\.([a-z0-9]+)-([a-z0-9]+)\.(\d+){_VERSION}$")

# (short name, pattern over the venue text); the match that starts first wins.
_TEXT_NAMES = (
    ("EMNLP", r"empirical methods in natural language processing|\bEMNLP\b"),
    ("NAACL", r"north american chapter of the association for computational linguistics|\bNAACL\b"),
    ("EACL", r"european chapter of the association for computational linguistics|\bEACL\b"),
    ("AACL", r"asia-pacific chapter of the association for computational linguistics|\bAACL\b"),
    ("TACL", r"transactions of the association for computational linguistics|\bTACL\b"),
    ("ACL", r"annual meeting of the (?:association for computational linguistics|ACL)|\bACL\b"),
    ("COLING", r"international conference on computational linguistics|\bCOLING\b"),
    ("CoNLL", r"computational natural language learning|\bCoNLL\b"),
    ("IJCNLP", r"international joint conference on natural language processing|\bIJCNLP\b"),
    ("LREC", r"language resources and evaluation conference|conference on language resources and evaluation"
             r"|\bLREC\b"),
    ("SemEval", r"semantic evaluation|\bSemEval\b"),
    ("*SEM", r"joint conference on lexical and computational semantics|\*SEM\b"),
    ("WMT", r"conference on machine translation|workshop on (?:statistical )?machine translation|\bWMT\b"),
    ("NeurIPS", r"neural information processing systems|\bNeurIPS\b|\bNIPS\b"),
    ("ICML", r"international conference on machine learning|\bICML\b"),
    ("ICLR", r"international conference on learning representations|\bICLR\b"),
    ("AAAI", r"\bAAAI\b"),
    ("IJCAI", r"international joint conference on artificial intelligence|\bIJCAI\b"),
    ("SIGIR", r"\bSIGIR\b"),
    ("KDD", r"knowledge discovery and data mining|\bKDD\b"),
    ("CVPR", r"computer vision and pattern recognition|\bCVPR\b"),
    ("CL", r"^computational linguistics$"),
    ("arXiv", r"^arxiv$"),
)
TEXT_PATTERNS = tuple((name, re.compile(pattern, re.IGNORECASE)) for name, pattern in _TEXT_NAMES)
_FINDINGS = re.compile(r"findings of the association for computational linguistics\W*(?:ACL\W*)?([A-Za-z]+)?",
                       re.IGNORECASE)
_WORKSHOP = re.compile(r"\bworkshops?\b", re.IGNORECASE)


def from_anthology_id(value: str | None) -> str | None:
    """The venue an ACL Anthology id names (None for a workshop volume or anything else)."""
    value = (value or "").strip()
    old = ACL_OLD_ID.match(value)
    if old:
        return ANTHOLOGY_LETTERS.get(old.group(1))
    new = ACL_NEW_ID.match(value)
    if not new:
        return None
    first, second = new.group(2), new.group(3)
    if first == "findings":
        venue = ANTHOLOGY_VENUES.get(second)
        return f"Findings of {venue}" if venue else "Findings"
    if first in ANTHOLOGY_VENUES and second in ("main", "long", "short", "demo", "demos", "srw", "tutorials",
                                                "industry", "1", "2", "3"):
        return ANTHOLOGY_VENUES[first]
    return ANTHOLOGY_VENUES.get(first) if second.isdigit() else None


def from_text(text: str | None) -> str | None:
    """The short name the venue text names first (None for a workshop other than WMT, or no known name)."""
    text = " ".join((text or "").split())
    if not text:
        return None
    findings = _FINDINGS.search(text)
    if findings:
        venue = from_text(findings.group(1)) if findings.group(1) else None
        return f"Findings of {venue}" if venue else "Findings"
    found = [(match.start(), -len(match.group(0)), name) for name, pattern in TEXT_PATTERNS
             if (match := pattern.search(text))]
    if not found:
        return None
    name = min(found)[2]
    if _WORKSHOP.search(text) and name != "WMT":
        return None  # "Workshop on X at EMNLP 2017" is no EMNLP paper
    return name


def short_venue(texts: Iterable[str | None], anthology_ids: Iterable[str | None] = ()) -> str | None:
    """The short name from the first Anthology id that names one, else the first venue text that does."""
    return (next(filter(None, map(from_anthology_id, anthology_ids)), None)
            or next(filter(None, map(from_text, texts)), None))


_SOURCE_SUFFIXES = (".gz", ".xml", ".nxml", ".tei", ".json", ".jsonl", ".pdf")


def source_stem(source: str | None) -> str | None:
    """The file stem of a paper's `source` ("tei:D14-1030.tei.xml.gz" -> "D14-1030"); None without one."""
    if not source or ":" not in source:
        return None
    return strip_suffixes(source.split(":", 1)[1], _SOURCE_SUFFIXES, fold_case=True) or None


def strip_suffixes(name: str, suffixes: tuple[str, ...], fold_case: bool = False) -> str:
    """`name` without its folder and, again and again, any of `suffixes` (never down to nothing). No suffix ends
    another (each starts with a dot), so at most one matches at a time and the order does not matter."""
    stem = name.replace("\\", "/").rsplit("/", 1)[-1]
    while found := next((s for s in suffixes if len(stem) > len(s)
                         and (stem.lower() if fold_case else stem).endswith(s)), None):
        stem = stem[: -len(found)]
    return stem

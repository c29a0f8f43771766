"""SciTLDR's JSONL (Cachola et al., 2020; Apache-2.0): real abstracts, as sentence lists, with human TLDRs.

One record per line: ``paper_id``, ``title``, ``source`` (the abstract's sentences) and ``target`` (the TLDRs;
the first is the author's). The one reader of `sciembed.evaluation.scitldr` and `sciembed.summaries.scitldr`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.errors import SciembedInputError
from sciembed.papers.readers.jsonlines import LineTally, counted_objects


class SciTldrError(SciembedInputError, ValueError):
    """The SciTLDR file cannot be read at all."""


@dataclass(frozen=True)
class SciTldrPaper:
    paper_id: str
    title: str
    sentences: tuple[str, ...]
    tldrs: tuple[str, ...]

    @property
    def abstract(self) -> str:
        return " ".join(self.sentences)


@dataclass
class SciTldrRead(LineTally):
    papers: list[SciTldrPaper] = field(default_factory=list)


def _strings(value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return tuple(v.strip() for v in value if v.strip())


def read_scitldr(path: str | Path) -> SciTldrRead:
    """Parse a SciTLDR JSONL file; read = accepted + rejected, rejects counted by reason."""
    path = Path(path)
    if not path.is_file():
        raise SciTldrError(f"{path}: no such file (expected SciTLDR's train.jsonl / dev.jsonl)")
    out = SciTldrRead()
    seen: set[str] = set()
    for where, record in counted_objects(path, out, SciTldrError):
        pid, title = record.get("paper_id"), record.get("title")
        sentences, tldrs = _strings(record.get("source")), _strings(record.get("target"))
        if not isinstance(pid, str) or not pid.strip():
            out.reject("missing paper_id", where)
        elif pid.strip() in seen:
            out.reject("duplicate paper_id (first kept)", where)
        elif not isinstance(title, str) or not title.strip():
            out.reject("missing title", where)
        elif not sentences:
            out.reject("missing abstract sentences (source)", where)
        elif tldrs is None:
            out.reject("target is not a list of strings", where)
        else:
            seen.add(pid.strip())
            out.papers.append(SciTldrPaper(pid.strip(), title.strip(), sentences, tldrs))
    return out

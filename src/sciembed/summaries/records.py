"""The summaries file: one JSON object per line, ``{"paper_id", "text", "source"}`` (+ free extras).

``source`` says who wrote the text (``llm:<model>``, ``extractive-pseudo``, ``scitldr:author``, …), so no number
is mistaken for one made with an LLM. Reading rejects bad lines with file:line and reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.errors import SciembedInputError
from sciembed.ioutil.atomic import write_jsonl_atomic
from sciembed.papers.readers.jsonlines import LineTally, counted_objects

EXTRACTIVE_SOURCE = "extractive-pseudo"
SUMMARIES_FILE = "summaries.jsonl"  # a corpus's summaries, next to its papers.parquet


class SummaryFileError(SciembedInputError, ValueError):
    """A summaries file that cannot be used at all (missing, not UTF-8, nothing usable)."""


@dataclass(frozen=True)
class Summary:
    paper_id: str
    text: str
    source: str
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"paper_id": self.paper_id, "text": self.text, "source": self.source, **self.extra}


@dataclass
class SummariesRead(LineTally):
    path: Path
    summaries: list[Summary] = field(default_factory=list)

    @property
    def by_source(self) -> dict[str, int]:
        return dict(sorted(Counter(s.source for s in self.summaries).items()))

    def counts(self) -> dict[str, Any]:
        return {"read": self.read, "accepted": len(self.summaries), "rejected": dict(self.rejected),
                "reject_examples": self.examples, "by_source": self.by_source}

    def problems(self) -> str:
        """One line naming every reject reason with its count and first place."""
        return "; ".join(f"{n} {reason} (first at {self.examples[reason]})" for reason, n in self.rejected.items())


def read_summaries(path: str | Path, known_ids: Iterable[str] | None = None) -> SummariesRead:
    """Every line accepted or rejected with a reason; `known_ids` (the corpus) rejects unknown papers."""
    path = Path(path)
    if not path.is_file():
        raise SummaryFileError(f"{path}: no such summaries file")
    known = None if known_ids is None else set(known_ids)
    out = SummariesRead(path)
    for where, record in counted_objects(path, out, SummaryFileError):
        pid, text, source = record.get("paper_id"), record.get("text"), record.get("source")
        if not isinstance(pid, str) or not pid.strip():
            out.reject("missing paper_id", where)
        elif not isinstance(text, str) or not text.strip():
            out.reject("empty summary text", where)
        elif not isinstance(source, str) or not source.strip():
            out.reject("missing source", where)
        elif known is not None and pid.strip() not in known:
            out.reject("paper_id not in the corpus", where)
        else:
            extra = {k: v for k, v in record.items() if k not in ("paper_id", "text", "source")}
            out.summaries.append(Summary(pid.strip(), " ".join(text.split()), source.strip(), extra))
    return out


def write_summaries(summaries: Iterable[Summary], path: str | Path) -> int:
    """Write atomically (temp file, then rename): a crash never leaves half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_jsonl_atomic(path, (summary.to_dict() for summary in summaries))

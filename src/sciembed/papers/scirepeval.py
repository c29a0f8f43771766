"""Papers (id, title, abstract) out of SciRepEval's released splits, whatever the record shape.

The Hugging Face dataset ``allenai/scirepeval`` written one folder per config and one JSON-lines file
per split, the layout `sciembed.evaluation.scirepeval.loader` reads::

    <root>/scirepeval/<config>/<split>.jsonl

Its records come in the shapes of allenai/scirepeval's training and evaluation code: a paper
(``fos``, ``mesh_descriptors``: ``doc_id``, ``title``, ``abstract``, labels); a query paper with
candidate papers (``same_author``, ``high_influence_cite``: ``query``, ``candidates``; ``search``:
a text ``query`` and candidate papers); a citation triplet (``cite_prediction_new``: ``query``,
``pos``, ``neg``, ids in ``corpus_id``). Every paper object in a record (the record itself, its
``query``, ``pos``, ``neg`` and ``candidates``) with an id, a title and an abstract is a paper; the
first occurrence of an id wins. Lines are counted: read = lines with papers + lines without + bad lines.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.errors import SciembedInputError
from sciembed.papers.readers.jsonlines import LineTally, counted_objects

ID_FIELDS = ("doc_id", "corpus_id", "paper_id")
PAPER_SLOTS = ("query", "pos", "neg")


class SciRepEvalDataError(SciembedInputError, ValueError):
    """A SciRepEval split that cannot be read (missing, not UTF-8)."""


@dataclass(frozen=True)
class ReleasePaper:
    paper_id: str
    title: str
    abstract: str


@dataclass
class ReleaseRead(LineTally):
    path: Path | None = None
    papers: dict[str, ReleasePaper] = field(default_factory=dict)
    skipped: Counter = field(default_factory=Counter)  # paper objects left out, by reason


def split_path(root: str | Path, config: str, split: str) -> Path:
    path = Path(root) / "scirepeval" / config / f"{split}.jsonl"
    if not path.is_file():
        raise SciRepEvalDataError(f"{path}: not found (write it with datasets: load_dataset('allenai/scirepeval', "
                                  f"'{config}', split='{split}').to_json(...))")
    return path


RELEASE_SPLITS = ("train", "evaluation")  # "auto": a config's train split, else its evaluation split


def release_split(root: str | Path, config: str, split: str) -> str:
    """The split a config's papers are drawn from: `split` itself, or for "auto" ``train`` where the release has it
    and ``evaluation`` otherwise — several of SemCSE's twelve configs exist in ``allenai/scirepeval`` only as
    evaluation files."""
    if split != "auto":
        return split
    return next((s for s in RELEASE_SPLITS if (Path(root) / "scirepeval" / config / f"{s}.jsonl").is_file()), "train")


def _paper_objects(record: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield record
    for slot in PAPER_SLOTS:
        if isinstance(record.get(slot), dict):
            yield record[slot]
    for cand in record.get("candidates") or []:
        if isinstance(cand, dict):
            yield cand


def read_release_papers(root: str | Path, config: str, split: str) -> ReleaseRead:
    path = split_path(root, config, split)
    out = ReleaseRead(path=path)
    for where, record in counted_objects(path, out, SciRepEvalDataError):
        found = False
        for obj in _paper_objects(record):
            pid = next((obj[f] for f in ID_FIELDS if obj.get(f) not in (None, "")), None)
            title, abstract = str(obj.get("title") or "").strip(), str(obj.get("abstract") or "").strip()
            if not (title or abstract):
                continue  # not a paper object (a search record's own query fields, a label row)
            if pid is None or not title or not abstract:
                out.skipped["paper without id, title or abstract"] += 1
                continue
            found = True
            pid = str(pid)
            if pid in out.papers:
                out.skipped["paper seen before in this split"] += 1
            else:
                out.papers[pid] = ReleasePaper(pid, " ".join(title.split()), " ".join(abstract.split()))
        if not found:
            out.reject("no paper with id, title and abstract in the record", where)
    return out

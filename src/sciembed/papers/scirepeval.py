"""Papers (id, title, abstract) out of SciRepEval's released splits, whatever the record shape.

The Hugging Face dataset ``allenai/scirepeval``, one folder per config, in either of the layouts
`sciembed.evaluation.scirepeval.loader` reads::

    <root>/scirepeval/<config>/<split>.jsonl                      written with ``datasets`` (``to_json``)
    <root>/scirepeval/<config>/<split>-00000-of-00007.parquet …   the release's own files, as downloaded
                                                                  (``huggingface-cli download allenai/scirepeval
                                                                  --repo-type dataset --local-dir <root>/scirepeval``)
    <root>/scirepeval/<config>/<split>/0000.parquet …             the hub's ``refs/convert/parquet`` branch

Some configs exist only as an ``evaluation`` split (``biomimicry``), others also as ``train`` shards.

Every paper object in a record (the record itself, its ``query``, ``pos``, ``neg`` and ``candidates``: the
shapes of allenai/scirepeval's code) with an id, a title and an abstract is a paper; the first occurrence of an
id wins. Lines (Parquet: rows) are counted: read = lines with papers + lines without + bad lines.
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


def split_files(root: str | Path, config: str, split: str) -> list[Path]:
    """The files holding a config's split: ``<split>.jsonl``, else the release's ``<split>-*.parquet`` shards,
    else ``<split>/*.parquet``; empty when the split is absent."""
    folder = Path(root) / "scirepeval" / config
    if (folder / f"{split}.jsonl").is_file():
        return [folder / f"{split}.jsonl"]
    return sorted(folder.glob(f"{split}-*.parquet")) or sorted((folder / split).glob("*.parquet"))


def split_path(root: str | Path, config: str, split: str) -> Path:
    """A config's split file, or its folder when the split is Parquet shards; a clear error when absent."""
    files = split_files(root, config, split)
    if not files:
        folder = Path(root) / "scirepeval" / config
        raise SciRepEvalDataError(
            f"{folder / split}.jsonl: not found, nor {split}-*.parquet shards (download the release: "
            f"huggingface-cli download allenai/scirepeval --repo-type dataset --include '{config}/*' --local-dir "
            f"{Path(root) / 'scirepeval'}; or write it with datasets: load_dataset('allenai/scirepeval', "
            f"'{config}', split='{split}').to_json(...))")
    return files[0] if files[0].suffix == ".jsonl" else files[0].parent


RELEASE_SPLITS = ("train", "evaluation")  # "auto": a config's train split, else its evaluation split


def release_split(root: str | Path, config: str, split: str) -> str:
    """The split a config's papers are drawn from: `split` itself, or for "auto" ``train`` where the release has it
    and ``evaluation`` otherwise — several of SemCSE's twelve configs exist in ``allenai/scirepeval`` only as
    evaluation files."""
    if split != "auto":
        return split
    return next((s for s in RELEASE_SPLITS if split_files(root, config, s)), "train")


def _records(root: str | Path, config: str, split: str, tally: LineTally) -> Iterator[tuple[str, dict[str, Any]]]:
    """("file:line" or "file#row", record) over a split's files, every line / row counted in `tally.read`."""
    split_path(root, config, split)  # the error when absent
    for path in split_files(root, config, split):
        if path.suffix == ".jsonl":
            yield from counted_objects(path, tally, SciRepEvalDataError)
            continue
        import pyarrow.parquet as pq

        try:
            batches = pq.ParquetFile(path).iter_batches(batch_size=4096)
            rows = (record for batch in batches for record in batch.to_pylist())
            for row, record in enumerate(rows):
                tally.read += 1
                yield f"{path}#{row}", record
        except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
            raise SciRepEvalDataError(f"{path}: not a readable Parquet file ({exc})") from exc


def _paper_objects(record: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield record
    for slot in PAPER_SLOTS:
        if isinstance(record.get(slot), dict):
            yield record[slot]
    for cand in record.get("candidates") or []:
        if isinstance(cand, dict):
            yield cand


def read_release_papers(root: str | Path, config: str, split: str) -> ReleaseRead:
    out = ReleaseRead(path=split_path(root, config, split))
    for where, record in _records(root, config, split, out):
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

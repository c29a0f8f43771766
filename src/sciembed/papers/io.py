"""Lossless JSONL and Parquet serialisation of `Paper` records (Parquet with a nested schema, so DuckDB queries
the corpus tables without unpacking JSON strings)."""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from sciembed import __version__
from sciembed.errors import SciembedInputError
from sciembed.ioutil.atomic import write_text_atomic
from sciembed.papers.model import Paper
from sciembed.papers.schema import arrow_schema

# The corpus directory's shared files (layout: `corpus/layout.py`), named here because ingest writes them first.
# SCHEMA_VERSION 2 added `authors` and `venue_short`; a version-1 corpus still reads, without them.
SCHEMA_VERSION = 2
GZIP_LEVEL = 3  # written .gz: level 6 costs 2.5x the CPU for 20% smaller files; writing speed matters more here
PAPERS_FILE = "papers.parquet"
MANIFEST_FILE = "manifest.json"

PAPER_SCHEMA = arrow_schema(Paper)  # derived from the dataclass: one definition of a paper


def write_manifest(directory: str | Path, kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    """The one writer of a corpus directory's ``manifest.json``: schema version, `kind` (``ingested`` or
    ``built``), sciembed version, then `fields`; read = accepted + rejected is checked. Written atomically and
    last, so its presence means finished."""
    counts = fields.get("counts") or {}
    if {"read", "accepted", "rejected"} <= counts.keys() and counts["read"] != counts["accepted"] + counts["rejected"]:
        raise ValueError(f"manifest counts do not add up: {counts}")
    manifest = {"schema_version": SCHEMA_VERSION, "kind": kind, "sciembed_version": __version__, **fields}
    write_text_atomic(Path(directory) / MANIFEST_FILE, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return manifest


def open_text(path: str | Path, mode: str = "rt"):
    """Open a text file, transparently gunzipping ``*.gz``."""
    path = Path(path)
    if path.suffix == ".gz":
        if "w" in mode:  # mtime 0 (the header's name is the basename): same content, same bytes
            return io.TextIOWrapper(gzip.GzipFile(path, mode="wb", compresslevel=GZIP_LEVEL, mtime=0),
                                    encoding="utf-8", newline="\n")
        return gzip.open(path, mode, encoding="utf-8")
    return open(path, mode, encoding="utf-8")


def write_jsonl(papers: Iterable[Paper], path: str | Path) -> int:
    """Write papers as one JSON object per line; returns the count."""
    n = 0
    with open_text(path, "wt") as out:
        for paper in papers:
            out.write(json.dumps(paper.to_dict(), ensure_ascii=False) + "\n")
            n += 1
    return n


def read_jsonl(path: str | Path) -> Iterator[Paper]:
    """Read papers written by `write_jsonl` (trusted input; use the readers for raw files)."""
    with open_text(path) as lines:
        for line in lines:
            if line.strip():
                yield Paper.from_dict(json.loads(line))


class ParquetPaperWriter:
    """Streams papers into a Parquet file in row groups of `batch_size`."""

    def __init__(self, path: str | Path, batch_size: int = 2000) -> None:
        self.path = Path(path)
        self.batch_size = batch_size
        self._buffer: list[dict] = []
        self._writer = pq.ParquetWriter(self.path, PAPER_SCHEMA, compression="zstd")
        self.count = 0

    def write(self, paper: Paper) -> None:
        self._buffer.append(paper.to_dict())
        if len(self._buffer) >= self.batch_size:
            self._flush()

    def _flush(self) -> None:
        if self._buffer:  # one typed array per column: about 5x faster than Table.from_pylist over the row dicts
            columns = [pa.array([row[f.name] for row in self._buffer], type=f.type) for f in PAPER_SCHEMA]
            self._writer.write_table(pa.Table.from_arrays(columns, schema=PAPER_SCHEMA))
            self.count += len(self._buffer)
            self._buffer = []

    def close(self) -> None:
        self._flush()
        self._writer.close()

    def __enter__(self) -> ParquetPaperWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_parquet(papers: Iterable[Paper], path: str | Path) -> int:
    with ParquetPaperWriter(path) as writer:
        for paper in papers:
            writer.write(paper)
    return writer.count


class DamagedCorpusError(SciembedInputError, OSError):
    """A corpus's ``papers.parquet`` that cannot be read whole (a damaged row group, a cut-off footer)."""


def damaged_corpus(path: str | Path, err: BaseException) -> DamagedCorpusError:
    """The one message for a papers file pyarrow cannot read: the file, what failed, and the fix."""
    what = (str(err).strip().splitlines() or [type(err).__name__])[0][:300]
    return DamagedCorpusError(f"{path}: the corpus file is damaged and cannot be read ({what}); re-run `sciembed "
                              "corpus ingest` for this corpus (or restore the file from a copy)")


def is_arrow_read_error(err: BaseException) -> bool:
    """Whether `err` is pyarrow failing on a file's content (not a disk or path error, which carry an errno)."""
    return isinstance(err, pa.ArrowException | OSError) and getattr(err, "errno", None) is None


@contextmanager
def reading_corpus(path: str | Path, partial: Path | None = None) -> Iterator[None]:
    """pyarrow failing on `path`'s content inside the block is a `DamagedCorpusError` (`partial`, a file being
    written from it, removed first); a disk or path error passes through for the CLI's guard to name."""
    try:
        yield
    except (pa.ArrowException, OSError) as err:
        if not is_arrow_read_error(err):
            raise
        if partial is not None:
            partial.unlink(missing_ok=True)
        raise damaged_corpus(path, err) from err


def read_parquet(path: str | Path, columns: list[str] | None = None) -> Iterator[Paper]:
    """Stream papers back from Parquet, one row group at a time; a damaged file is a `DamagedCorpusError`."""
    with reading_corpus(path):
        for batch in pq.ParquetFile(path).iter_batches(batch_size=2000, columns=columns):
            for row in batch.to_pylist():
                yield Paper.from_dict(row)

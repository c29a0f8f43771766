"""Lossless JSONL and Parquet serialisation of `Paper` records.

Parquet uses an explicit nested schema (lists of structs) so that the corpus
tables can be queried with DuckDB without unpacking JSON strings.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sciembed.papers.model import Paper

# The corpus directory's shared files (its layout: `corpus/layout.py`), named here, in the lowest stage, because
# ingest (papers/) writes them first and every later stage reads them.
SCHEMA_VERSION = 1  # of a corpus directory: papers.parquet's PAPER_SCHEMA and manifest.json
PAPERS_FILE = "papers.parquet"
MANIFEST_FILE = "manifest.json"

EXTERNAL_IDS_TYPE = pa.struct(
    [(name, pa.string()) for name in ("doi", "arxiv", "s2", "pmid", "pmc", "openalex", "acl")]
)
SECTION_TYPE = pa.struct(
    [("heading", pa.string()), ("text", pa.string()), ("role", pa.string()), ("number", pa.string())]
)
REFERENCE_TYPE = pa.struct(
    [
        ("title", pa.string()),
        ("paper_id", pa.string()),
        ("year", pa.int32()),
        ("raw", pa.string()),
        ("external_ids", EXTERNAL_IDS_TYPE),
    ]
)
RAW_SECTIONS_TYPE = pa.struct([("count", pa.int32()), ("body_chars", pa.int64()), ("malformed_headings", pa.int32())])
PAPER_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("title", pa.string()),
        ("abstract", pa.string()),
        ("sections", pa.list_(SECTION_TYPE)),
        ("references", pa.list_(REFERENCE_TYPE)),
        ("venue", pa.string()),
        ("year", pa.int32()),
        ("domain", pa.string()),
        ("fields_of_study", pa.list_(pa.string())),
        ("external_ids", EXTERNAL_IDS_TYPE),
        ("flags", pa.list_(pa.string())),
        ("source", pa.string()),
        ("raw_sections", RAW_SECTIONS_TYPE),  # absent from corpora written before it: read as null
    ]
)


def open_text(path: str | Path, mode: str = "rt"):
    """Open a text file, transparently gunzipping ``*.gz``."""
    path = Path(path)
    if path.suffix == ".gz":
        if "w" in mode:  # mtime 0: same content, same bytes
            return io.TextIOWrapper(gzip.GzipFile(path, mode="wb", mtime=0), encoding="utf-8", newline="\n")
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
        if self._buffer:
            # One typed array per column: about 5x faster than Table.from_pylist over the row dicts.
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


def read_parquet(path: str | Path, columns: list[str] | None = None) -> Iterator[Paper]:
    """Stream papers back from Parquet, one row group at a time."""
    parquet = pq.ParquetFile(path)
    for batch in parquet.iter_batches(batch_size=2000, columns=columns):
        for row in batch.to_pylist():
            yield Paper.from_dict(row)

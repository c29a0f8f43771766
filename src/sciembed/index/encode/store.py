"""A vectors directory: ``encode.json`` (settings a resumed run must match), Parquet shards of view vectors
written whole or not at all (their row range and encoder fingerprint in their metadata), and ``manifest.json``
written last. See docs/encode.md for the layout and how a run resumes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sciembed.errors import SciembedInputError
from sciembed.index.encode.batches import Shard, ViewRow
from sciembed.ioutil.atomic import atomic_file, fsync_dir, write_text_atomic

SETTINGS_FILE = "encode.json"
MANIFEST_FILE = "manifest.json"
KIND = "vectors"
SHARD_KEY = b"sciembed.shard"


class VectorsError(SciembedInputError, ValueError):
    """A vectors directory is unusable (other settings, unfinished, not one); the message says what to do."""


def vector_schema(dim: int) -> pa.Schema:
    return pa.schema([("paper_id", pa.string()), ("view_id", pa.string()), ("kind", pa.string()),
                      ("section", pa.int32()), ("start", pa.int32()), ("end", pa.int32()),
                      ("vector", pa.list_(pa.float32(), dim))])


def shard_path(out: Path, shard: Shard) -> Path:
    return out / f"{shard.name}.parquet"


def start_store(out: Path, settings: dict[str, Any]) -> None:
    """Create `out` (or check that its settings are these) and remove temporary files of killed runs."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / SETTINGS_FILE
    if path.is_file():
        before = json.loads(path.read_text())
        changed = {k: (before.get(k), v) for k, v in settings.items() if before.get(k) != v}
        if changed:
            shown = "; ".join(f"{k}: {old!r} -> {new!r}" for k, (old, new) in sorted(changed.items()))
            raise VectorsError(f"{out}: vectors were encoded with other settings ({shown}); "
                               "use another output or remove it to start over")
    else:
        write_text_atomic(path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
    for stale in out.glob(".shard-*.tmp"):
        stale.unlink(missing_ok=True)
    (out / MANIFEST_FILE).unlink(missing_ok=True)  # rewritten when this run has every shard


def finished_info(out: Path, shard: Shard, fingerprint: str) -> dict[str, Any] | None:
    """The shard's recorded counts when its file is complete and was encoded by `fingerprint`, else None."""
    path = shard_path(out, shard)
    if not path.is_file():
        return None
    try:
        meta = pq.ParquetFile(path).schema_arrow.metadata or {}
        info = json.loads(meta[SHARD_KEY])
        rows = pq.ParquetFile(path).metadata.num_rows
    except Exception:  # any unreadable file is a shard to redo
        return None
    same = (info.get("fingerprint"), info.get("start"), info.get("end"), info.get("views")) == (
        fingerprint, shard.start, shard.end, rows)
    return info if same else None


def write_shard(out: Path, shard: Shard, rows: list[ViewRow], vectors: np.ndarray, info: dict[str, Any]) -> None:
    """Write one shard (rows in view order) through a temporary file and a rename."""
    order = sorted(range(len(rows)), key=lambda i: rows[i].position)
    rows = [rows[i] for i in order]
    vectors = np.ascontiguousarray(vectors[order], dtype=np.float32).reshape(len(rows), -1)
    dim = int(info["dim"])
    schema = vector_schema(dim)
    arrays = [pa.array([getattr(r, f.name) for r in rows], f.type) for f in schema if f.name != "vector"]
    arrays.append(pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1), pa.float32()), dim))
    record = {**info, "shard": shard.number, "start": shard.start, "end": shard.end, "views": len(rows)}
    table = pa.Table.from_arrays(arrays, schema=schema.with_metadata({SHARD_KEY: json.dumps(record).encode()}))
    with atomic_file(shard_path(out, shard), binary=True) as handle:
        pq.write_table(table, handle, compression="zstd")
    fsync_dir(out)


def write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    write_text_atomic(out / MANIFEST_FILE, json.dumps({"kind": KIND, **manifest}, indent=2) + "\n")


def is_vectors_dir(path: Path) -> bool:
    return (Path(path) / SETTINGS_FILE).is_file()


def read_vectors_manifest(path: Path) -> dict[str, Any]:
    """The finished vectors directory's manifest (settings and counts); an unfinished one is an error."""
    path = Path(path)
    if not (path / MANIFEST_FILE).is_file():
        raise VectorsError(f"{path}: no {MANIFEST_FILE}: the encode run has not finished "
                           "(run the same `sciembed encode` command again to complete it)")
    manifest = json.loads((path / MANIFEST_FILE).read_text())
    if manifest.get("kind") != KIND:
        raise VectorsError(f"{path}: not a vectors directory written by `sciembed encode`")
    return manifest


def iter_shard_tables(path: Path, columns: list[str] | None = None) -> Iterator[pa.Table]:
    """Every shard of a finished vectors directory, one table at a time, in shard order."""
    manifest = read_vectors_manifest(path)
    for name in manifest["shards"]:
        yield pq.read_table(Path(path) / f"{name}.parquet", columns=columns)


def vectors_of(table: pa.Table) -> np.ndarray:
    """The `vector` column as a float32 matrix (no copy of the Arrow buffer where possible)."""
    column = table.column("vector").combine_chunks()
    dim = column.type.list_size
    return column.flatten().to_numpy(zero_copy_only=False).astype(np.float32, copy=False).reshape(-1, dim)

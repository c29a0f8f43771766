"""Tile a built corpus k times into a k× larger built corpus (for memory benchmarks at scale).

Generating and building a million synthetic papers takes hours on a loaded 2-core box (100k papers:
`sciembed synth` 431 s, `ingest` 1,261 s, `corpus build` 302 s), so the large corpora of
`train_memory_stream.py` are copies: tile t prefixes every paper id with ``t<t>/`` in papers, splits,
pairs and citations (a prefix keeps ``paper_a < paper_b``), nothing else changes. Texts repeat across
tiles; ids, pairs and splits are as many as in a corpus of that size, which is what the plan's and
the loader's memory depend on. Streamed record batch by record batch with pyarrow (bounded memory).

    .venv/bin/python benchmarks/tile_corpus.py /tmp/c100k/corpus 10 /tmp/c1m/corpus
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ID_COLUMNS = {"papers.parquet": ("id",), "splits.parquet": ("paper_id",), "pairs.parquet": ("paper_a", "paper_b"),
              "citations.parquet": ("citing", "cited")}


def tile_file(source: Path, target: Path, copies: int, columns: tuple[str, ...]) -> int:
    reader = pq.ParquetFile(source)
    rows = 0
    with pq.ParquetWriter(target, reader.schema_arrow, compression="zstd") as writer:
        for k in range(copies):
            prefix = pa.scalar(f"t{k}/")
            for batch in reader.iter_batches(batch_size=2000):
                arrays = [pc.binary_join_element_wise(prefix, batch.column(name), "") if name in columns
                          else batch.column(name) for name in batch.schema.names]
                writer.write_table(pa.Table.from_batches([pa.record_batch(arrays, schema=batch.schema)]))
                rows += batch.num_rows
    return rows


def tile(source: Path, copies: int, out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    counts = {name: tile_file(source / name, out / name, copies, columns) for name, columns in ID_COLUMNS.items()}
    shutil.copy(source / "manifest.json", out / "manifest.json")
    info = {"source": str(source), "copies": copies, "rows": counts}
    (out / "TILED.json").write_text(json.dumps(info, indent=2) + "\n")
    return info


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path)
    parser.add_argument("copies", type=int)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    print(json.dumps(tile(args.source, args.copies, args.out)))


if __name__ == "__main__":
    main()

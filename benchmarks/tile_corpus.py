"""Tile a built corpus k times into a k× larger built corpus (for memory benchmarks at scale).

Generating and building a million synthetic papers takes hours on a loaded 2-core box (`sciembed
synth` wrote 100k papers in 431 s and `ingest` + `corpus build` took longer still), so the large
corpora of `train_memory_stream.py` are copies: tile t prefixes every paper id with ``t<t>/`` in
papers, splits, pairs and citations (a prefix keeps ``paper_a < paper_b``), nothing else changes.
Texts repeat across tiles; ids, pairs and splits are as many as in a corpus of that size, which is
what the plan's and the loader's memory depend on. Written with DuckDB, streaming.

    .venv/bin/python benchmarks/tile_corpus.py /tmp/c100k/corpus 10 /tmp/c1m/corpus
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import duckdb


def tile(source: Path, copies: int, out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = true")
    tiles = f"range(0, {copies}) t(k)"

    def p(column: str) -> str:
        return f"'t' || k || '/' || {column}"

    def copy(name: str, select: str) -> None:
        src = str(source / name).replace("'", "''")
        dst = str(out / name).replace("'", "''")
        con.execute(f"COPY (SELECT r.{select} FROM {tiles}, read_parquet('{src}') r ORDER BY k) "
                    f"TO '{dst}' (FORMAT parquet, COMPRESSION zstd)")

    copy("papers.parquet", f"* REPLACE ({p('id')} AS id)")
    copy("splits.parquet", f"* REPLACE ({p('paper_id')} AS paper_id)")
    copy("pairs.parquet", f"* REPLACE ({p('paper_a')} AS paper_a, {p('paper_b')} AS paper_b)")
    copy("citations.parquet", f"* REPLACE ({p('citing')} AS citing, {p('cited')} AS cited)")
    shutil.copy(source / "manifest.json", out / "manifest.json")
    papers = con.execute(f"SELECT count(*) FROM read_parquet('{out / 'papers.parquet'}')").fetchone()[0]
    info = {"source": str(source), "copies": copies, "papers": int(papers)}
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

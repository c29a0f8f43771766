"""The on-disk corpus directory: the one contract between stages.

An *ingested* corpus (``sciembed corpus ingest``) holds::

    papers.parquet      every accepted paper (PAPER_SCHEMA)
    manifest.json       schema version, counts (read = accepted + rejected), provenance
    rejects.jsonl       one line per rejected record: file, line / element path, reason
    ingest_report.md    the same counts for people

A *built* corpus (``sciembed corpus build``) adds the citation graph and splits::

    papers.parquet      papers that survived the funnel
    pairs.parquet       paper_a < paper_b (undirected citation pairs), domain, split
    citations.parquet   citing, cited (directed citations behind the pairs), split
    splits.parquet      paper_id, split (train | val | test), domain, anchor (seeded a citation ball)
    funnel.json / funnel.md / *.png

Evaluation and training read only through `CorpusDir`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sciembed.errors import SciembedInputError
from sciembed.ioutil.root_dir import RootDir
from sciembed.papers.io import MANIFEST_FILE, PAPERS_FILE, SCHEMA_VERSION, read_parquet
from sciembed.papers.model import Paper

__all__ = ["SCHEMA_VERSION", "SPLITS", "CorpusDir", "CorpusError"]

SPLITS = ("train", "val", "test")


class CorpusError(SciembedInputError, ValueError):
    """A corpus directory is missing something a stage needs."""


class CorpusDir(RootDir):
    papers_path = property(lambda self: self.root / PAPERS_FILE)
    pairs_path = property(lambda self: self.root / "pairs.parquet")
    citations_path = property(lambda self: self.root / "citations.parquet")
    splits_path = property(lambda self: self.root / "splits.parquet")
    manifest_path = property(lambda self: self.root / MANIFEST_FILE)

    def require(self, *names: str) -> None:
        missing = [n for n in names if not (self.root / n).exists()]
        if missing:
            raise CorpusError(f"{self.root}: missing {', '.join(missing)} (is this a sciembed corpus directory?)")

    def manifest(self) -> dict[str, Any]:
        self.require(MANIFEST_FILE)
        return json.loads(self.manifest_path.read_text())

    def iter_papers(self) -> Iterator[Paper]:
        self.require(PAPERS_FILE)
        return read_parquet(self.papers_path)

    def count_papers(self) -> int:
        """How many papers ``papers.parquet`` holds (from its footer: nothing is read)."""
        self.require(PAPERS_FILE)
        return pq.ParquetFile(self.papers_path).metadata.num_rows

    def papers(self, ids: Iterable[str] | None = None) -> dict[str, Paper]:
        """Papers by id, optionally only those in `ids` (order of the file)."""
        wanted = None if ids is None else set(ids)
        return {p.id: p for p in self.iter_papers() if wanted is None or p.id in wanted}

    def has_splits(self) -> bool:
        return self.splits_path.exists() and self.pairs_path.exists()

    def split_ids(self, split: str) -> list[str]:
        """Paper ids of one split, sorted."""
        return self.split_id_array(split).to_pylist()

    def split_id_array(self, split: str) -> pa.Array:
        """`split_ids` as one Arrow string array (a million ids: ~40 MB, not ~70 MB of `str`s), sorted by UTF-8
        bytes, which is code point order, i.e. Python's `sorted`."""
        self._require_split(split)
        table = pq.read_table(self.splits_path, columns=["paper_id", "split"])
        ids = table.filter(pc.equal(table["split"], split))["paper_id"].combine_chunks()
        return ids.take(pc.sort_indices(ids))

    def anchor_ids(self, split: str) -> list[str] | None:
        """Papers that seeded the split's citation balls (its queries), sorted; None for corpora built
        before `splits.parquet` had the `anchor` column."""
        self._require_split(split)
        if "anchor" not in pq.read_schema(self.splits_path).names:
            return None
        table = pq.read_table(self.splits_path, columns=["paper_id", "split", "anchor"]).to_pydict()
        return sorted(pid for pid, s, a in zip(table["paper_id"], table["split"], table["anchor"], strict=True)
                      if s == split and a)

    def pairs(self, split: str) -> list[tuple[str, str]]:
        """Undirected citation pairs (paper_a < paper_b) inside one split, sorted."""
        table = self.pair_table(split).to_pydict()
        return sorted(zip(table["paper_a"], table["paper_b"], strict=True))

    def pair_table(self, split: str) -> pa.Table:
        """`pairs` as an Arrow table (paper_a, paper_b), in file order."""
        self._require_split(split)
        table = pq.read_table(self.pairs_path, columns=["paper_a", "paper_b", "split"])
        return table.filter(pc.equal(table["split"], split)).select(["paper_a", "paper_b"])

    def has_citations(self) -> bool:
        return self.citations_path.exists()

    def citations(self, split: str | None = None) -> list[tuple[str, str]]:
        """Directed citations (citing, cited), sorted; with `split`, only those inside that split (the split its
        citing and cited paper share; see docs/corpus.md "Directed citations")."""
        if split is not None and split not in SPLITS:
            raise CorpusError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
        if not self.has_citations():
            raise CorpusError(f"{self.root}: no citations.parquet (directed citations); rebuild the corpus with "
                              "`sciembed corpus build` (corpora built before directed citations lack it)")
        table = pq.read_table(self.citations_path, columns=["citing", "cited", "split"]).to_pydict()
        return sorted((a, b) for a, b, s in zip(table["citing"], table["cited"], table["split"], strict=True)
                      if split is None or s == split)

    def _require_split(self, split: str) -> None:
        if split not in SPLITS:
            raise CorpusError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
        if not self.has_splits():
            raise CorpusError(f"{self.root}: no splits (pairs.parquet / splits.parquet); run `sciembed corpus build` "
                              "first")

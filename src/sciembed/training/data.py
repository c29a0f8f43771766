"""Training data from a built corpus: the split's papers, their body views, its citation pairs.

Papers are addressed by index, so plans are small integer arrays; the texts stay in the corpus's paper store
and `ViewTexts` reads a paper when a batch needs it, so a split costs its arrays in memory, not its texts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sciembed.corpus.layout import CorpusDir, CorpusError
from sciembed.corpus.paper_store import StoredPapers, open_store
from sciembed.papers.model import Paper
from sciembed.views import ta_text, window_at
from sciembed.views.body import body_words
from sciembed.views.window import eligible_sections


class Ragged(Sequence):
    """Per-paper lists as two flat arrays (CSR): item ``i`` is ``values[offsets[i]:offsets[i + 1]]``.

    `values` is a numpy array (ints: window sections) or an Arrow array (strings: summaries, returned
    as Python lists). A million tuples cost ~100 MB of Python objects; these arrays cost their bytes
    plus 8 per paper, and a forked dataloader worker shares them instead of touching refcounts.
    """

    def __init__(self, offsets: np.ndarray, values: np.ndarray | pa.Array) -> None:
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.values = values if isinstance(values, pa.Array) else np.asarray(values, dtype=np.int32)

    @classmethod
    def from_lists(cls, lists: Iterable[Sequence], strings: bool = False) -> Ragged:
        lengths: list[int] = []
        flat: list = []
        for x in lists:
            lengths.append(len(x))
            flat.extend(x)
        offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
        return cls(offsets, pa.array(flat, pa.large_string()) if strings else np.asarray(flat, dtype=np.int32))

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i):  # type: ignore[override]
        part = self.values[self.offsets[i]:self.offsets[i + 1]]
        return part.to_pylist() if isinstance(part, pa.Array) else part

    def take(self, indices: np.ndarray) -> Ragged:
        """The lists of `indices`, in that order."""
        indices = np.asarray(indices, dtype=np.int64)
        lengths = self.lengths[indices]
        offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
        flat = np.repeat(self.offsets[indices] - offsets[:-1], lengths) + np.arange(offsets[-1])
        values = self.values.take(pa.array(flat)) if isinstance(self.values, pa.Array) else self.values[flat]
        return Ragged(offsets, values)


@dataclass(frozen=True)
class TrainingData:
    split: str
    papers: Sequence[Paper]  # read from the corpus's paper store when indexed (`StoredPapers`)
    window_sections: Ragged  # per paper: sections a body view may start at
    pairs: np.ndarray  # (n, 2) paper indices, one row per undirected citation pair

    @property
    def n_body(self) -> np.ndarray:
        return self.window_sections.lengths

    @property
    def ta_only(self) -> int:
        """Papers without body text: they serve as TA views only and never self-align."""
        return int((self.n_body == 0).sum())

    def summary(self) -> dict[str, int | str]:
        return {"split": self.split, "papers": len(self.papers), "papers_with_body": len(self.papers) - self.ta_only,
                "ta_only_papers": self.ta_only, "citation_pairs": len(self.pairs)}


def window_sections(paper: Paper) -> tuple[int, ...]:
    """Sections a body window may start at; none when the paper has no body text (headings alone are no body)."""
    return tuple(eligible_sections(paper)) if paper.has_body else ()


def split_pairs(corpus: CorpusDir, split: str, ids: pa.Array) -> np.ndarray:
    """The split's undirected pairs as (n, 2) positions in `ids`, sorted; names what lies outside."""
    table = corpus.pair_table(split)
    if table.num_rows == 0:
        raise CorpusError(f"{corpus.root}: the {split} split has no citation pairs in pairs.parquet")
    a = pc.index_in(table["paper_a"], value_set=ids)
    b = pc.index_in(table["paper_b"], value_set=ids)
    outside = pc.or_(pc.is_null(a), pc.is_null(b))
    n_outside = pc.sum(outside).as_py() or 0
    if n_outside:
        first = table.filter(outside).slice(0, 1).to_pylist()[0]
        raise CorpusError(f"{corpus.root}: {n_outside} of {table.num_rows} {split} pairs name papers outside the "
                          f"{split} split (first: {(first['paper_a'], first['paper_b'])!r})")
    pairs = np.stack([a.to_numpy().astype(np.int64), b.to_numpy().astype(np.int64)], axis=1)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]  # index order = id order: the sorted (id, id) order


def split_papers(corpus: CorpusDir, split: str, missing: str = "raise") -> tuple[pa.Array, StoredPapers]:
    """A split's sorted ids and its papers in that order, read from the corpus's paper store.

    Ids of splits.parquet without a paper: an error naming the first (`missing="raise"`), or left out
    (``"drop"``, and out of the ids returned too)."""
    ids = corpus.split_id_array(split)
    if len(ids) == 0:
        raise CorpusError(f"{corpus.root}: the {split} split has no papers")
    store = open_store(corpus.root)
    rows = store.rows_of(ids)
    absent = np.flatnonzero(rows < 0)
    if len(absent) and missing == "drop":
        present = rows >= 0
        return ids.filter(pa.array(present)), StoredPapers(store, rows[present])
    if len(absent):
        raise CorpusError(f"{corpus.root}: {len(absent)} of {len(ids)} {split} papers listed in splits.parquet are "
                          f"not in papers.parquet (first: {ids[int(absent[0])].as_py()!r})")
    return ids, StoredPapers(store, rows)


def load_training_data(corpus: str | Path | CorpusDir, split: str = "train") -> TrainingData:
    """Read one split's ids, pairs and window sections; texts stay on disk (`StoredPapers`)."""
    corpus = corpus if isinstance(corpus, CorpusDir) else CorpusDir(corpus)
    corpus.require("papers.parquet")
    if not corpus.has_splits():
        raise CorpusError(f"{corpus.root}: no training split (pairs.parquet / splits.parquet missing); "
                          "train on a built corpus (`sciembed corpus build`)")
    ids, papers = split_papers(corpus, split)
    pairs = split_pairs(corpus, split, ids)
    return TrainingData(split, papers, Ragged.from_lists(window_sections(p) for p in papers), pairs)


class ViewTexts:
    """Text of view ``v`` of paper ``i``: 0 is TA, ``v >= 1`` the window at the v-th window section.

    Papers are read from the store when a batch asks for them (the last `cache` stay decoded). Training
    prefixes (``[TA] ``/``[BODY] ``) are added here; evaluation builds its own views without them.
    """

    def __init__(self, data: TrainingData, window_words: int, ta_prefix: str = "", body_prefix: str = "",
                 cache: int = 4096) -> None:
        self.data = data
        self.window_words = window_words
        self.ta_prefix = ta_prefix
        self.body_prefix = body_prefix
        self.cache = cache
        self._caches()

    def _caches(self) -> None:
        self._paper = lru_cache(maxsize=self.cache)(self.data.papers.__getitem__)
        self._body = lru_cache(maxsize=self.cache)(lambda paper: body_words(self._paper(paper)))

    def __getstate__(self) -> dict:
        """Picklable for dataloader workers: the caches are rebuilt, not copied."""
        state = dict(self.__dict__)
        del state["_body"], state["_paper"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._caches()

    def __call__(self, paper: int, view: int) -> str:
        record = self._paper(paper)
        if view == 0:
            return self.ta_prefix + ta_text(record)
        section = int(self.data.window_sections[paper][view - 1])
        return self.body_prefix + window_at(record, section, self.window_words, self._body(paper)).text

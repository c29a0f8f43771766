"""Training data from a built corpus: the split's papers, their body views, its citation pairs.

Papers are addressed by index (position in `TrainingData.papers`) so plans are
small integer arrays; `ViewTexts` turns a (paper, view) pair into the text the
encoder sees.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from sciembed.corpus.layout import CorpusDir, CorpusError
from sciembed.papers.model import Paper
from sciembed.views import ta_text, window_at
from sciembed.views.body import BodyWords, body_words
from sciembed.views.window import eligible_sections


@dataclass(frozen=True)
class TrainingData:
    split: str
    papers: tuple[Paper, ...]
    window_sections: tuple[tuple[int, ...], ...]  # per paper: sections a body view may start at
    pairs: np.ndarray  # (n, 2) paper indices, one row per undirected citation pair

    @property
    def n_body(self) -> np.ndarray:
        return np.fromiter((len(s) for s in self.window_sections), dtype=np.int64, count=len(self.papers))

    @property
    def ta_only(self) -> int:
        """Papers without body text: they serve as TA views only and never self-align."""
        return int((self.n_body == 0).sum())

    def summary(self) -> dict[str, int | str]:
        return {
            "split": self.split,
            "papers": len(self.papers),
            "papers_with_body": len(self.papers) - self.ta_only,
            "ta_only_papers": self.ta_only,
            "citation_pairs": len(self.pairs),
        }


def window_sections(paper: Paper) -> tuple[int, ...]:
    """Sections a body window may start at; none when the paper has no body text (headings alone are no body)."""
    return tuple(eligible_sections(paper)) if paper.has_body else ()


def load_training_data(corpus: str | Path | CorpusDir, split: str = "train") -> TrainingData:
    """Read one split; every failure names the corpus and what is missing."""
    corpus = corpus if isinstance(corpus, CorpusDir) else CorpusDir(corpus)
    corpus.require("papers.parquet")
    if not corpus.has_splits():
        raise CorpusError(
            f"{corpus.root}: no training split (pairs.parquet / splits.parquet missing); "
            "train on a built corpus (`sciembed corpus build`)"
        )
    ids = corpus.split_ids(split)
    if not ids:
        raise CorpusError(f"{corpus.root}: the {split} split has no papers")
    by_id = corpus.papers(ids)
    missing = [pid for pid in ids if pid not in by_id]
    if missing:
        raise CorpusError(
            f"{corpus.root}: {len(missing)} of {len(ids)} {split} papers listed in splits.parquet are not in "
            f"papers.parquet (first: {missing[0]!r})"
        )
    papers = tuple(by_id[pid] for pid in ids)
    index = {pid: i for i, pid in enumerate(ids)}
    raw_pairs = corpus.pairs(split)
    if not raw_pairs:
        raise CorpusError(f"{corpus.root}: the {split} split has no citation pairs in pairs.parquet")
    outside = [(a, b) for a, b in raw_pairs if a not in index or b not in index]
    if outside:
        raise CorpusError(
            f"{corpus.root}: {len(outside)} of {len(raw_pairs)} {split} pairs name papers outside the {split} "
            f"split (first: {outside[0]!r})"
        )
    pairs = np.asarray([(index[a], index[b]) for a, b in raw_pairs], dtype=np.int64)
    return TrainingData(split, papers, tuple(window_sections(p) for p in papers), pairs)


class ViewTexts:
    """Text of view ``v`` of paper ``i``: 0 is TA, ``v >= 1`` the window at the v-th window section.

    Training prefixes (``[TA] ``/``[BODY] ``) are added here; evaluation builds
    its own views without them.
    """

    def __init__(
        self, data: TrainingData, window_words: int, ta_prefix: str = "", body_prefix: str = "", cache: int = 4096
    ) -> None:
        self.data = data
        self.window_words = window_words
        self.ta_prefix = ta_prefix
        self.body_prefix = body_prefix
        self.cache = cache
        self._body = lru_cache(maxsize=cache)(self._body_words)

    def __getstate__(self) -> dict:
        """Picklable for dataloader workers: the body-word cache is rebuilt, not copied."""
        state = dict(self.__dict__)
        del state["_body"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._body = lru_cache(maxsize=self.cache)(self._body_words)

    def _body_words(self, paper: int) -> BodyWords:
        return body_words(self.data.papers[paper])

    def __call__(self, paper: int, view: int) -> str:
        record = self.data.papers[paper]
        if view == 0:
            return self.ta_prefix + ta_text(record)
        section = self.data.window_sections[paper][view - 1]
        return self.body_prefix + window_at(record, section, self.window_words, self._body(paper)).text

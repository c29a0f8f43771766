"""SemCSE's training source: papers (title + abstract) with their summaries.

Per paper (by index) the source keeps the summaries (flat Arrow strings) and counts; titles and abstract
sentences are read from the corpus's paper store when a batch needs them. Papers without summaries are left
out, counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.corpus.layout import CorpusDir, CorpusError
from sciembed.corpus.paper_store import StoredPapers, open_store
from sciembed.papers.model import Paper
from sciembed.summaries import SummaryFileError, read_summaries
from sciembed.summaries.records import SUMMARIES_FILE
from sciembed.training.data import Ragged
from sciembed.views import ta_text
from sciembed.views.chunk import split_sentences


class AbstractSentences(Sequence[tuple[str, ...]]):
    """Item ``i``: the non-empty sentences of paper i's abstract, cut when asked (from the stored paper)."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self.papers = papers

    def __len__(self) -> int:
        return len(self.papers)

    def __getitem__(self, i):  # type: ignore[override]
        return abstract_sentences(self.papers[i])


def abstract_sentences(paper: Paper) -> tuple[str, ...]:
    return tuple(s for s in split_sentences(paper.abstract or "") if s.strip())


@dataclass(frozen=True)
class SummaryData:
    """Training papers (rows of the paper store), their summaries (flat Arrow strings + offsets) and
    per-paper counts; titles and abstract sentences are read from the store when a batch needs them."""

    papers: Sequence[Paper]  # `StoredPapers`
    summaries: Ragged  # item i: paper i's summaries
    n_sentences: np.ndarray
    has_title: np.ndarray
    counts: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.papers)

    @property
    def n_summaries(self) -> np.ndarray:
        return self.summaries.lengths

    @property
    def sentences(self) -> AbstractSentences:
        return AbstractSentences(self.papers)

    def subset(self, indices: np.ndarray) -> SummaryData:
        idx = np.asarray(indices, dtype=np.int64)
        return SummaryData(self.papers.subset(idx), self.summaries.take(idx), self.n_sentences[idx],
                           self.has_title[idx], dict(self.counts))

    def ta(self, i: int) -> str:
        return ta_text(self.papers[i])

    def summary(self) -> dict[str, Any]:
        return {"papers": len(self), "summaries": int(self.n_summaries.sum()),
                "papers_with_one_summary": int((self.n_summaries == 1).sum()),
                "papers_without_sentences": int((self.n_sentences == 0).sum()), **self.counts}


def _split_papers(corpus: CorpusDir, split: str | None) -> StoredPapers:
    """The split's papers in id order (all papers: file order), as rows of the paper store."""
    store = open_store(corpus.root)
    if split is None:
        return StoredPapers(store, np.arange(len(store), dtype=np.int64))
    if not corpus.has_splits():
        raise CorpusError(f"{corpus.root}: no splits; leave data.split empty to train on every paper")
    rows = store.rows_of(corpus.split_id_array(split))
    return StoredPapers(store, rows[rows >= 0])


def load_summary_data(corpus: str | Path | CorpusDir, summaries_path: str | Path | None = None,
                      split: str | None = None, max_papers: int | None = None, seed: int = 0) -> SummaryData:
    """Papers of the corpus (one split, or all) that have at least one summary; any problem with the summaries
    file stops here with one message. `max_papers` keeps a seeded sample (the data-size ablation)."""
    corpus = corpus if isinstance(corpus, CorpusDir) else CorpusDir(corpus)
    corpus.require("papers.parquet")
    papers = _split_papers(corpus, split)
    if not len(papers):
        raise CorpusError(f"{corpus.root}: no papers{f' in the {split} split' if split else ''}")
    path = Path(summaries_path) if summaries_path else corpus.root / SUMMARIES_FILE
    if not path.is_file():
        raise SummaryFileError(f"{path}: no summaries file (make one with `sciembed summaries generate`)")
    read = read_summaries(path, papers.store.ids().to_pylist())
    if read.rejected:
        raise SummaryFileError(f"{path}: {sum(read.rejected.values())} of {read.read} lines rejected: "
                               f"{read.problems()}")
    by_paper: dict[str, list[str]] = {}
    for s in read.summaries:
        texts = by_paper.setdefault(s.paper_id, [])
        if s.text not in texts:
            texts.append(s.text)
    duplicates = len(read.summaries) - sum(len(t) for t in by_paper.values())
    ids = papers.ids()
    keep = np.fromiter((bool(by_paper.get(i)) for i in ids), dtype=bool, count=len(ids))
    in_split = set(ids)
    counts: dict[str, Any] = {
        "summaries_file": str(path), "summaries_by_source": read.by_source,
        "papers_in_split": len(papers), "papers_without_summaries": int(len(papers) - keep.sum()),
        "duplicate_summaries_dropped": duplicates,
        "summaries_of_papers_outside_split": sum(1 for s in read.summaries if s.paper_id not in in_split),
    }
    if not keep.any():
        raise SummaryFileError(f"{path}: none of the {len(papers)} papers has a summary")
    kept = np.flatnonzero(keep)
    if max_papers is not None and max_papers < len(kept):
        order = np.random.default_rng(seed).permutation(len(kept))[:max_papers]
        counts["papers_left_out_by_max_papers"] = len(kept) - max_papers
        kept = kept[np.sort(order)]
    chosen = papers.subset(kept)
    n_sentences, has_title = [], []
    for paper in chosen:
        n_sentences.append(len(abstract_sentences(paper)))
        has_title.append(bool(paper.title.strip()))
    return SummaryData(chosen, Ragged.from_lists((by_paper[ids[i]] for i in kept), strings=True),
                       np.asarray(n_sentences, dtype=np.int64), np.asarray(has_title, dtype=bool), counts)

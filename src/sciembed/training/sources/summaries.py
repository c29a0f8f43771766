"""SemCSE's training source: papers (title + abstract) with their summaries.

Papers are addressed by index so batch plans are small integer arrays. Per paper the source
keeps the summaries (anchors, and positives of kind "summary"), the title (kind "title") and
the abstract's sentences (kind "sentence"). A paper without summaries cannot be an anchor and
is left out, counted; a paper without abstract sentences simply cannot give a "sentence"
positive (counted; the plan draws another kind for it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.corpus.layout import CorpusDir, CorpusError
from sciembed.papers.model import Paper
from sciembed.summaries import SummaryFileError, read_summaries
from sciembed.views import ta_text
from sciembed.views.chunk import split_sentences

DEFAULT_SUMMARIES = "summaries.jsonl"


@dataclass(frozen=True)
class SummaryData:
    papers: tuple[Paper, ...]
    summaries: tuple[tuple[str, ...], ...]
    sentences: tuple[tuple[str, ...], ...]
    counts: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.papers)

    @property
    def n_summaries(self) -> np.ndarray:
        return np.fromiter((len(s) for s in self.summaries), dtype=np.int64, count=len(self))

    @property
    def n_sentences(self) -> np.ndarray:
        return np.fromiter((len(s) for s in self.sentences), dtype=np.int64, count=len(self))

    @property
    def has_title(self) -> np.ndarray:
        return np.fromiter((bool(p.title.strip()) for p in self.papers), dtype=bool, count=len(self))

    def subset(self, indices: np.ndarray) -> SummaryData:
        idx = [int(i) for i in indices]
        return SummaryData(tuple(self.papers[i] for i in idx), tuple(self.summaries[i] for i in idx),
                           tuple(self.sentences[i] for i in idx), dict(self.counts))

    def ta(self, i: int) -> str:
        return ta_text(self.papers[i])

    def summary(self) -> dict[str, Any]:
        return {"papers": len(self), "summaries": int(self.n_summaries.sum()),
                "papers_with_one_summary": int((self.n_summaries == 1).sum()),
                "papers_without_sentences": int((self.n_sentences == 0).sum()), **self.counts}


def _split_papers(corpus: CorpusDir, split: str | None) -> list[Paper]:
    if split is None:
        return list(corpus.iter_papers())
    if not corpus.has_splits():
        raise CorpusError(f"{corpus.root}: no splits; leave data.split empty to train on every paper")
    ids = corpus.split_ids(split)
    by_id = corpus.papers(ids)
    return [by_id[i] for i in ids if i in by_id]


def load_summary_data(corpus: str | Path | CorpusDir, summaries_path: str | Path | None = None,
                      split: str | None = None, max_papers: int | None = None, seed: int = 0) -> SummaryData:
    """Papers of the corpus (one split, or all) that have at least one summary.

    Every problem with the summaries file (unknown papers, empty texts, bad lines) stops here with
    one message naming the file, first line and count of each kind. `max_papers` keeps a seeded
    sample (the data-size ablation).
    """
    corpus = corpus if isinstance(corpus, CorpusDir) else CorpusDir(corpus)
    corpus.require("papers.parquet")
    papers = _split_papers(corpus, split)
    if not papers:
        raise CorpusError(f"{corpus.root}: no papers{f' in the {split} split' if split else ''}")
    path = Path(summaries_path) if summaries_path else corpus.root / DEFAULT_SUMMARIES
    if not path.is_file():
        raise SummaryFileError(f"{path}: no summaries file (make one with `sciembed summaries generate`)")
    known = {p.id for p in corpus.iter_papers()}
    read = read_summaries(path, known)
    if read.rejected:
        raise SummaryFileError(f"{path}: {sum(read.rejected.values())} of {read.read} lines rejected: "
                               f"{read.problems()}")
    by_paper: dict[str, list[str]] = {}
    for s in read.summaries:
        texts = by_paper.setdefault(s.paper_id, [])
        if s.text not in texts:
            texts.append(s.text)
    duplicates = len(read.summaries) - sum(len(t) for t in by_paper.values())
    kept = [p for p in papers if by_paper.get(p.id)]
    in_split = {p.id for p in papers}
    counts: dict[str, Any] = {
        "summaries_file": str(path), "summaries_by_source": read.by_source,
        "papers_in_split": len(papers), "papers_without_summaries": len(papers) - len(kept),
        "duplicate_summaries_dropped": duplicates,
        "summaries_of_papers_outside_split": sum(1 for s in read.summaries if s.paper_id not in in_split),
    }
    if not kept:
        raise SummaryFileError(f"{path}: none of the {len(papers)} papers has a summary")
    if max_papers is not None and max_papers < len(kept):
        order = np.random.default_rng(seed).permutation(len(kept))[:max_papers]
        counts["papers_left_out_by_max_papers"] = len(kept) - max_papers
        kept = [kept[i] for i in sorted(order)]
    return SummaryData(
        papers=tuple(kept),
        summaries=tuple(tuple(by_paper[p.id]) for p in kept),
        sentences=tuple(tuple(s for s in split_sentences(p.abstract or "") if s.strip()) for p in kept),
        counts=counts,
    )

"""SciJEPA's section-pair source: (title+abstract → method) and (method → conclusion) pairs from any
ingested corpus directory; no citation graph needed.

Papers go through a funnel (every paper read ends in exactly one row: kept or the first reason it failed);
examples (a paper uniform with replacement, then one of its tasks) are drawn once, up front, from the seed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sciembed.corpus.layout import CorpusDir, CorpusError
from sciembed.corpus.paper_store import STORE_BATCH_ROWS, StoredPapers, open_store
from sciembed.papers.model import Paper, RawSections
from sciembed.papers.roles import conclusion_section_index, method_section_index
from sciembed.papers.sections import raw_section_stats
from sciembed.training.sources.exclude import ExcludeKeys, load_exclude_keys
from sciembed.views import ta_text
from sciembed.views.simple import section_view

if TYPE_CHECKING:
    from sciembed.training.config import SectionFilterConfig

TASKS = ("ta_to_method", "method_to_conclusion")
TA_TO_METHOD, METHOD_TO_CONCLUSION = 0, 1

# Funnel rows in the order they are checked; a paper is counted under the first one it fails.
REASONS = ("excluded", "short_abstract", "too_few_sections", "too_many_sections", "short_body", "malformed_headings",
           "no_method")

class SourceError(CorpusError):
    """No usable section pairs in a corpus; the message says which filter removed the papers."""


def section_counts(paper: Paper, on: str) -> tuple[RawSections, bool]:
    """The counts the filters read, and whether they are the raw ones: ``on="raw"`` (the paper's) takes the
    source parse's sections where the reader recorded them, else (and for ``"normalised"``) sciembed's."""
    if on == "raw" and paper.raw_sections is not None:
        return paper.raw_sections, True
    return raw_section_stats(paper.sections), False


def rejection(paper: Paper, filters: SectionFilterConfig, counts: RawSections | None = None) -> str | None:
    """The first paper filter `paper` fails, or None (decontamination and method are checked apart);
    `counts`: the section counts to filter on (default: `section_counts` by `filters.sections`)."""
    if len(paper.abstract.strip()) < filters.min_abstract_chars:
        return "short_abstract"
    if counts is None:
        counts = section_counts(paper, filters.sections)[0]
    n = counts.count
    if n < filters.min_sections:
        return "too_few_sections"
    if n > filters.max_sections:
        return "too_many_sections"
    if counts.body_chars < filters.min_body_chars:
        return "short_body"
    if counts.malformed_headings > filters.max_malformed_share * n:
        return "malformed_headings"
    return None


@dataclass(frozen=True)
class SectionPairData:
    corpus: str
    split: str  # "all" or the corpus split the papers came from
    papers: Sequence[Paper]  # `StoredPapers`: read from the paper store when indexed
    method: np.ndarray  # section index of each kept paper's method section
    conclusion: np.ndarray  # section index of its conclusion, -1 when it has none
    funnel: dict[str, int]  # read, one count per reason, kept
    exclude_sources: tuple[tuple[str, int], ...] = ()
    filtered_on: dict[str, int] = field(default_factory=dict)  # papers filtered on raw / normalised sections

    @property
    def with_conclusion(self) -> int:
        return int((self.conclusion >= 0).sum())

    def summary(self) -> dict[str, Any]:
        return {"corpus": self.corpus, "split": self.split, "funnel": dict(self.funnel), "papers": len(self.papers),
                "papers_with_conclusion": self.with_conclusion,
                "papers_method_only": len(self.papers) - self.with_conclusion,
                "exclude_sources": [{"path": p, "values": n} for p, n in self.exclude_sources],
                "section_filters_on": dict(self.filtered_on)}


def _split_chunks(corpus: CorpusDir, split: str) -> tuple[Iterator[list[tuple[int, Paper]]], str]:
    """Chunks of (row in papers.parquet = row in the paper store, paper) of the split, in file order."""
    corpus.require("papers.parquet")
    wanted = None
    name = "all"
    if not (split == "all" or (split == "auto" and not corpus.has_splits())):
        name = "train" if split == "auto" else split
        wanted = corpus.split_id_array(name)
    return _stream(corpus.papers_path, wanted), name


def _stream(path: Path, wanted: pa.Array | None) -> Iterator[list[tuple[int, Paper]]]:
    row = 0
    for batch in pq.ParquetFile(path, pre_buffer=False).iter_batches(batch_size=STORE_BATCH_ROWS):  # see build_store
        rows = np.arange(row, row + batch.num_rows)
        row += batch.num_rows
        if wanted is not None:
            mask = pc.is_in(batch.column("id"), value_set=wanted)
            batch = batch.filter(mask)
            rows = rows[mask.to_numpy(zero_copy_only=False)]
        yield list(zip(rows.tolist(), map(Paper.from_dict, batch.to_pylist()), strict=True))


def load_section_pairs(corpus: str | Path | CorpusDir, filters: SectionFilterConfig,
                       exclude: Sequence[str | Path] | ExcludeKeys = (), split: str = "auto") -> SectionPairData:
    """Stream the corpus through the funnel, find method/conclusion sections; keep row numbers, not
    texts (`StoredPapers` reads a kept paper from the paper store when a batch needs it). Raises
    `SourceError` when no paper is left, naming the filter that removed the most."""
    corpus = corpus if isinstance(corpus, CorpusDir) else CorpusDir(corpus)
    keys = exclude if isinstance(exclude, ExcludeKeys) else load_exclude_keys(exclude)
    chunks, split_name = _split_chunks(corpus, split)
    funnel = {"read": 0, **{r: 0 for r in REASONS}, "kept": 0}
    kept: list[int] = []
    methods: list[int] = []
    conclusions: list[int] = []
    filtered_on = {"raw_sections": 0, "normalised_sections": 0}
    for chunk in chunks:
        papers = [p for _, p in chunk]
        funnel["read"] += len(papers)
        for (row, paper), is_excluded in zip(chunk, keys.matches(papers), strict=True):
            counts, raw = section_counts(paper, filters.sections)
            filtered_on["raw_sections" if raw else "normalised_sections"] += not is_excluded
            reason = "excluded" if is_excluded else rejection(paper, filters, counts)
            method = None
            if reason is None:
                method = method_section_index(paper)
                if method is None:
                    reason = "no_method"
            if reason is not None:
                funnel[reason] += 1
                continue
            conclusion = conclusion_section_index(paper)
            kept.append(row)
            methods.append(method)
            conclusions.append(-1 if conclusion is None else conclusion)
    funnel["kept"] = len(kept)
    if not kept:
        raise SourceError(_empty_message(corpus.root, funnel))
    kept_papers = StoredPapers(open_store(corpus.root), np.asarray(kept, dtype=np.int64))
    return SectionPairData(str(corpus.root), split_name, kept_papers, np.asarray(methods, dtype=np.int64),
                           np.asarray(conclusions, dtype=np.int64), funnel, tuple(keys.sources), filtered_on)


def _empty_message(root: Path, funnel: dict[str, int]) -> str:
    removed = ", ".join(f"{r} {funnel[r]}" for r in REASONS if funnel[r])
    if funnel["read"] == 0:
        return f"{root}: no papers to read"
    passed = funnel["no_method"]
    if passed and passed == funnel["read"] - sum(funnel[r] for r in REASONS if r != "no_method"):
        return (f"{root}: none of the {passed} papers that pass the filters has a method section (of "
                f"{funnel['read']} read; removed: {removed})")
    return f"{root}: no paper passes the section-pair filters ({funnel['read']} read; removed: {removed})"


def draw_examples(data: SectionPairData, examples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """`examples` (paper, task) draws: paper uniform with replacement, then one of its tasks uniform."""
    rng = np.random.default_rng(seed)
    paper = rng.integers(0, len(data.papers), size=examples)
    coin = rng.integers(0, 2, size=examples)
    task = np.where(data.conclusion[paper] >= 0, coin, TA_TO_METHOD).astype(np.int64)
    return paper.astype(np.int64), task


def task_shares(task: np.ndarray) -> dict[str, float]:
    counts = np.bincount(task, minlength=len(TASKS))
    total = max(int(counts.sum()), 1)
    return {name: float(c) / total for name, c in zip(TASKS, counts, strict=True)}


class SectionPairTexts:
    """(context, target) texts of example (paper, task): TA → method section, method → conclusion.

    Sections enter whole (heading + text); the tokenizer cuts them at ``max_seq_length``.
    """

    def __init__(self, data: SectionPairData) -> None:
        self.data = data

    def __call__(self, paper: int, task: int) -> tuple[str, str]:
        record = self.data.papers[paper]
        method = section_view(record, int(self.data.method[paper])).text
        if task == TA_TO_METHOD:
            return ta_text(record), method
        conclusion = int(self.data.conclusion[paper])
        if conclusion < 0:
            raise ValueError(f"paper {record.id!r} has no conclusion section; task {TASKS[task]} is unavailable")
        return method, section_view(record, conclusion).text

"""Same-paper section retrieval (CoSAEmb's evaluation), from any corpus directory.

Every section text of every sampled paper is a query against all the others; a hit is another section of the
same paper. Section texts are CoSAEmb's: the sections of one class (introduction, related work, method, results,
conclusion; anything else is method) merged in paper order, read from the start up to the model's token budget
(``title. text``, or the first ``input_format: cosaemb`` chunk, see `input_format`; ``title=False`` drops the
title). Scored with success@1/@3 (ranx's ``hit_rate@k``), MRR and the usual metrics. Papers with fewer than two
section texts are candidates only (counted); ``sample`` draws papers with the seed (the paper: 1,500 held out).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.corpus.layout import SPLITS, CorpusDir
from sciembed.evaluation.contract import FingerprintOnce, RankingTask, json_digest
from sciembed.evaluation.issues import IssueLog
from sciembed.evaluation.keys import ScenarioKey
from sciembed.papers.model import Paper
from sciembed.views.chunk import SectionText, section_texts

KEY: ScenarioKey = ("section", None)
SECTION_METRICS: tuple[str, ...] = ("hit_rate@1", "hit_rate@3")  # beyond the contract's ranking metrics


@dataclass
class SectionRetrievalBenchmark(FingerprintOnce):
    source: str
    papers: dict[str, Paper]  # sampled papers with at least one section text
    units: dict[str, SectionText]  # unit id ("<paper>#<class>") -> section text
    title: bool = True
    seed: int = 0
    sample: int | None = None
    split: str | None = None
    issues: IssueLog = field(default_factory=IssueLog)
    name: str = "section"
    kind: str = "section"
    metrics: tuple[str, ...] = SECTION_METRICS

    def keys(self, scenarios: Any = None, body_modes: Any = None) -> list[ScenarioKey]:
        return [KEY]

    def text(self, unit_id: str) -> str:
        """The plain text of a section text (a CoSAEmb model gets its first chunk instead)."""
        unit = self.units[unit_id]
        title = self.papers[unit.paper_id].title.strip().rstrip(".")
        return f"{title}. {unit.text}" if self.title and title else unit.text

    def task(self, key: ScenarioKey, window_words: int) -> RankingTask:
        ids = sorted(self.units)
        by_paper: dict[str, list[str]] = {}
        for uid in ids:
            by_paper.setdefault(self.units[uid].paper_id, []).append(uid)
        queries = [uid for uid in ids if len(by_paper[self.units[uid].paper_id]) > 1]
        qrels = {q: {o: 1 for o in by_paper[self.units[q].paper_id] if o != q} for q in queries}
        return RankingTask("section", {q: self.text(q) for q in queries}, {d: self.text(d) for d in ids}, qrels,
                           extra_metrics=self.metrics)  # the query section never retrieves itself

    def _digest(self) -> str:
        return json_digest([self.title, self.seed, self.sample, self.split],
                           *([uid, self.text(uid)] for uid in sorted(self.units)))

    def describe(self) -> dict[str, Any]:
        task = self.task(KEY, 0)
        return {"kind": self.kind, "name": self.name, "source": self.source, "split": self.split,
                "fingerprint": self.fingerprint(), "papers": len(self.papers), "section_texts": len(self.units),
                "queries": len(task.queries), "title": self.title, "sample": self.sample, "seed": self.seed,
                "unit": "class-merged section text, read up to the model's token budget",
                "issues": self.issues.to_list()}


def unit_id(unit: SectionText) -> str:
    return f"{unit.paper_id}#{unit.role.value}"


def build_section_benchmark(corpus: CorpusDir | Path | str, *, split: str | None = None, sample: int | None = None,
                            seed: int = 0, title: bool = True) -> SectionRetrievalBenchmark:
    """Papers of `split` (a built corpus) or of the whole directory (an ingested one, or `split=None`)."""
    corpus = corpus if isinstance(corpus, CorpusDir) else CorpusDir(corpus)
    corpus.require("papers.parquet")
    issues = IssueLog()
    if split is not None and corpus.has_splits():
        if split not in SPLITS:
            raise ValueError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
        papers = corpus.papers(corpus.split_ids(split))
    else:
        split = None
        papers = corpus.papers()
    ids = sorted(papers)
    if sample is not None:
        if sample < 2:
            raise ValueError(f"sample must be at least 2 papers, got {sample}")
        if sample < len(ids):
            rng = np.random.default_rng(seed)
            ids = sorted(ids[i] for i in rng.choice(len(ids), size=sample, replace=False))
    kept: dict[str, Paper] = {}
    units: dict[str, SectionText] = {}
    for pid in ids:
        texts = section_texts(papers[pid])
        if not texts:
            issues.add("paper without body text", "paper left out (no section text)", where="papers.parquet",
                       example=pid)
            continue
        if len(texts) == 1:
            issues.add("paper with one section text", "candidate only, not a query", where="papers.parquet",
                       example=pid)
        kept[pid] = papers[pid]
        units.update((unit_id(u), u) for u in texts)
    if len(kept) < 2 or not any(len(section_texts(p)) > 1 for p in kept.values()):
        raise ValueError(f"{corpus.root}: section retrieval needs at least two papers and one with two or more "
                         f"section texts; found {len(kept)} papers with body")
    return SectionRetrievalBenchmark(source=str(corpus.root), papers=kept, units=units, title=title, seed=seed,
                                     sample=sample, split=split, issues=issues,
                                     name=f"{corpus.root.name}:sections" + (f":{split}" if split else ""))

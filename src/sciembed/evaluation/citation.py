"""The S2Full citation-retrieval benchmark, read from a built corpus.

Queries are the split's anchors, the papers that seeded its citation balls (S2Full: 10,022 anchors, about 5.5
relevant papers each, among 63,095 candidates); relevant = every paper linked to the anchor (links are
undirected). ``queries="linked"`` makes every paper with an in-split link a query (the earlier protocol, and the
fallback for corpora built before `splits.parquet` recorded anchors). Candidates are all papers of the split, as
title+abstract (TA) or body text: the section the paper log names, whole (``full``) or the window of the model's
word budget from its header (``windowed``), so every model reads the same place in every paper.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from sciembed.corpus.layout import CorpusDir
from sciembed.evaluation.contract import FingerprintOnce, RankingTask, json_digest
from sciembed.evaluation.issues import BenchmarkError, IssueLog
from sciembed.evaluation.keys import BODY_MODES, BODY_SCENARIOS, SCENARIOS, ScenarioKey, key_str, scenario_keys
from sciembed.papers.model import Paper
from sciembed.views import build_paper_log, section_view, ta_text, window_at
from sciembed.views.paper_log import LogEntry

UNKNOWN_DOMAIN = "unknown"
QUERY_MODES = ("anchors", "linked")


@dataclass
class CitationBenchmark(FingerprintOnce):
    """Papers, links and the paper log of one split; `task` cuts the texts for one scenario."""

    source: str
    split: str
    paper_log_seed: int
    papers: dict[str, Paper]  # every usable paper of the split, by id (sorted)
    links: dict[str, set[str]]  # paper id -> linked paper ids (symmetric)
    paper_log: dict[str, LogEntry]
    domains: dict[str, str]
    issues: IssueLog = field(default_factory=IssueLog)
    anchors: frozenset[str] | None = None  # None: every linked paper is a query ("linked" mode)
    name: str = "citation"
    kind: str = "citation"

    @property
    def query_mode(self) -> str:
        return "linked" if self.anchors is None else "anchors"

    @property
    def query_ids(self) -> list[str]:
        """Anchors (or, in "linked" mode, papers) with at least one link inside the split, sorted."""
        pool = self.papers if self.anchors is None else (p for p in self.papers if p in self.anchors)
        return sorted(pid for pid in pool if self.links.get(pid))

    def pairs(self) -> list[tuple[str, str]]:
        return sorted({(min(a, b), max(a, b)) for a, nbrs in self.links.items() for b in nbrs})

    def without_body(self) -> list[str]:
        return sorted(pid for pid in self.papers if pid not in self.paper_log)

    def keys(self, scenarios: Any = SCENARIOS, body_modes: Any = BODY_MODES) -> list[ScenarioKey]:
        return scenario_keys(scenarios, body_modes)

    def ta(self, pid: str, join: str = ". ") -> str:
        return ta_text(self.papers[pid], join)

    def body(self, pid: str, mode: str, window_words: int) -> str:
        """The logged body text of a paper (it must have a log entry)."""
        entry = self.paper_log[pid]
        paper = self.papers[pid]
        if mode == "full":
            return section_view(paper, entry.section).text
        if mode == "windowed":
            return window_at(paper, entry.section, window_words).text
        raise ValueError(f"unknown body mode {mode!r}; expected one of {', '.join(BODY_MODES)}")

    def task(self, key: ScenarioKey, window_words: int, ta_join: str = ". ") -> RankingTask:
        """One scenario; `ta_join` is what the model puts between title and abstract (". " or its [SEP])."""
        scenario, mode = key
        notes = IssueLog()
        body_queries = scenario in BODY_SCENARIOS
        body_docs = scenario == "body_body"
        if scenario not in SCENARIOS:
            raise ValueError(f"unknown scenario {scenario!r}; expected one of {', '.join(SCENARIOS)}")

        def text(pid: str, body: bool) -> str:
            return self.body(pid, mode or "windowed", window_words) if body else self.ta(pid, ta_join)

        doc_ids = []
        for pid in sorted(self.papers):
            if body_docs and pid not in self.paper_log:
                notes.add("candidate paper has no body", "left out of the body candidates", example=pid)
            else:
                doc_ids.append(pid)
        candidates = set(doc_ids)
        query_ids, qrels = [], {}
        for pid in self.query_ids:
            if body_queries and pid not in self.paper_log:
                notes.add("query paper has no body", "query left out of this scenario", example=pid)
                continue
            relevant = {other: 1 for other in sorted(self.links[pid]) if other in candidates}
            if not relevant:
                notes.add("no linked paper among the candidates", "query left out of this scenario", example=pid)
                continue
            query_ids.append(pid)
            qrels[pid] = relevant
        return RankingTask(key_str(key), {pid: text(pid, body_queries) for pid in query_ids},
                           {pid: text(pid, body_docs) for pid in doc_ids}, qrels,  # a query never retrieves itself
                           notes=[issue.message() for issue in notes])

    def _digest(self) -> str:
        """The fingerprint: changes whenever the papers, the links, the split or the paper log change."""
        # "linked" benchmarks keep the fingerprint they had before anchors existed
        anchors = [] if self.anchors is None else [["anchors", sorted(self.anchors)]]
        papers = ([pid, p.title, p.abstract, [s.text for s in p.sections]] for pid, p in sorted(self.papers.items()))
        return json_digest([self.split, self.paper_log_seed], *anchors, *papers, self.pairs(),
                           sorted((p, e.section) for p, e in self.paper_log.items()))

    def describe(self) -> dict[str, Any]:
        queries = self.query_ids
        return {
            "kind": self.kind, "name": self.name, "source": self.source, "split": self.split,
            "paper_log_seed": self.paper_log_seed, "fingerprint": self.fingerprint(), "papers": len(self.papers),
            "links": len(self.pairs()), "queries": len(queries), "query_mode": self.query_mode,
            "mean_relevant_per_query": round(sum(len(self.links[q]) for q in queries) / len(queries), 4)
            if queries else 0.0,
            "papers_without_body": len(self.without_body()),
            "queries_without_body": sum(1 for q in queries if q not in self.paper_log),
            "query_domains": dict(sorted(Counter(self.domains.get(q, UNKNOWN_DOMAIN) for q in queries).items())),
            "issues": self.issues.to_list()}


def _split_domains(corpus: CorpusDir, split: str) -> dict[str, str]:
    """Domain per paper as the corpus builder assigned it in splits.parquet (if the column exists)."""
    schema = pq.read_schema(corpus.splits_path)
    if "domain" not in schema.names:
        return {}
    table = pq.read_table(corpus.splits_path, columns=["paper_id", "split", "domain"]).to_pydict()
    return {pid: dom for pid, s, dom in zip(table["paper_id"], table["split"], table["domain"], strict=True)
            if s == split and dom}


def build_citation_benchmark(corpus: CorpusDir | Path | str, split: str = "test", paper_log_seed: int = 0,
                             queries: str = "anchors") -> CitationBenchmark:
    """Read one split of a built corpus; every link or paper it cannot use is counted in `issues`.

    `queries`: "anchors" (the paper's protocol) or "linked" (every paper with an in-split link).
    """
    if queries not in QUERY_MODES:
        raise ValueError(f"unknown query mode {queries!r}; expected one of {', '.join(QUERY_MODES)}")
    corpus = corpus if isinstance(corpus, CorpusDir) else CorpusDir(corpus)
    issues = IssueLog()
    anchors: frozenset[str] | None = None
    if queries == "anchors":
        listed = corpus.anchor_ids(split)
        if listed is None:
            issues.add("splits.parquet has no anchor column (corpus built before anchors were recorded)",
                       "every paper with an in-split link is a query (queries='linked')", where="splits.parquet")
        else:
            anchors = frozenset(listed)
    ids = corpus.split_ids(split)
    papers = corpus.papers(ids)
    for pid in ids:
        if pid not in papers:
            issues.add("split paper missing from papers.parquet", "paper left out", where="splits.parquet",
                       example=pid)
    usable: dict[str, Paper] = {}
    for pid in sorted(papers):
        if ta_text(papers[pid]).strip():
            usable[pid] = papers[pid]
        else:
            issues.add("paper with empty title and abstract", "paper left out (no TA text)",
                       where="papers.parquet", example=pid)
    links: dict[str, set[str]] = defaultdict(set)
    for a, b in corpus.pairs(split):
        if a == b:
            issues.add("self-citation pair", "pair ignored", where="pairs.parquet", example=a)
        elif a not in usable or b not in usable:
            missing = a if a not in usable else b
            issues.add("pair names a paper that is not usable in this split", "pair ignored",
                       where="pairs.parquet", example=f"{a}-{b} ({missing})")
        else:
            links[a].add(b)
            links[b].add(a)
    if not links:  # no query has a relevant paper: fail before encoding anything
        raise BenchmarkError(f"{corpus.root}: the {split} split has no citation link between usable papers, "
                             "so no query can be evaluated")
    paper_log = build_paper_log((usable[pid] for pid in sorted(usable)), seed=paper_log_seed)
    split_domains = _split_domains(corpus, split)
    domains = {pid: split_domains.get(pid) or usable[pid].domain or UNKNOWN_DOMAIN for pid in usable}
    return CitationBenchmark(source=str(corpus.root), split=split, paper_log_seed=paper_log_seed, papers=usable,
                             links=dict(links), paper_log=paper_log, domains=domains, issues=issues, anchors=anchors,
                             name=f"{corpus.root.name}:{split}")


"""The paper-to-paper benchmark kind: whole query papers against a corpus of full-text candidates.

Relevance per split (``references``, ``citations`` or a user's own), graded allowed; the query paper is never
a candidate for itself, by id or by normalised title. Built from a corpus with directed citations, a whole
ingested collection, a corpus + queries file + TREC qrels, or SciFullBench (`scifullbench`).
See docs/paper-to-paper.md.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.corpus.layout import CorpusDir
from sciembed.evaluation.contract import FingerprintOnce, json_digest
from sciembed.evaluation.issues import BenchmarkError, IssueLog
from sciembed.papers.model import Paper
from sciembed.papers.titles import TitleTwins
from sciembed.search.prism.index import Candidate
from sciembed.views.segment import DEFAULT_SEGMENT_TOKENS, segment_views
from sciembed.views.simple import full_text
from sciembed.views.tokens import TokenCounter, approx_tokens

SPLITS = ("references", "citations")
KIND = "paper_to_paper"


def candidate_of(paper: Paper, segment_tokens: int = DEFAULT_SEGMENT_TOKENS,
                 count: TokenCounter = approx_tokens) -> Candidate:
    segments = tuple(v.text for v in segment_views(paper, segment_tokens, count))
    return Candidate(paper.id, paper.title, paper.abstract, segments, full_text(paper))


@dataclass
class PaperToPaperBenchmark(FingerprintOnce):
    name: str
    source: str
    queries: dict[str, Paper]  # evaluated query papers
    qrels: dict[str, dict[str, dict[str, int]]]  # split -> query id -> candidate id -> relevance
    issues: IssueLog
    papers: dict[str, Paper] = field(default_factory=dict)  # candidates as papers (corpus routes)
    fixed_candidates: dict[str, Candidate] | None = None  # candidates with given segments (SciFullBench)
    venues: dict[str, str] = field(default_factory=dict)  # query id -> venue group (per-venue averages)
    kind: str = KIND

    @property
    def splits(self) -> list[str]:
        return list(self.qrels)

    def candidates(self, segment_tokens: int = DEFAULT_SEGMENT_TOKENS,
                   count: TokenCounter = approx_tokens, segments: bool = True) -> list[Candidate]:
        """Every candidate, sorted by id; corpus routes cut segments of `segment_tokens` here (none when
        `segments` is False: cutting a large collection's segments takes minutes)."""
        if self.fixed_candidates is not None:
            return [self.fixed_candidates[c] for c in sorted(self.fixed_candidates)]
        if not segments:
            return [Candidate(p.id, p.title, p.abstract, (), full_text(p)) for p in
                    (self.papers[i] for i in sorted(self.papers))]
        return [candidate_of(self.papers[p], segment_tokens, count) for p in sorted(self.papers)]

    def candidate_titles(self) -> dict[str, str]:
        if self.fixed_candidates is not None:
            return {c.id: c.title for c in self.fixed_candidates.values()}
        return {p.id: p.title for p in self.papers.values()}

    def exclusions(self) -> dict[str, list[str]]:
        """Query id -> candidate ids it must never retrieve (itself, and papers with its normalised title)."""
        twins = TitleTwins(self.candidate_titles().items())
        return {q: twins.excluded(q, paper.title) for q, paper in self.queries.items()}

    def subset(self, query_ids: Iterable[str], name: str) -> PaperToPaperBenchmark:
        """The same candidates with only the given query papers (e.g. a val or test query split)."""
        keep = set(query_ids)
        qrels = {s: {q: r for q, r in rel.items() if q in keep} for s, rel in self.qrels.items()}
        evaluated = {q for rel in qrels.values() for q in rel}
        return PaperToPaperBenchmark(name, self.source, {q: p for q, p in self.queries.items() if q in evaluated},
                                     qrels, self.issues, self.papers, self.fixed_candidates,
                                     {q: v for q, v in self.venues.items() if q in evaluated}, self.kind)

    def query_ids(self, split: str) -> list[str]:
        return sorted(self.qrels[split])

    def _digest(self) -> str:
        return json_digest(sorted((q, p.title, p.abstract, len(p.sections)) for q, p in self.queries.items()),
                           sorted(self.candidate_titles().items()),
                           {s: sorted((q, sorted(r.items())) for q, r in rel.items()) for s, rel in self.qrels.items()})

    def describe(self) -> dict[str, Any]:
        return {
            **self.identity(),
            "candidates": len(self.candidate_titles()),
            "query_papers": len(self.queries),
            "queries_per_split": {s: len(r) for s, r in self.qrels.items()},
            "relevant_per_split": {s: sum(sum(1 for v in rel.values() if v > 0) for rel in r.values())
                                   for s, r in self.qrels.items()},
            "venues": dict(sorted(Counter(self.venues.values()).items())),
            "issues": self.issues.to_list(),
        }


def keep_queries_with_gold(qrels: dict[str, dict[str, int]], min_gold: int, split: str,
                           issues: IssueLog) -> dict[str, dict[str, int]]:
    """Queries with at least `min_gold` relevant candidates; the others are counted, never silently dropped."""
    kept = {}
    for q in sorted(qrels):
        gold = sum(1 for r in qrels[q].values() if r > 0)
        if gold >= min_gold:
            kept[q] = qrels[q]
        else:
            issues.add(f"{split}: query has fewer than {min_gold} gold papers in the corpus", "query not evaluated",
                       example=q)
    return kept


def _venue(paper: Paper) -> str:
    return paper.venue or "unknown"


def build_paper_to_paper(corpus: str | Path, *, split: str = "test", min_gold: int = 1,
                         splits: Iterable[str] = SPLITS,
                         citations: Callable[[str], Iterable[tuple[str, str]]] | None = None) -> PaperToPaperBenchmark:
    """References / Citations splits from a corpus with directed citations (``citations.parquet``).

    Queries and candidates are the papers of one corpus split: splits share no paper and citations stay inside
    a split, so every candidate can be judged. `citations` returns a split's (citing, cited) pairs
    (default `CorpusDir.citations`).
    """
    if min_gold < 1:
        raise ValueError(f"min_gold must be at least 1, got {min_gold}")
    cdir = CorpusDir(corpus)
    get = citations or getattr(cdir, "citations", None)
    if get is None:
        raise BenchmarkError(f"{corpus}: this sciembed has no directed citations (CorpusDir.citations)")
    query_ids = set(cdir.split_ids(split))
    papers = cdir.papers(query_ids)
    issues = IssueLog()
    refs: dict[str, dict[str, int]] = {}
    cits: dict[str, dict[str, int]] = {}
    for citing, cited in get(split):
        if citing not in papers or cited not in papers:
            issues.add("citation names a paper outside the split's papers", "citation ignored",
                       example=f"{citing}->{cited}")
            continue
        if citing == cited:
            issues.add("self-citation", "citation ignored", example=citing)
            continue
        if citing in query_ids:
            refs.setdefault(citing, {})[cited] = 1
        if cited in query_ids:
            cits.setdefault(cited, {})[citing] = 1
    wanted = list(splits)
    for name, rel in (("references", refs), ("citations", cits)):
        if name in wanted:
            for q in sorted(query_ids - set(rel)):
                issues.add(f"{name}: query has no gold paper in the split", "query not evaluated in this split",
                           example=q)
    qrels = {name: keep_queries_with_gold(rel, min_gold, name, issues)
             for name, rel in (("references", refs), ("citations", cits)) if name in wanted}
    return _corpus_benchmark(f"{Path(corpus).name}:{split} (paper-to-paper, ≥{min_gold} gold)", corpus, qrels,
                             issues, papers)


def _corpus_benchmark(name: str, corpus: str | Path, qrels: dict[str, dict[str, dict[str, int]]],
                      issues: IssueLog, papers: dict[str, Paper]) -> PaperToPaperBenchmark:
    """The benchmark of a corpus route: its evaluated queries (those with qrels), no-body queries counted."""
    evaluated = sorted({q for rel in qrels.values() for q in rel})
    no_body = [q for q in evaluated if not papers[q].has_body]
    if no_body:
        issues.add("query paper has no body text", "only its abstract query is possible", n=len(no_body),
                   example=no_body[0])
    return PaperToPaperBenchmark(name=name, source=str(corpus), queries={q: papers[q] for q in evaluated},
                                 qrels=qrels, issues=issues, papers=papers,
                                 venues={q: _venue(papers[q]) for q in evaluated})


QUERY_SPLITS = ("val", "test", "all")


def query_split_of(paper_id: str, seed: int, val_share: float) -> str:
    """``val`` or ``test`` for a query paper: a seeded hash of its id, stable as the corpus grows."""
    digest = hashlib.blake2b(f"{seed}:{paper_id}".encode(), digest_size=8).digest()
    return "val" if int.from_bytes(digest, "big") / 2**64 < val_share else "test"


def build_collection_paper_to_paper(corpus: str | Path, *, split: str = "test", seed: int = 0,
                                    val_share: float = 0.3, min_gold: int = 1, splits: Iterable[str] = SPLITS,
                                    query_splits: Mapping[str, str] | None = None) -> PaperToPaperBenchmark:
    """References / Citations over a whole *ingested* collection (e.g. the ACL GROBID corpus).

    Citations are the papers' bibliographies resolved in the collection (`directed_citations`); candidates are
    every paper but the query. Queries (≥ `min_gold` gold papers) go to ``val`` (fusion tuning) or ``test``
    (reporting) by a seeded hash of their id (``all``: both), or by `query_splits` (paper id -> a built corpus's
    split) when given. The bibliography is never a query section.
    """
    if split not in QUERY_SPLITS:
        raise BenchmarkError(f"unknown query split {split!r}; expected one of {', '.join(QUERY_SPLITS)}")
    if not 0.0 < val_share < 1.0:
        raise ValueError(f"val_share must be in (0, 1), got {val_share}")
    if min_gold < 1:
        raise ValueError(f"min_gold must be at least 1, got {min_gold}")
    from sciembed.corpus.directed import directed_citations

    cdir = CorpusDir(corpus)
    papers = cdir.papers()
    edges, stats = directed_citations(cdir.papers_path)
    issues = IssueLog()
    for reason, n in sorted(stats.unresolved.items()):
        issues.add(f"reference not resolved to a collection paper ({reason})", "reference not a citation", n=n)
    refs: dict[str, dict[str, int]] = {}
    cits: dict[str, dict[str, int]] = {}
    for citing, cited in edges:
        refs.setdefault(citing, {})[cited] = 1
        cits.setdefault(cited, {})[citing] = 1
    wanted = list(splits)
    chosen = {"val", "test"} if split == "all" else {split}

    def split_of(q: str) -> str | None:
        return query_splits.get(q) if query_splits is not None else query_split_of(q, seed, val_share)

    qrels = {name: keep_queries_with_gold({q: r for q, r in rel.items() if split_of(q) in chosen}, min_gold, name,
                                          issues)
             for name, rel in (("references", refs), ("citations", cits)) if name in wanted}
    how = f"seed {seed}" if query_splits is None else "query papers from a built corpus's splits"
    return _corpus_benchmark(f"{Path(corpus).name}:{split} (paper-to-paper over the collection, {how}, "
                             f"≥{min_gold} gold)", corpus, qrels, issues, papers)


def load_paper_to_paper(corpus: str | Path, queries_file: str | Path, qrels_file: str | Path,
                        split: str = "qrels") -> PaperToPaperBenchmark:
    """An ingested corpus + a queries file (one paper id per line, or JSONL with ``paper_id``) + TREC qrels.

    Candidates are every corpus paper; unknown ids are counted with file:line; a query without a relevant
    judgement is not evaluated."""
    cdir = CorpusDir(corpus)
    for path, what in ((Path(queries_file), "queries file"), (Path(qrels_file), "qrels file")):
        if not path.is_file():
            raise BenchmarkError(f"{path}: no such {what}")
    papers = cdir.papers()
    issues = IssueLog()
    wanted: list[str] = []
    with open(queries_file, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            pid = str(json.loads(text).get("paper_id", "")) if text.startswith("{") else text.split()[0]
            if pid not in papers:
                issues.add("query id not in the corpus", "query skipped", where=f"{Path(queries_file).name}:{number}",
                           example=pid)
            else:
                wanted.append(pid)
    qrels: dict[str, dict[str, int]] = {}
    with open(qrels_file, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            parts = line.split()
            if not parts:
                continue
            where = f"{Path(qrels_file).name}:{number}"
            if len(parts) not in (3, 4):
                issues.add("qrels line without 3 or 4 columns", "line skipped", where=where)
                continue
            qid, did, score = parts[0], parts[-2], parts[-1]
            try:
                relevance = int(float(score))
            except ValueError:
                if number == 1:
                    continue  # a header
                issues.add("qrels relevance is not a number", "line skipped", where=where, example=score)
                continue
            if qid not in wanted:
                issues.add("qrels query not in the queries file", "judgement ignored", where=where, example=qid)
            elif did not in papers:
                issues.add("qrels candidate not in the corpus", "judgement ignored", where=where, example=did)
            elif did == qid:
                issues.add("qrels judge the query paper itself", "judgement ignored", where=where, example=qid)
            else:
                qrels.setdefault(qid, {})[did] = relevance
    for q in wanted:
        if q not in qrels or not any(r > 0 for r in qrels[q].values()):
            issues.add("query has no relevant judgement", "query not evaluated", example=q)
    kept = {q: qrels[q] for q in sorted(set(wanted)) if q in qrels and any(r > 0 for r in qrels[q].values())}
    if not kept:
        raise BenchmarkError(f"{qrels_file}: no query of {queries_file} has a relevant judgement in {corpus}")
    return PaperToPaperBenchmark(name=f"{Path(corpus).name}:{Path(qrels_file).stem} (paper-to-paper)",
                                 source=str(corpus), queries={q: papers[q] for q in kept}, qrels={split: kept},
                                 issues=issues, papers=papers, venues={q: _venue(papers[q]) for q in kept})

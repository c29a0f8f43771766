"""The semantic embedding benchmark (SemCSE's): does a model put the parts of one paper together?

A seeded sample of ``n_papers`` (6,000) papers with title and abstract, papers a model was trained on left out
(counted). Tasks: ``title2abstract``, ``half2half`` (first ⌊n/2⌋ abstract sentences → the rest), ``query2paper``
(LLM queries from a file, or offline the abstract's top TF-IDF terms, labelled ``tfidf-terms``) and
``clustering`` (share of a test paper's 5 nearest training papers with its label; skipped with fewer than two
labels). A summaries file adds SemCSE §5.1's generalisation rankings, outside the overall score. Matching tasks
report the gold's mean rank (1 = best), median rank and MRR; the overall score is the paper's, relative to the
models of one report (`overall_scores_of`). Every run records App. B.2's anisotropy (the spectrum of the
unnormalised, mean-centred TA vectors). See docs/recipes/semcse.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.corpus.layout import CorpusDir
from sciembed.evaluation.issues import BenchmarkError, IssueLog
from sciembed.evaluation.text_pairs import DIRECTIONS as PAIR_DIRECTIONS
from sciembed.evaluation.text_pairs import HALF2HALF, TITLE2ABSTRACT, TOO_SHORT, half2half, title2abstract
from sciembed.papers.model import Paper
from sciembed.papers.readers.jsonlines import NOT_JSON, NOT_UTF8, TOO_LARGE, json_object_lines
from sciembed.summaries.tfidf import TFIDF_SOURCE, tfidf_queries
from sciembed.views import ta_text
from sciembed.views.chunk import split_sentences

TASKS = (TITLE2ABSTRACT, HALF2HALF, "query2paper")
GENERALISATION = ("summary2ta", "summary2title", "summary2abstract")  # SemCSE §5.1; not in the overall score
CLUSTERING = "clustering"
DIRECTIONS = {**PAIR_DIRECTIONS,
              "query2paper": "search query → title + abstract", CLUSTERING: "test paper → 5 nearest training papers",
              "summary2ta": "summary → title + abstract", "summary2title": "summary → title",
              "summary2abstract": "summary → abstract"}
LOWER_IS_BETTER = {"title2abstract": True, "half2half": True, "query2paper": True, CLUSTERING: False}
SCORE_METRIC = {"title2abstract": "mean_rank", "half2half": "mean_rank", "query2paper": "mean_rank",
                CLUSTERING: "knn_same_label"}
KNN = 5
TEST_SHARE = 0.2


@dataclass(frozen=True)
class MatchingTask:
    name: str
    query_ids: tuple[str, ...]
    queries: tuple[str, ...]
    candidates: tuple[str, ...]
    gold: np.ndarray  # index into candidates, per query


@dataclass(frozen=True)
class ClusteringTask:
    train_texts: tuple[str, ...]
    train_labels: tuple[str, ...]
    test_texts: tuple[str, ...]
    test_labels: tuple[str, ...]


@dataclass
class SemanticBenchmark:
    name: str
    papers: list[Paper]
    tasks: dict[str, MatchingTask]
    clustering: ClusteringTask | None
    query_source: str
    config: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, Any] = field(default_factory=dict)
    issues: IssueLog = field(default_factory=IssueLog)


def training_papers(model_dirs: list[str | Path]) -> set[str]:
    """Paper ids every trained model lists in ``training_papers.txt`` (written by the semcse recipe)."""
    ids: set[str] = set()
    for model in model_dirs:
        path = Path(model) / "training_papers.txt"
        if path.is_file():
            ids.update(line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return ids


def read_exclusions(path: str | Path) -> set[str]:
    """Paper ids to leave out: a text file (one per line) or a corpus directory (all its papers)."""
    path = Path(path)
    if path.is_dir():
        return {p.id for p in CorpusDir(path).iter_papers()}
    if not path.is_file():
        raise BenchmarkError(f"{path}: no such exclusion list (a file of paper ids or a corpus directory)")
    return {line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


def read_queries(path: str | Path, sample_ids: set[str], issues: IssueLog) -> tuple[dict[str, str], str]:
    """``{paper_id, query, source}`` JSONL; returns queries by paper and their (single) source label."""
    path = Path(path)
    if not path.is_file():
        raise BenchmarkError(f"{path}: no such queries file (make one with `sciembed summaries queries`)")
    queries: dict[str, str] = {}
    sources: set[str] = set()
    for line in json_object_lines(path):
        where, record = line.where, line.record
        if line.problem in (NOT_JSON, NOT_UTF8, TOO_LARGE):
            issues.add(f"query line is {line.problem}", "line skipped", where)
            continue
        pid, query = (record.get("paper_id"), record.get("query")) if record is not None else (None, None)
        if not isinstance(pid, str) or not isinstance(query, str) or not query.strip():
            issues.add("query line without paper_id or with an empty query", "line skipped", where)
        elif pid not in sample_ids:
            issues.add("query for a paper outside the benchmark sample", "line skipped", where, pid)
        else:
            queries[pid] = " ".join(query.split())
            sources.add(str(record.get("source") or "unknown"))
    return queries, " + ".join(sorted(sources)) or "none"


def _label(paper: Paper) -> str | None:
    return paper.domain or (paper.fields_of_study[0] if paper.fields_of_study else None)


def generalisation_tasks(papers: list[Paper], summaries_file: str | Path, issues: IssueLog
                         ) -> dict[str, MatchingTask]:
    """SemCSE §5.1: the first summary of each sampled paper (file order) → its title + abstract, its title,
    its abstract, each among those of every sampled paper. Summaries of other papers are counted, not used."""
    from sciembed.summaries.records import SummaryFileError, read_summaries

    try:
        read = read_summaries(summaries_file)
    except SummaryFileError as err:
        raise BenchmarkError(str(err)) from err
    if read.rejected:
        issues.add(f"summaries lines rejected: {read.problems()}", "lines skipped", str(summaries_file),
                   n=sum(read.rejected.values()))
    first: dict[str, str] = {}
    for summary in read.summaries:
        first.setdefault(summary.paper_id, summary.text)
    index = {p.id: i for i, p in enumerate(papers)}
    outside = sum(1 for pid in first if pid not in index)
    if outside:
        issues.add("summaries of papers outside the benchmark sample", "not used", str(summaries_file), n=outside)
    rows = [(index[p.id], p.id, first[p.id]) for p in papers if p.id in first]
    if len(rows) < 2:
        issues.add("fewer than 2 sampled papers have a summary", "generalisation check skipped", str(summaries_file))
        return {}
    gold = np.asarray([r[0] for r in rows], dtype=np.int64)
    qids, texts = tuple(r[1] for r in rows), tuple(r[2] for r in rows)
    pools = {"summary2ta": [ta_text(p) for p in papers], "summary2title": [p.title for p in papers],
             "summary2abstract": [p.abstract for p in papers]}
    return {name: MatchingTask(name, qids, texts, tuple(pools[name]), gold) for name in GENERALISATION}


def build_semantic_benchmark(corpus: str | Path, *, n_papers: int = 6000, seed: int = 0,
                             exclude: set[str] | None = None, queries_file: str | Path | None = None,
                             summaries_file: str | Path | None = None) -> SemanticBenchmark:
    corpus = CorpusDir(corpus)
    issues = IssueLog()
    exclude = exclude or set()
    usable, excluded, read = [], 0, 0
    for paper in corpus.iter_papers():
        read += 1
        if paper.id in exclude:
            excluded += 1
        elif not paper.title.strip():
            issues.add("paper without a title", "paper left out", _at(corpus, paper), paper.id)
        elif not (paper.abstract or "").strip():
            issues.add("paper without an abstract", "paper left out", _at(corpus, paper), paper.id)
        else:
            usable.append(paper)
    if len(usable) < 2:
        raise BenchmarkError(f"{corpus.root}: {len(usable)} usable papers (of {read} read, {excluded} used in "
                             "training) — a benchmark pool needs at least 2")
    rng = np.random.default_rng(seed)
    chosen = np.sort(rng.permutation(len(usable))[: min(n_papers, len(usable))])
    papers = [usable[i] for i in chosen]
    tasks, source = _matching_tasks(papers, issues, str(corpus.root), queries_file, summaries_file)
    clustering = _clustering(papers, seed, issues, str(corpus.root))
    counts = {"read": read, "usable": len(usable), "excluded_used_in_training": excluded, "sampled": len(papers)}
    return _benchmark(f"semantic:{corpus.root.name}", papers, tasks, clustering, source, issues, counts,
                      {"corpus": str(corpus.root), "n_papers": n_papers, "seed": seed,
                       "clustering": "sample split 80/20 (seeded)"}, queries_file, summaries_file)


def _matching_tasks(papers: list[Paper], issues: IssueLog, where: str, queries_file: str | Path | None,
                    summaries_file: str | Path | None) -> tuple[dict[str, MatchingTask], str]:
    """title2abstract, half2half, query2paper (and the generalisation check) over `papers`; the query source."""
    tasks = {TITLE2ABSTRACT: _matching(TITLE2ABSTRACT, [(p.id, *title2abstract(p.title, p.abstract))
                                                      for p in papers])}
    halves = []
    for p in papers:
        pair = half2half(split_sentences(p.abstract))
        if pair is None:
            issues.add(TOO_SHORT, "left out of half2half", f"{where}[{p.id}]", p.id)
            continue
        halves.append((p.id, *pair))
    if len(halves) >= 2:
        tasks["half2half"] = _matching("half2half", halves)
    else:
        issues.add("fewer than 2 papers can be split into halves", "half2half skipped", where, "half2half")
    if queries_file is not None:
        queries, source = read_queries(queries_file, {p.id for p in papers}, issues)
        missing = [p.id for p in papers if p.id not in queries]
        if missing:
            issues.add("paper without a query in the queries file", "left out of query2paper", str(queries_file),
                       missing[0], n=len(missing))
    else:
        queries, source = tfidf_queries(papers), TFIDF_SOURCE
    # the pool is every sampled paper; papers without a query are candidates only
    candidates = [ta_text(p) for p in papers]
    q = [(i, p.id, queries[p.id]) for i, p in enumerate(papers) if p.id in queries]
    if q:
        tasks["query2paper"] = MatchingTask("query2paper", tuple(x[1] for x in q), tuple(x[2] for x in q),
                                            tuple(candidates), np.asarray([x[0] for x in q], dtype=np.int64))
    if summaries_file is not None:
        tasks.update(generalisation_tasks(papers, summaries_file, issues))
    return tasks, source


def _benchmark(name: str, papers: list[Paper], tasks: dict[str, MatchingTask], clustering: ClusteringTask | None,
               source: str, issues: IssueLog, counts: dict[str, Any], config: dict[str, Any],
               queries_file: str | Path | None, summaries_file: str | Path | None) -> SemanticBenchmark:
    counts = dict(counts, queries={n: len(t.queries) for n, t in tasks.items()},
                  pools={n: len(t.candidates) for n, t in tasks.items()})
    if clustering is not None:
        counts["clustering"] = {"train": len(clustering.train_texts), "test": len(clustering.test_texts),
                                "labels": len(set(clustering.train_labels) | set(clustering.test_labels))}
    config = dict(config, queries_file=str(queries_file) if queries_file else None,
                  summaries_file=str(summaries_file) if summaries_file else None, directions=DIRECTIONS,
                  half_split="after floor(n/2) sentences", knn=KNN, clustering_test_share=TEST_SHARE)
    return SemanticBenchmark(name=name, papers=papers, tasks=tasks, clustering=clustering, query_source=source,
                             issues=issues, counts=counts, config=config)


def _at(corpus: CorpusDir, paper: Paper) -> str:
    return f"{corpus.papers_path}[{paper.id}]"


def _matching(name: str, rows: list[tuple[str, str, str]]) -> MatchingTask:
    return MatchingTask(name, tuple(r[0] for r in rows), tuple(r[1] for r in rows), tuple(r[2] for r in rows),
                        np.arange(len(rows), dtype=np.int64))


def _clustering(papers: list[Paper], seed: int, issues: IssueLog, where: str) -> ClusteringTask | None:
    labelled = [(p, _label(p)) for p in papers]
    unlabelled = sum(1 for _, label in labelled if label is None)
    labelled = [(p, label) for p, label in labelled if label is not None]
    if len({label for _, label in labelled}) < 2:
        issues.add("fewer than 2 labels (domain / field of study) in the sample", "clustering skipped", where,
                   CLUSTERING)
        return None
    if unlabelled:
        missing = next(p.id for p in papers if _label(p) is None)
        issues.add("paper without domain or field of study", "left out of clustering", where, missing, n=unlabelled)
    order = np.random.default_rng([seed, 5]).permutation(len(labelled))
    n_test = max(1, round(TEST_SHARE * len(labelled)))
    test, train = [labelled[i] for i in order[:n_test]], [labelled[i] for i in order[n_test:]]
    if len(train) < KNN:
        issues.add(f"fewer than {KNN} labelled training papers", "clustering skipped", where, CLUSTERING)
        return None
    return ClusteringTask(tuple(ta_text(p) for p, _ in train), tuple(label for _, label in train),
                          tuple(ta_text(p) for p, _ in test), tuple(label for _, label in test))


def overall_scores_of(results: Mapping[str, Mapping[str, Mapping[str, float]]]) -> dict[str, dict[str, float]]:
    """The paper's score per model and task, and its mean over tasks (``overall``), within this set of models,
    from model -> task -> metric -> value (a suite's cells): per task 0.5 + 0.5·(v − median)/(best − median)
    over the models, clipped at 0, then the mean over tasks."""
    models = list(results)
    tasks = [t for t in (*TASKS, CLUSTERING) if all(t in results[m] for m in models)]
    scores: dict[str, dict[str, float]] = {m: {} for m in models}
    for task in tasks:
        values = np.asarray([results[m][task][SCORE_METRIC[task]] for m in models])
        best = values.min() if LOWER_IS_BETTER[task] else values.max()
        median = float(np.median(values))
        for model, v in zip(models, values, strict=True):
            if best == median:
                score = 1.0 if v == best else 0.0
            else:
                score = max(0.0, 0.5 + 0.5 * (v - median) / (best - median))
            scores[model][task] = float(score)
    for model in models:
        per_task = list(scores[model].values())
        scores[model]["overall"] = float(np.mean(per_task)) if per_task else float("nan")
    return scores


def build_scirepeval_semantic_benchmark(root: str | Path, datasets: list[str], *, per_dataset: int = 500,
                                        seed: int = 0, split: str = "auto", exclude: set[str] | None = None,
                                        queries_file: str | Path | None = None,
                                        summaries_file: str | Path | None = None) -> SemanticBenchmark:
    """SemCSE's own construction from the SciRepEval release: `per_dataset` papers drawn with the seed from the
    `split` of each listed config in order ("auto": ``train``, else ``evaluation``; recorded in
    ``counts["splits"]``), none drawn twice (12 configs × 500 = the paper's 6,000); clustering on SciDocs MAG's
    official train/test split (``scirepeval_test/scidocs_mag`` labels over ``scidocs_mag_mesh`` texts)."""
    from sciembed.papers.scirepeval import SciRepEvalDataError, read_release_papers, release_split

    if not datasets:
        raise BenchmarkError("name the SciRepEval configs to draw from (the paper draws 500 from each of 12)")
    issues = IssueLog()
    exclude = exclude or set()
    papers: list[Paper] = []
    taken: set[str] = set()
    drawn: dict[str, int] = {}
    excluded = 0
    splits: dict[str, str] = {}
    for i, config in enumerate(datasets):
        splits[config] = release_split(root, config, split)
        try:
            read = read_release_papers(root, config, splits[config])
        except SciRepEvalDataError as err:
            raise BenchmarkError(str(err)) from err
        if read.rejected:
            issues.add(f"{config}: lines without a paper", "lines skipped", str(read.path),
                       n=sum(read.rejected.values()))
        excluded += sum(1 for pid in read.papers if pid in exclude and pid not in taken)
        fresh = [p for pid, p in read.papers.items() if pid not in taken and pid not in exclude]
        order = sorted(np.random.default_rng([seed, i]).permutation(len(fresh))[:per_dataset].tolist())
        if len(order) < per_dataset:
            issues.add(f"{config}: fewer usable papers than asked", "all of them used", str(read.path),
                       f"{len(order)} of {per_dataset}")
        for j in order:
            p = fresh[j]
            taken.add(p.paper_id)
            papers.append(Paper(id=p.paper_id, title=p.title, abstract=p.abstract, domain=config))
        drawn[config] = len(order)
    if len(papers) < 2:
        raise BenchmarkError(f"{root}: {len(papers)} papers drawn — a benchmark pool needs at least 2")
    where = str(Path(root) / "scirepeval")
    tasks, source = _matching_tasks(papers, issues, where, queries_file, summaries_file)
    clustering = _scidocs_mag_clustering(Path(root), issues)
    counts = {"read": sum(drawn.values()), "usable": len(papers), "excluded_used_in_training": excluded,
              "sampled": len(papers), "per_dataset": drawn, "splits": splits}
    return _benchmark(f"semantic:scirepeval:{len(datasets)}x{per_dataset}", papers, tasks, clustering, source,
                      issues, counts, {"scirepeval_root": str(root), "datasets": list(datasets),
                                       "per_dataset": per_dataset, "split": split, "seed": seed,
                                       "clustering": "SciDocs MAG official train/test split"},
                      queries_file, summaries_file)


def _scidocs_mag_clustering(root: Path, issues: IssueLog) -> ClusteringTask | None:
    from sciembed.evaluation.scirepeval.records import paper_text, read_split

    meta = read_split(root / "scirepeval" / "scidocs_mag_mesh", "evaluation", issues)
    labels = {split: read_split(root / "scirepeval_test" / "scidocs_mag", split, issues) for split in ("train", "test")}
    if not meta or not labels["train"] or not labels["test"]:
        issues.add("SciDocs MAG files missing (scirepeval/scidocs_mag_mesh/evaluation.jsonl, "
                   "scirepeval_test/scidocs_mag/train.jsonl and test.jsonl)", "clustering skipped", str(root),
                   CLUSTERING)
        return None
    from sciembed.evaluation.contract import TextStyle

    texts = {str(r.get("doc_id")): paper_text(r, ("title", "abstract"), TextStyle()) for _, r in meta}
    sides: dict[str, tuple[list[str], list[str]]] = {}
    for split, rows in labels.items():
        kept = [(texts[str(r.get("paper_id"))], str(r.get("label"))) for _, r in rows
                if texts.get(str(r.get("paper_id"))) and r.get("label") is not None]
        if len(kept) < len(rows):
            issues.add(f"SciDocs MAG {split} paper without text or label", "left out of clustering",
                       str(root / "scirepeval_test" / "scidocs_mag"), n=len(rows) - len(kept))
        sides[split] = ([t for t, _ in kept], [lab for _, lab in kept])
    if len(sides["train"][0]) < KNN or not sides["test"][0]:
        issues.add(f"fewer than {KNN} SciDocs MAG training papers or no test paper", "clustering skipped", str(root),
                   CLUSTERING)
        return None
    return ClusteringTask(tuple(sides["train"][0]), tuple(sides["train"][1]), tuple(sides["test"][0]),
                          tuple(sides["test"][1]))

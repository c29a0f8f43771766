"""SciFullBench (PRISM's benchmark) from its release layout, as a `PaperToPaperBenchmark`.

The layout PRISM's code reads (Park et al. 2025; github.com/psw0021/PRISM): ``Benchmark/<VENUE>/<SPLIT>/<id>.json``
(``Query`` and ``Candidate`` title/abstract), the query full texts ``Benchmark/Full_Papers*/<id>.mmd`` and
``Target_Corpus/<variant>/corpus.json``; the citation- and mention-removed variants PRISM's runs read are
preferred. ``Cited_Papers`` is the References split, ``Citing_Papers`` Citations. Gold candidates carry only a
title and an abstract (in PRISM's code that string *is* the identity): each is matched to the corpus by
normalised title + abstract, then by title alone when unique; no match or several are counted, never guessed.
See docs/paper-to-paper.md.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from sciembed.evaluation.issues import BenchmarkError, IssueLog
from sciembed.evaluation.paper_to_paper import PaperToPaperBenchmark, full_text
from sciembed.papers.model import Paper, Section
from sciembed.papers.sections import finalize
from sciembed.papers.titles import title_key
from sciembed.search.prism.index import Candidate

# What PRISM's released runs read (psw0021/PRISM, Scripts/inference_QoA_parallel.sh: remove_citations=True,
# remove_mentions=True; Retrieval/retriever.py: <Benchmark>/Full_Papers_remove_citations_True_remove_mentions_True
# for the query text, Full_Papers only when both flags are False)
PAPER_FULL_PAPERS = "Full_Papers_remove_citations_True_remove_mentions_True"
PAPER_TARGET_CORPUS = "target_corpus_citations_removed_True_mentions_removed_True"
SPLIT_NAMES = {"cited_papers": "references", "citing_papers": "citations"}
VENUE_PAIRS = {"acl": "ACL+EMNLP", "emnlp": "ACL+EMNLP", "iclr": "ICLR+NeurIPS", "neurips": "ICLR+NeurIPS",
               "nips": "ICLR+NeurIPS"}
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def _text_key(text: str | None) -> str:
    return " ".join((text or "").lower().split())


def parse_mmd(text: str, pid: str, title: str = "", abstract: str = "", venue: str | None = None) -> Paper:
    """A Nougat/markdown full text as a `Paper`: ``#`` headings start sections; roles and back-matter cut
    as for every reader (`papers.sections.finalize`). A leading title heading (with the author lines
    under it) is dropped; an "Abstract" section fills an empty abstract and is not body."""
    sections: list[list[str]] = []
    heading: str | None = None
    lines: list[str] = []
    for line in text.splitlines():
        match = _HEADING.match(line)
        if match:
            if heading is not None or any(x.strip() for x in lines):
                sections.append([heading or "", "\n".join(lines)])
            heading, lines = match.group(2).strip("* "), []
        else:
            lines.append(line)
    if heading is not None or any(x.strip() for x in lines):
        sections.append([heading or "", "\n".join(lines)])
    body: list[Section] = []
    for i, (head, content) in enumerate(sections):
        if i == 0 and title and title_key(head) == title_key(title):
            continue  # the title heading and the author lines under it
        if title_key(head) == "abstract":
            abstract = abstract or content.strip()
            continue
        if i == 0 and not head and not body:  # front matter before the first heading (authors, title lines)
            continue
        body.append(Section(head, content.strip()))
    return finalize(Paper(id=pid, title=title, abstract=abstract, sections=tuple(body), venue=venue),
                    noisy_headings=False)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BenchmarkError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from exc


def _find_corpus(root: Path) -> Path:
    corpora = root / "Target_Corpus"
    found = sorted(corpora.glob("*/corpus.json")) + sorted(corpora.glob("corpus.json"))
    paper = [p for p in found if p.parent.name == PAPER_TARGET_CORPUS]
    if paper:
        return paper[0]
    if len(found) != 1:
        names = ", ".join(str(p.relative_to(root)) for p in found) or "none"
        raise BenchmarkError(f"{corpora}: expected exactly one corpus.json, found {len(found)} ({names}); "
                             "pass corpus_json explicitly")
    return found[0]


def _find_full_papers(benchmark: Path) -> Path | None:
    """The query full texts PRISM's runs read: the citation- and mention-removed variant, else ``Full_Papers``."""
    for name in (PAPER_FULL_PAPERS, "Full_Papers"):
        if (benchmark / name).is_dir():
            return benchmark / name
    variants = sorted(p for p in benchmark.glob("Full_Papers*") if p.is_dir())
    return variants[0] if variants else None


def load_scifullbench(root: str | Path, *, corpus_json: str | Path | None = None,
                      full_papers: str | Path | None = None, chunk_key: str = "chunked_sections_3000",
                      venues: list[str] | None = None) -> PaperToPaperBenchmark:
    """Load the release layout under `root` (see the module docstring); `venues` restricts to those folders."""
    root = Path(root)
    benchmark = root / "Benchmark"
    if not benchmark.is_dir():
        raise BenchmarkError(f"{root}: no Benchmark/ folder (not a SciFullBench release)")
    corpus_path = Path(corpus_json) if corpus_json else _find_corpus(root)
    papers_dir = Path(full_papers) if full_papers else _find_full_papers(benchmark)
    issues = IssueLog()
    candidates, by_both, by_title = _load_corpus(corpus_path, chunk_key, issues)
    queries: dict[str, Paper] = {}
    qrels: dict[str, dict[str, dict[str, int]]] = {}
    venue_of: dict[str, str] = {}
    for venue_dir in sorted(p for p in benchmark.iterdir() if p.is_dir() and not p.name.startswith("Full_Papers")):
        if venues and venue_dir.name not in venues:
            continue
        for split_dir in sorted(p for p in venue_dir.iterdir() if p.is_dir()):
            split = SPLIT_NAMES.get(split_dir.name.lower(), split_dir.name.lower())
            for path in sorted(split_dir.glob("*.json")):
                record = _read_json(path)
                where = f"{venue_dir.name}/{split_dir.name}/{path.name}"
                query = record.get("Query") if isinstance(record, dict) else None
                if not isinstance(query, dict) or not (query.get("title") or "").strip():
                    issues.add("query JSON without Query.title", "query skipped", where=where)
                    continue
                qid = str(record.get("id") or path.stem)
                gold: dict[str, int] = {}
                for entry in record.get("Candidate") or []:
                    match = _match(entry, by_both, by_title)
                    if match is None:
                        issues.add("gold candidate matches no corpus paper", "gold entry dropped", where=where,
                                   example=str(entry.get("title"))[:60])
                    elif isinstance(match, list):
                        issues.add("gold candidate matches several corpus papers", "gold entry dropped",
                                   where=where, example=str(entry.get("title"))[:60])
                    else:
                        gold[match] = 1
                if not gold:
                    issues.add("query has no gold paper in the corpus", "query not evaluated", where=where,
                               example=qid)
                    continue
                if qid not in queries:
                    queries[qid] = _query_paper(qid, query, papers_dir, venue_dir.name, issues)
                qrels.setdefault(split, {})[qid] = gold
                venue_of[qid] = VENUE_PAIRS.get(venue_dir.name.lower(), venue_dir.name)
    if not queries:
        raise BenchmarkError(f"{benchmark}: no query with a gold paper in {corpus_path}")
    return PaperToPaperBenchmark(name=f"SciFullBench:{root.name}", source=str(root), queries=queries, qrels=qrels,
                                 issues=issues, fixed_candidates=candidates, venues=venue_of)


def _load_corpus(path: Path, chunk_key: str, issues: IssueLog):
    data = _read_json(path)
    if not isinstance(data, list):
        raise BenchmarkError(f"{path}: expected a JSON list of papers, got {type(data).__name__}")
    candidates: dict[str, Candidate] = {}
    by_both: dict[tuple[str, str], list[str]] = {}
    by_title: dict[str, list[str]] = {}
    missing_chunks = 0
    for i, entry in enumerate(data):
        where = f"{path.name}[{i}]"
        if not isinstance(entry, dict) or not (entry.get("title") or "").strip():
            issues.add("corpus entry without a title", "entry skipped", where=where)
            continue
        title, abstract = entry["title"].strip(), (entry.get("abstract") or "").strip()
        key = (title_key(title), _text_key(abstract))
        if key in by_both:
            issues.add("duplicate corpus entry (same title and abstract)", "later entry skipped", where=where,
                       example=title[:60])
            continue
        directory = entry.get("full_paper_directory")
        pid = str(entry.get("id") or (Path(directory).stem if directory else f"corpus-{i}"))
        if pid in candidates:
            pid = f"{pid}#{i}"
        chunks = entry.get(chunk_key)
        if not isinstance(chunks, list):
            missing_chunks += 1
            chunks = []
        segments = tuple(str(c) for c in chunks if str(c).strip())
        text = "\n\n".join(x for x in (title, abstract, *segments) if x)
        candidates[pid] = Candidate(pid, title, abstract, segments, text)
        by_both.setdefault(key, []).append(pid)
        by_title.setdefault(key[0], []).append(pid)
    if missing_chunks:
        issues.add(f"corpus entry without {chunk_key}", "indexed by its abstract text only", n=missing_chunks)
    if not candidates:
        raise BenchmarkError(f"{path}: no usable corpus entry")
    return candidates, by_both, by_title


def _match(entry: Any, by_both: dict, by_title: dict) -> str | list[str] | None:
    if not isinstance(entry, dict):
        return None
    t = title_key(entry.get("title"))
    both = by_both.get((t, _text_key(entry.get("abstract"))), [])
    if len(both) == 1:
        return both[0]
    titled = by_title.get(t, []) if t else []
    if len(titled) == 1:
        return titled[0]
    return titled or both or None


def _query_paper(qid: str, query: dict, papers_dir: Path | None, venue: str, issues: IssueLog) -> Paper:
    title, abstract = query["title"].strip(), (query.get("abstract") or "").strip()
    path = papers_dir / f"{qid}.mmd" if papers_dir else None
    if path is None or not path.is_file():
        issues.add("query has no full-text .mmd", "only its abstract query is possible", example=qid)
        return Paper(id=qid, title=title, abstract=abstract, venue=venue, flags=("no_body",))
    return parse_mmd(path.read_text(encoding="utf-8"), qid, title, abstract, venue)


def query_texts(root: str | Path, full_papers: str | Path | None = None) -> dict[str, str]:
    """Query id -> its full text exactly as PRISM's agents read it (`QueryOptimizer/agents.py` reads the whole
    ``.mmd`` file into the prompt): the citation- and mention-removed variant where the release has it."""
    papers_dir = Path(full_papers) if full_papers else _find_full_papers(Path(root) / "Benchmark")
    if papers_dir is None:
        return {}
    return {path.stem: path.read_text(encoding="utf-8") for path in sorted(papers_dir.glob("*.mmd"))}


__all__ = ["full_text", "load_scifullbench", "parse_mmd", "query_texts"]

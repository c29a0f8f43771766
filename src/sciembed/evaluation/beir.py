"""Bring-your-own benchmark in BEIR format.

A folder with ``corpus.jsonl`` (``_id``, ``title``, ``text``), ``queries.jsonl``
(``_id``, ``text``) and ``qrels/<split>.tsv`` (``query-id  corpus-id  score``,
header optional). Documents are encoded as ``title. text`` (the same join as a
paper's TA). As in BEIR, a document whose id equals the query id is never
retrieved. An optional ``metadata.domain`` on a query feeds the per-domain
breakdown. Every line that cannot be used is counted with file:line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.evaluation.contract import FingerprintOnce, RankingTask, json_digest
from sciembed.evaluation.fields import id_type, id_value, relevance_problem, relevance_value, text_value, wrong_types
from sciembed.evaluation.issues import BenchmarkError, IssueLog
from sciembed.papers.readers.jsonlines import NOT_JSON, NOT_UTF8, json_object_lines

UNKNOWN_DOMAIN = "unknown"


def join_title(title: str | None, text: str | None) -> str:
    title = (title or "").strip().rstrip(".")
    text = (text or "").strip()
    return f"{title}. {text}" if title and text else title or text


def read_jsonl_records(path: Path, issues: IssueLog) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each parseable line; the others are counted (bad UTF-8 and nesting too)."""
    for line in json_object_lines(path):
        if line.record is not None:
            yield line.number, line.record
        elif line.problem == NOT_UTF8:
            issues.add("line is not valid UTF-8", "line skipped", where=line.where, example=line.detail)
        elif line.problem == NOT_JSON:
            issues.add("line is not valid JSON", "line skipped", where=line.where, example=line.detail)
        else:  # not a JSON object, larger than the record limit
            issues.add(f"line is {line.problem}", "line skipped", where=line.where)


@dataclass
class TextCollection:
    """Id -> text, first occurrence wins; duplicates and empty texts are counted."""

    texts: dict[str, str] = field(default_factory=dict)
    parts: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (title, text) as given
    meta: dict[str, dict[str, Any]] = field(default_factory=dict)
    empty: set[str] = field(default_factory=set)  # ids whose text was empty


def read_collection(path: Path, kind: str, issues: IssueLog, titled: bool) -> TextCollection:
    out = TextCollection()
    for number, record in read_jsonl_records(path, issues):
        where = f"{path.name}:{number}"
        bad = wrong_types(record, {"_id": id_type, "title": text_value, "text": text_value})
        if bad:
            issues.add(f"{kind} field of the wrong JSON type", f"{kind} skipped", where=where, example=", ".join(bad))
            continue
        rid = id_value(record.get("_id"))
        if rid is None:
            issues.add(f"{kind} without a usable _id (missing, or with whitespace)", f"{kind} skipped", where=where)
            continue
        metadata = record.get("metadata")
        if metadata is not None and not isinstance(metadata, dict):
            issues.add(f"{kind} metadata is not an object", "metadata ignored", where=where, example=rid)
            metadata = None
        text = join_title(record.get("title"), record.get("text")) if titled else (record.get("text") or "").strip()
        if rid in out.texts:
            issues.add(f"duplicate {kind} id", "later occurrence skipped (first kept)", where=where, example=rid)
        elif not text:
            issues.add(f"{kind} with empty text", f"{kind} excluded", where=where, example=rid)
            out.empty.add(rid)
        else:
            out.texts[rid] = text
            out.parts[rid] = (str(record.get("title") or "").strip(), str(record.get("text") or "").strip())
            out.meta[rid] = metadata or {}
    return out


def read_qrels(path: Path, queries: TextCollection, docs: TextCollection,
               issues: IssueLog) -> dict[str, dict[str, int]]:
    """qrels restricted to known queries and documents; unknown ids are counted, never guessed."""
    qrels: dict[str, dict[str, int]] = {}
    with open(path, "rb") as raw_lines:
        for number, raw in enumerate(raw_lines, 1):
            where = f"{path.parent.name}/{path.name}:{number}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                issues.add("qrels line is not valid UTF-8", "line skipped", where=where, example=f"byte {err.start}")
                continue
            parts = line.strip().split("\t") if "\t" in line else line.split()
            if not parts or not line.strip():
                continue
            if number == 1 and parts[0].lower().replace("_", "-") in ("query-id", "qid", "query"):
                continue  # header
            if len(parts) not in (3, 4):
                issues.add("qrels line without 3 columns", "line skipped", where=where)
                continue
            qid, did, score = parts[0], parts[-2], parts[-1]  # 4 columns = TREC (qid 0 docid rel)
            relevance = relevance_value(score)
            if relevance is None:
                issues.add(f"qrels score is {relevance_problem(score)}", "line skipped", where=where,
                           example=score[:40])
                continue
            if qid not in queries.texts:
                what = f"qrels name {'a query with empty text' if qid in queries.empty else 'an unknown query id'}"
                issues.add(what, "judgement ignored", where=where, example=qid)
            elif did not in docs.texts:
                what = f"qrels name {'a document with empty text' if did in docs.empty else 'an unknown corpus id'}"
                issues.add(what, "judgement ignored", where=where, example=did)
            else:
                qrels.setdefault(qid, {})[did] = relevance
    return qrels


@dataclass
class BeirBenchmark(FingerprintOnce):
    source: str
    split: str
    queries: dict[str, str]  # evaluated queries only
    docs: dict[str, str]
    qrels: dict[str, dict[str, int]]
    domains: dict[str, str]
    issues: IssueLog
    name: str = "beir"
    kind: str = "beir"
    unjudged_queries: int = 0
    doc_parts: dict[str, tuple[str, str]] = field(default_factory=dict, repr=False)  # id -> (title, text)

    def task(self) -> RankingTask:
        """The folder as one task, queries and documents in id order (a document never answers its own id)."""
        qids = sorted(self.queries)
        return RankingTask("beir", {q: self.queries[q] for q in qids}, dict(sorted(self.docs.items())),
                           {q: self.qrels[q] for q in qids})

    def _digest(self) -> str:
        return json_digest([self.split, sorted(self.queries.items()), sorted(self.docs.items())],
                           sorted((q, sorted(r.items())) for q, r in self.qrels.items()))

    def describe(self) -> dict[str, Any]:
        return {**self.identity(), "split": self.split, "documents": len(self.docs), "queries": len(self.queries),
                "queries_without_judgements": self.unjudged_queries, "issues": self.issues.to_list()}


def domain_of(value: Any) -> str:
    """A query's domain: the stripped string, else ``unknown``."""
    return value.strip() if isinstance(value, str) and value.strip() else UNKNOWN_DOMAIN


def load_beir(folder: Path | str, split: str = "test") -> BeirBenchmark:
    """Load a BEIR folder; a missing file stops with one message naming every missing file."""
    folder = Path(folder)
    required = ["corpus.jsonl", "queries.jsonl", f"qrels/{split}.tsv"]
    missing = [name for name in required if not (folder / name).is_file()]
    if missing:
        raise BenchmarkError(f"BEIR folder {folder} is missing {len(missing)} of {len(required)} required files: "
                             f"{', '.join(missing)}")
    issues = IssueLog()
    docs = read_collection(folder / "corpus.jsonl", "document", issues, titled=True)
    queries = read_collection(folder / "queries.jsonl", "query", issues, titled=False)
    qrels = read_qrels(folder / "qrels" / f"{split}.tsv", queries, docs, issues)
    evaluated: dict[str, str] = {}
    for qid in sorted(qrels):
        if any(r > 0 for r in qrels[qid].values()):
            evaluated[qid] = queries.texts[qid]
        else:
            issues.add("query has no relevant document", "query not evaluated", where=f"qrels/{split}.tsv",
                       example=qid)
    if not evaluated:  # fail before any encoding, not in the report at the end
        raise BenchmarkError(f"BEIR folder {folder}: no query of split {split!r} has a relevant document "
                             f"({'; '.join(i.message() for i in issues) or 'qrels empty'})")
    domains = {q: domain_of(queries.meta[q].get("domain")) for q in evaluated}
    return BeirBenchmark(source=str(folder), split=split, queries=evaluated, docs=docs.texts,
                         qrels={q: qrels[q] for q in evaluated}, domains=domains, issues=issues,
                         name=f"{folder.name}:{split}", unjudged_queries=len(set(queries.texts) - set(qrels)),
                         doc_parts=docs.parts)

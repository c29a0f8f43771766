"""SciRepEval's release files as records: a split's files, their rows, qrel judgements and a paper's text."""

from __future__ import annotations

from collections.abc import Container, Sequence
from pathlib import Path
from typing import Any

from sciembed.evaluation.contract import TextStyle
from sciembed.evaluation.issues import BenchmarkError, IssueLog

SPLIT_SUFFIXES = (".jsonl", ".json", ".parquet")


def split_files(folder: Path, split: str) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name.startswith(split) and p.name.endswith(SPLIT_SUFFIXES))


def judgements(rows: list[tuple[str, dict]], queries: Container[str], candidates: Container[str], issues: IssueLog,
               unknown_query: str, unknown_candidate: str) -> dict[str, dict[str, int]]:
    """query id -> candidate id -> score of qrel rows (query_id, cand_id, score); a row naming a query or
    candidate not in `queries` / `candidates` is an issue (`unknown_query` / `unknown_candidate`) and ignored."""
    judged: dict[str, dict[str, int]] = {}
    for where, row in rows:
        if not {"query_id", "cand_id", "score"} <= set(row):
            raise BenchmarkError(f"{where}: expected fields query_id, cand_id, score")
        qid, cid = str(row["query_id"]), str(row["cand_id"])
        if qid not in queries:
            issues.add(unknown_query, "judgement ignored", where=where, example=qid)
        elif cid not in candidates:
            issues.add(unknown_candidate, "judgement ignored", where=where, example=cid)
        else:
            judged.setdefault(qid, {})[cid] = int(float(row["score"]))
    return judged


def read_split(folder: Path, split: str, issues: IssueLog) -> list[tuple[str, dict[str, Any]]]:
    """(where, record) for every record of a split; JSON lines or Parquet."""
    from sciembed.evaluation.beir import read_jsonl_records

    rows: list[tuple[str, dict[str, Any]]] = []
    for path in split_files(folder, split):
        where = f"{path.parent.parent.name}/{path.parent.name}/{path.name}"
        if path.suffix == ".parquet":
            import pyarrow.parquet as pq

            rows += [(f"{where}#{i}", r) for i, r in enumerate(pq.read_table(path).to_pylist())]
        else:
            rows += [(f"{where}:{n}", r) for n, r in read_jsonl_records(path, issues)]
    return rows


def paper_text(record: dict[str, Any], fields: Sequence[str], style: TextStyle) -> str:
    parts = [str(record[f]).strip() for f in fields if record.get(f) not in (None, "")]
    if not parts:
        return ""
    if style.sep == ".":  # models without a separator token: "title. abstract …"
        return style.join(parts[0], " ".join(parts[1:])) if len(parts) > 1 else parts[0]
    return f" {style.sep} ".join(parts)


def paper_texts(meta: list[tuple[str, dict[str, Any]]], fields: Sequence[str], style: TextStyle, issues: IssueLog,
                what: str) -> dict[str, str]:
    """doc_id -> `paper_text`, the first record of an id kept; a record without either is counted (`what`: whose)."""
    texts: dict[str, str] = {}
    for where, record in meta:
        did, text = str(record.get("doc_id", "")), paper_text(record, fields, style)
        if did and text:
            texts.setdefault(did, text)
        else:
            issues.add(f"{what}: paper without doc_id or text", "paper skipped", where=where)
    return texts

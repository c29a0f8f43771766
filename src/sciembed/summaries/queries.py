"""One search query per paper for the semantic benchmark's query ↔ paper task: one cached chat call per paper
(empty replies counted and left out), or offline the abstract's top TF-IDF terms (`tfidf`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sciembed.ioutil.atomic import write_jsonl_atomic
from sciembed.llm import LLMClient, LLMRequest, Sampling, load_prompt
from sciembed.papers.model import Paper
from sciembed.summaries.tfidf import TFIDF_SOURCE, tfidf_queries

PROMPT = "semantic_query"


def llm_queries(papers: Sequence[Paper], client: LLMClient, sampling: Sampling) -> tuple[list[dict[str, Any]], int]:
    """Query records and the number of empty replies left out."""
    template = load_prompt(PROMPT)
    usable = [p for p in papers if p.title.strip() and (p.abstract or "").strip()]
    replies = client.chat(template, [LLMRequest({"title": p.title, "abstract": p.abstract}) for p in usable],
                          sampling, description="queries")
    records, empty = [], 0
    for paper, reply in zip(usable, replies, strict=True):
        text = " ".join(reply.text.split()).strip('"')
        if not text:
            empty += 1
            continue
        records.append({"paper_id": paper.id, "query": text, "source": f"llm:{client.config.model}",
                        "prompt": template.id})
    return records, empty


def tfidf_query_records(papers: Sequence[Paper]) -> list[dict[str, Any]]:
    usable = [p for p in papers if p.title.strip() and (p.abstract or "").strip()]
    return [{"paper_id": pid, "query": q, "source": TFIDF_SOURCE} for pid, q in tfidf_queries(usable).items()]


def write_queries(records: Sequence[dict[str, Any]], path: str | Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl_atomic(path, records)

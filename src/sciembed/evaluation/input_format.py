"""Texts in the input format a model was trained with, as its model card says (``input_format``).

"plain" models read the harness's texts unchanged. A CoSAEmb model (``input_format: cosaemb``) reads what its
recipe trained it on: a TA as ``[TTL] title [SEP] [ABS] abstract`` (BEIR documents likewise, ``[ABS] text``
without a title; queries unchanged); a body text as the logged section with its class token (``windowed``: its
first chunk within the budget; ``full``: the whole section after that prefix); a section text as its first
chunk. The budget is max_seq_length minus [CLS]/[SEP], counted by the encoder's tokenizer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from sciembed.evaluation.contract import RankingTask
from sciembed.evaluation.keys import BODY_SCENARIOS, normalize_key
from sciembed.papers.model import Paper
from sciembed.views.chunk import ABSTRACT_TOKEN, SECTION_TOKENS, chunk_text, first_prefix, section_class, ta_unit

INPUT_FORMATS = ("plain", "cosaemb")


def input_format(encoder: Any) -> str:
    card = getattr(encoder, "card", None)
    fmt = getattr(card, "input_format", None) or "plain"
    if fmt not in INPUT_FORMATS:
        raise ValueError(f"model card input_format {fmt!r} is unknown to this sciembed; expected one of "
                         f"{', '.join(INPUT_FORMATS)}")
    return fmt


class CosaembTexts:
    """CoSAEmb's inputs for papers and section texts, within one encoder's token budget."""

    def __init__(self, count: Callable[[str], int], budget: int, sep: bool = True) -> None:
        self.count, self.budget, self.sep = count, budget, sep

    def ta(self, paper: Paper) -> str:
        return ta_unit(paper, sep=self.sep)

    def first_chunk(self, title: str | None, text: str, token: str) -> str:
        if title is None:  # no title: the chunk starts with the class token alone
            chunks = chunk_text("", text, token, self.count, self.budget, self.sep)
            head = first_prefix("", token, self.sep)
            return token + chunks[0][len(head):] if chunks else token
        chunks = chunk_text(title, text, token, self.count, self.budget, self.sep)
        return chunks[0] if chunks else first_prefix(title, token, self.sep)

    def section(self, paper: Paper, index: int, mode: str) -> str:
        section = paper.sections[index]
        token = SECTION_TOKENS[section_class(section.role)]
        if mode == "full":
            return f"{first_prefix(paper.title, token, self.sep)} {section.text.strip()}"
        return self.first_chunk(paper.title, section.text, token)


def format_tasks(tasks: Sequence[RankingTask], benchmark: Any, encoder: Any) -> list[RankingTask]:
    """The tasks unchanged for a plain model; rebuilt in CoSAEmb's format for a CoSAEmb model."""
    if input_format(encoder) == "plain":
        return list(tasks)
    card = encoder.card
    texts = CosaembTexts(encoder.count_tokens, encoder.max_seq_length - 2, sep=bool(card.extra.get("title_sep", True)))
    kind = getattr(benchmark, "kind", None)
    if kind == "citation":
        return [_citation(task, benchmark, texts) for task in tasks]
    if kind == "beir":
        return [_beir(task, benchmark, texts) for task in tasks]
    if kind == "section":
        return [_sections(task, benchmark, texts) for task in tasks]
    raise ValueError(f"input format cosaemb: no CoSAEmb texts for {kind!r} benchmarks (plain texts would mislead)")


def _citation(task: RankingTask, bench: Any, texts: CosaembTexts) -> RankingTask:
    scenario, mode = normalize_key(task.name)

    def text(pid: str, body: bool) -> str:
        paper = bench.papers[pid]
        return texts.section(paper, bench.paper_log[pid].section, mode or "windowed") if body else texts.ta(paper)

    body_queries, body_docs = scenario in BODY_SCENARIOS, scenario == "body_body"
    return replace(task, queries={q: text(q, body_queries) for q in task.queries},
                   docs={d: text(d, body_docs) for d in task.docs})


def _beir(task: RankingTask, bench: Any, texts: CosaembTexts) -> RankingTask:
    parts = getattr(bench, "doc_parts", None) or {}
    docs = {}
    for d, t in task.docs.items():
        title, body = parts.get(d, ("", t))
        docs[d] = ta_unit(title=title, abstract=body, sep=texts.sep) if title else f"{ABSTRACT_TOKEN} {body}"
    return replace(task, docs=docs)


def _sections(task: RankingTask, bench: Any, texts: CosaembTexts) -> RankingTask:
    def text(uid: str) -> str:
        unit = bench.units[uid]
        title = bench.papers[unit.paper_id].title if bench.title else None
        return texts.first_chunk(title, unit.text, unit.token)

    return replace(task, queries={q: text(q) for q in task.queries}, docs={d: text(d) for d in task.docs})

"""PRISM's query aspects, the query set of one paper, and offline extractive aspect queries.

PRISM asks three LLM agents for one query each (research question, method, experiment) and adds the abstract.
Without an LLM, `extractive_queries` cuts the three aspects out of the paper's text by section role:

==================  =======================================  ==========================================
aspect              sections (role)                          fallback when the role is missing
==================  =======================================  ==========================================
research_question   introduction, then conclusion            the first substantial body section
                    (half the budget each when both exist)
method              every method section, in order           SciJEPA's method selector
                                                             (`roles.method_section_index`)
experiment          every results section, in order          SciJEPA's results/conclusion selector
                                                             (`roles.conclusion_section_index`)
abstract            the abstract                             the title
==================  =======================================  ==========================================

An aspect with no text is left out and noted. Every query records its `source` ("extractive:…", "llm:<model>",
"cache:<model>"), so extractive queries (*copies of the paper's sentences*) are never mistaken for PRISM's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sciembed.papers.model import Paper, SectionRole
from sciembed.papers.roles import SUBSTANTIAL_CHARS, conclusion_section_index, method_section_index
from sciembed.views.chunk import split_sentences

DEFAULT_WORDS = 250  # PRISM's agents write one detailed paragraph; ~250 words matches their query length


class Aspect(StrEnum):
    RESEARCH_QUESTION = "research_question"
    METHOD = "method"
    EXPERIMENT = "experiment"
    ABSTRACT = "abstract"


AGENT_ASPECTS = (Aspect.RESEARCH_QUESTION, Aspect.METHOD, Aspect.EXPERIMENT)


@dataclass
class QuerySet:
    """The aspect queries of one query paper; `sources[aspect]` says where each came from."""

    paper_id: str
    queries: dict[str, str]
    sources: dict[str, str]
    title: str = ""
    sample: int = 0  # which LLM sample (repeated runs) produced it; 0 for extractive
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"paper_id": self.paper_id, "title": self.title, "sample": self.sample, "queries": self.queries,
                "sources": self.sources, "notes": self.notes}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> QuerySet:
        return cls(str(data["paper_id"]), dict(data["queries"]), dict(data.get("sources") or {}),
                   data.get("title") or "", int(data.get("sample") or 0), list(data.get("notes") or []))

    def with_abstract(self, paper: Paper) -> QuerySet:
        """Add (or replace) the abstract query from the paper (the title when the abstract is empty)."""
        text = paper.abstract.strip() or paper.title.strip()
        if text:
            self.queries[Aspect.ABSTRACT.value] = text
            self.sources[Aspect.ABSTRACT.value] = "paper:abstract" if paper.abstract.strip() else "paper:title"
        return self


def _budget(texts: list[str], words: int) -> str:
    """Leading whole sentences of the texts (in order) up to `words` words; at least one sentence, cut if long."""
    out: list[str] = []
    used = 0
    for text in texts:
        for sentence in split_sentences(text):
            n = len(sentence.split())
            if used + n > words:
                if not out:
                    out.append(" ".join(sentence.split()[:words]))
                return " ".join(out)
            out.append(sentence)
            used += n
    return " ".join(out)


def _by_role(paper: Paper, role: SectionRole) -> list[int]:
    return [i for i, s in enumerate(paper.sections) if s.role is role and s.text.strip()]


def _texts(paper: Paper, indexes: list[int]) -> list[str]:
    return [paper.sections[i].text for i in indexes]


def extractive_queries(paper: Paper, words: int = DEFAULT_WORDS, abstract: bool = True) -> QuerySet:
    """Aspect queries cut from the paper's own sections (see the module table); no LLM involved."""
    if words <= 0:
        raise ValueError(f"word budget must be positive, got {words}")
    queries: dict[str, str] = {}
    sources: dict[str, str] = {}
    notes: list[str] = []
    intro, concl = _by_role(paper, SectionRole.INTRODUCTION), _by_role(paper, SectionRole.CONCLUSION)
    if intro or concl:
        parts = [_budget(_texts(paper, idx), words // 2 if intro and concl else words) for idx in (intro, concl) if idx]
        queries[Aspect.RESEARCH_QUESTION] = " ".join(p for p in parts if p)
        sources[Aspect.RESEARCH_QUESTION] = "extractive:" + "+".join(
            name for name, idx in (("introduction", intro), ("conclusion", concl)) if idx)
    else:
        first = next((i for i, s in enumerate(paper.sections) if len(s.text.strip()) >= SUBSTANTIAL_CHARS), None)
        if first is not None:
            queries[Aspect.RESEARCH_QUESTION] = _budget([paper.sections[first].text], words)
            sources[Aspect.RESEARCH_QUESTION] = "extractive-fallback:first-section"
    for aspect, role, selector, label in (
        (Aspect.METHOD, SectionRole.METHOD, method_section_index, "method-selector"),
        (Aspect.EXPERIMENT, SectionRole.RESULTS, conclusion_section_index, "results-selector"),
    ):
        indexes = _by_role(paper, role)
        if indexes:
            queries[aspect] = _budget(_texts(paper, indexes), words)
            sources[aspect] = f"extractive:{role.value}"
        elif (chosen := selector(paper)) is not None:
            queries[aspect] = _budget([paper.sections[chosen].text], words)
            sources[aspect] = f"extractive-fallback:{label}"
    for aspect in AGENT_ASPECTS:
        if not queries.get(aspect, "").strip():
            queries.pop(aspect, None)
            sources.pop(aspect, None)
            notes.append(f"no text for the {aspect.value} aspect" + ("" if paper.has_body else " (paper has no body)"))
    result = QuerySet(paper.id, {str(k): v for k, v in queries.items()}, {str(k): v for k, v in sources.items()},
                      paper.title, 0, notes)
    if not paper.has_body:
        result.notes.append("paper has no body: only the abstract query is possible")
    return result.with_abstract(paper) if abstract else result

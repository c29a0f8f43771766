"""SemCSE's summaries by continuation: title + abstract + a prompt stem, continued by a base model.

``samples`` continuations per stem, cut at the first sentence end; empty replies are dropped, replies that hit
``max_tokens`` first are kept, both counted (docs/recipes/semcse.md).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sciembed.llm import LLMClient, LLMRequest, Sampling, load_prompt
from sciembed.papers.model import Paper
from sciembed.summaries.extractive import pseudo_summary
from sciembed.summaries.records import Summary

STEMS = (
    "To summarize, the key findings of our research, stated in one sentence that includes all relevant "
    "information, are that",
    "In summary, our research is concerned with",
    "In summary, a comprehensive and detailed conclusive statement would be that",
    "A comprehensive summary for our work would be that",
    "The main takeaway from our work is that",
)
SAMPLES = 3
PROMPT = "semcse_continuation"

# A sentence ends at . ! ? followed by whitespace, a closing quote/bracket, or the end — unless the
# period belongs to an abbreviation, an initial, or a number ("e.g.", "et al.", "J.", "3.5").
_END = re.compile(r"[.!?]+[\"')\]]*(?=\s|$)")
_ABBREVIATIONS = frozenset({"e.g", "i.e", "al", "etc", "vs", "cf", "fig", "figs", "eq", "eqs", "sec", "no", "approx",
                            "resp", "dr", "mr", "ms", "prof", "st", "ref", "refs", "tab", "viz"})


def first_sentence(text: str) -> tuple[str, bool]:
    """(text up to and including the first sentence end, whether a sentence end was found)."""
    text = " ".join(text.split())
    for match in _END.finditer(text):
        before = text[: match.start()].split()
        token = before[-1].lower() if before else ""
        if match.group().startswith(".") and (token in _ABBREVIATIONS or re.fullmatch(r"[a-z]", token)):
            continue
        return text[: match.end()].strip(), True
    return text.strip(), False


@dataclass
class GenerationCounts:
    papers: int = 0
    requests: int = 0
    accepted: int = 0
    cached: int = 0
    rejected: Counter = field(default_factory=Counter)  # reason -> replies dropped
    truncated: int = 0  # kept, but no sentence end within max_tokens
    papers_without_abstract: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"papers": self.papers, "requests": self.requests, "accepted": self.accepted, "cached": self.cached,
                "rejected": dict(self.rejected), "truncated_kept": self.truncated,
                "papers_without_abstract": self.papers_without_abstract}


def continuation_requests(papers: Sequence[Paper], stems: Sequence[str], samples: int) -> list[tuple[Paper, int, int]]:
    """(paper, stem index, sample) for every paper with an abstract, in a fixed order."""
    return [(p, s, k) for p in papers if (p.abstract or "").strip() for s in range(len(stems)) for k in range(samples)]


def generate_llm_summaries(papers: Sequence[Paper], client: LLMClient, sampling: Sampling,
                           stems: Sequence[str] = STEMS, samples: int = SAMPLES,
                           prompt_version: int | None = None) -> tuple[list[Summary], GenerationCounts]:
    template = load_prompt(PROMPT, prompt_version)
    plan = continuation_requests(papers, stems, samples)
    counts = GenerationCounts(papers=len(papers), requests=len(plan),
                              papers_without_abstract=sum(not (p.abstract or "").strip() for p in papers))
    requests = [LLMRequest({"title": p.title, "abstract": p.abstract, "stem": stems[s]}, sample=k) for p, s, k in plan]
    replies = client.complete(template, requests, sampling, description="summaries")
    source = f"llm:{client.config.model}"
    summaries = []
    for (paper, stem, sample), reply in zip(plan, replies, strict=True):
        counts.cached += reply.cached
        if not reply.text.strip():
            counts.rejected["LLM reply empty or only whitespace"] += 1
            continue
        text, ended = first_sentence(reply.text)
        if not ended and reply.finish_reason == "length":
            counts.truncated += 1
        summaries.append(Summary(paper.id, text, source, {"stem": stem, "sample": sample, "prompt": template.id,
                                                          "complete_sentence": ended}))
    counts.accepted = len(summaries)
    return summaries, counts


def generate_extractive_summaries(papers: Sequence[Paper], stems: int = len(STEMS),
                                  samples: int = SAMPLES) -> tuple[list[Summary], GenerationCounts]:
    """The offline default: ``stems × samples`` seeded pseudo-summaries per paper (identical draws are
    kept once, counted as duplicates)."""
    counts = GenerationCounts(papers=len(papers))
    summaries = []
    for paper in papers:
        seen: set[str] = set()
        for stem in range(stems):
            for sample in range(samples):
                counts.requests += 1
                summary = pseudo_summary(paper, stem, sample)
                if summary is None:
                    counts.rejected["no abstract sentence to draw from"] += 1
                elif summary.text in seen:
                    counts.rejected["duplicate of an earlier pseudo-summary of the paper"] += 1
                else:
                    seen.add(summary.text)
                    summaries.append(summary)
    counts.accepted = len(summaries)
    return summaries, counts


def fill_to_minimum(papers: Sequence[Paper], summaries: list[Summary], minimum: int) -> tuple[list[Summary], int]:
    """Add extractive pseudo-summaries to papers with fewer than `minimum` summaries (SemCSE's summary→summary
    positives need two; SciTLDR's train split has one TLDR per paper); returns the new list and how many were
    added."""
    texts_of: dict[str, set[str]] = defaultdict(set)
    for s in summaries:
        texts_of[s.paper_id].add(s.text)
    have = Counter(s.paper_id for s in summaries)
    out = list(summaries)
    for paper in papers:
        texts = texts_of[paper.id]
        for sample in range(4 * minimum):
            if have[paper.id] >= minimum:
                break
            summary = pseudo_summary(paper, stem=0, sample=sample)
            if summary is None:
                break
            if summary.text not in texts:
                texts.add(summary.text)
                out.append(summary)
                have[paper.id] += 1
    return out, len(out) - len(summaries)

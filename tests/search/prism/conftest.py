"""Tiny full-text papers and the lexical hashing encoder."""

from __future__ import annotations

import pytest

from fakes.models import HashingEncoder
from sciembed.papers.model import Paper, Section, SectionRole


def paper(pid: str, topic: str, title: str | None = None, body: bool = True) -> Paper:
    words = topic.split()
    sentence = lambda kind: " ".join(f"{kind} {w} {w}." for w in words)  # noqa: E731
    sections = (
        Section("1 Introduction", f"We study {topic}. " + sentence("Motivation"), SectionRole.INTRODUCTION),
        Section("2 Method", f"Our method for {topic} uses a model. " + sentence("Method"), SectionRole.METHOD),
        Section("3 Experiments", f"Results on {topic} benchmarks. " + sentence("Result"), SectionRole.RESULTS),
        Section("4 Conclusion", f"We conclude {topic} works. " + sentence("Finally"), SectionRole.CONCLUSION),
    ) if body else ()
    return Paper(id=pid, title=title or f"A paper on {topic}", abstract=f"This abstract is about {topic}.",
                 sections=sections)


@pytest.fixture
def encoder() -> HashingEncoder:
    return HashingEncoder()

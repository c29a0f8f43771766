"""Title+abstract and whole-section views."""

from __future__ import annotations

from sciembed.papers.model import Paper
from sciembed.views.view import View, ViewKind


def ta_text(paper: Paper, sep: str = ". ") -> str:
    """Title and abstract joined the way SPECTER-style models expect."""
    title = paper.title.strip().rstrip(".")
    abstract = paper.abstract.strip()
    return f"{title}{sep}{abstract}" if abstract else title


def ta_view(paper: Paper) -> View:
    return View(paper.id, ViewKind.TA, ta_text(paper))


def section_view(paper: Paper, index: int) -> View:
    """A whole section as-is (heading + text), no length bound."""
    section = paper.sections[index]
    text = f"{section.heading}\n{section.text}".strip() if section.heading else section.text
    return View(paper.id, ViewKind.SECTION, text, section=index)


def full_text(paper: Paper) -> str:
    """Title, abstract and every section (heading + text): what F2F and full-text BM25 read."""
    parts = [paper.title.strip(), paper.abstract.strip()]
    parts += [f"{s.heading}\n{s.text}".strip() for s in paper.sections]
    return "\n\n".join(p for p in parts if p)

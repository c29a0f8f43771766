"""The paper body as one word sequence, with the offset where each section starts.

Windows and segments are cut from this sequence, so "contiguous body text" and
"starts at a section header" have one precise meaning: a slice
``words[start:end]`` with ``start`` in `section_starts`. A section contributes
its heading words followed by its text words.
"""

from __future__ import annotations

from dataclasses import dataclass

from sciembed.papers.model import Paper


@dataclass(frozen=True, slots=True)
class BodyWords:
    words: tuple[str, ...]
    section_starts: tuple[int, ...]  # one offset per section, in section order

    def section_span(self, index: int) -> tuple[int, int]:
        end = self.section_starts[index + 1] if index + 1 < len(self.section_starts) else len(self.words)
        return self.section_starts[index], end


def body_words(paper: Paper) -> BodyWords:
    words: list[str] = []
    starts: list[int] = []
    for section in paper.sections:
        starts.append(len(words))
        words.extend(section.heading.split())
        words.extend(section.text.split())
    return BodyWords(tuple(words), tuple(starts))

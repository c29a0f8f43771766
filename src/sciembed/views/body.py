"""The paper body as one word sequence (each section's heading words, then its text words), with the offset
where each section starts: windows and segments are slices ``words[start:end]``, `start` in `section_starts`."""

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

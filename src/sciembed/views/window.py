"""S2Full windows: start at a section header, run forward to a word target (across sections; shorter only
where the body ends). The target defaults to ``0.7 × max_seq_length`` words (358 for 512 tokens)."""

from __future__ import annotations

import hashlib
import random

from sciembed.papers.model import Paper
from sciembed.views.body import BodyWords, body_words
from sciembed.views.view import View, ViewKind

WORDS_PER_TOKEN = 0.7


def target_words(max_seq_length: int) -> int:
    """Word budget of a window for an encoder with `max_seq_length` tokens."""
    return int(WORDS_PER_TOKEN * max_seq_length)


def window_at(paper: Paper, section: int, target: int, body: BodyWords | None = None) -> View:
    """The window that starts at the header of `section`."""
    if target <= 0:
        raise ValueError(f"window target must be positive, got {target}")
    body = body or body_words(paper)
    start = body.section_starts[section]
    end = min(start + target, len(body.words))
    return View(paper.id, ViewKind.WINDOW, " ".join(body.words[start:end]), section=section, start=start, end=end)


def eligible_sections(paper: Paper, body: BodyWords | None = None) -> list[int]:
    """Sections a window may start at: those with at least one word."""
    body = body or body_words(paper)
    return [i for i in range(len(paper.sections)) if body.section_span(i)[1] > body.section_starts[i]]


def seeded_rng(seed: int, *keys: object) -> random.Random:
    """A RNG determined by a seed and keys (stable across processes, unlike `hash`)."""
    digest = hashlib.sha256(repr((seed, *keys)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def random_window(paper: Paper, target: int, rng: random.Random) -> View | None:
    """A window at a uniformly drawn section header; None for a paper with no body."""
    body = body_words(paper)
    candidates = eligible_sections(paper, body)
    if not candidates:
        return None
    return window_at(paper, rng.choice(candidates), target, body)

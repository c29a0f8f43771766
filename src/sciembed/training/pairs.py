"""Which views a training pair shows: the four S2Full strategies and self-alignment.

A view is an int: 0 is the paper's TA view, ``v >= 1`` the window that starts at the paper's v-th body section
able to start one (`sciembed.views.window.eligible_sections`), so a paper has ``1 + n_body`` views. Ints keep
the plan small and the composition countable without text.
"""

from __future__ import annotations

import numpy as np

TA = 0


def uniform_view(n_body: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One view per paper, uniform over its TA view and its body views."""
    return np.floor(rng.random(len(n_body)) * (n_body + 1)).astype(np.int32)


def uniform_body(n_body: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One body view per paper (0 = TA where the paper has no body)."""
    drawn = 1 + np.floor(rng.random(len(n_body)) * n_body).astype(np.int32)
    return np.where(n_body > 0, drawn, TA).astype(np.int32)


def draw_citation_views(strategy: str, n_body_anchor: np.ndarray, n_body_positive: np.ndarray,
                        rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Anchor and positive views of citation pairs under one strategy. ``no_ta_ta``: a TA anchor gets a body
    positive, or (positive without body) switches to a body view; a TA–TA pair remains only when neither has one."""
    n = len(n_body_anchor)
    if strategy == "ta_ta":
        return np.zeros(n, np.int32), np.zeros(n, np.int32)
    anchor = uniform_view(n_body_anchor, rng)
    if strategy == "both_random":
        return anchor, uniform_view(n_body_positive, rng)
    if strategy == "anchor_random_pos_ta":
        return anchor, np.zeros(n, np.int32)
    if strategy == "no_ta_ta":
        positive = uniform_view(n_body_positive, rng)
        body_positive = uniform_body(n_body_positive, rng)
        body_anchor = uniform_body(n_body_anchor, rng)
        ta_anchor = anchor == TA
        use_body_positive = ta_anchor & (n_body_positive > 0)
        positive = np.where(use_body_positive, body_positive, positive)
        switch_anchor = ta_anchor & (n_body_positive == 0) & (n_body_anchor > 0)
        anchor = np.where(switch_anchor, body_anchor, anchor)
        positive = np.where(switch_anchor, TA, positive)
        return anchor.astype(np.int32), positive.astype(np.int32)
    raise ValueError(f"unknown strategy {strategy!r}")


def draw_self_views(n_body: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two distinct views of each paper, uniform without replacement (needs ``n_body >= 1``)."""
    if len(n_body) and n_body.min() < 1:
        raise ValueError("self-alignment needs papers with at least one body view")
    n_views = n_body + 1
    first = np.floor(rng.random(len(n_body)) * n_views).astype(np.int32)
    second = np.floor(rng.random(len(n_body)) * (n_views - 1)).astype(np.int32)
    second = second + (second >= first)
    return first, second.astype(np.int32)

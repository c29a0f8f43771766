"""Token budgets without a tokenizer at hand.

Views that must fit an encoder's token budget count tokens with a callable;
`approx_tokens` is the offline default (words / 0.7, the same ratio the
window rule uses). Pass ``len(tokenizer.tokenize(text))`` for exact counts.
"""

from __future__ import annotations

import math
from collections.abc import Callable

TokenCounter = Callable[[str], int]


def approx_tokens(text: str) -> int:
    return math.ceil(len(text.split()) / 0.7)


def tokenizer_counter(tokenizer) -> TokenCounter:
    """Exact token counter from a Hugging Face tokenizer (special tokens excluded)."""
    return lambda text: len(tokenizer.tokenize(text))

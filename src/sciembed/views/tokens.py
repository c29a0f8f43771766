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


class TokenizerCounter:
    """Exact token counts from a Hugging Face tokenizer (special tokens excluded); `many` counts a list in
    one batched call, which is what makes chunking a corpus fast."""

    def __init__(self, tokenizer) -> None:
        self.tokenizer = tokenizer

    def __call__(self, text: str) -> int:
        return len(self.tokenizer.tokenize(text))

    def many(self, texts: list[str]) -> list[int]:
        if not texts:
            return []
        ids = self.tokenizer(texts, add_special_tokens=False, return_attention_mask=False,
                             return_token_type_ids=False)["input_ids"]
        return [len(x) for x in ids]


def tokenizer_counter(tokenizer) -> TokenizerCounter:
    """Exact token counter from a Hugging Face tokenizer (special tokens excluded)."""
    return TokenizerCounter(tokenizer)


def count_many(count: TokenCounter, texts: list[str]) -> list[int]:
    """Counts of many texts: batched when the counter can (`TokenizerCounter.many`), else one by one."""
    many = getattr(count, "many", None)
    return many(texts) if many is not None else [count(t) for t in texts]

"""Register a recipe's special tokens with a model's tokenizer and resize its embedding matrix, once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sciembed.errors import SciembedInputError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer


class TokenizerError(SciembedInputError, ValueError):
    """The model's tokenizer cannot take the recipe's special tokens."""


def register_special_tokens(model: SentenceTransformer, tokens: Sequence[str], source: str = "model") -> int:
    """Add `tokens` as special tokens (never split, never lower-cased) and resize the input embeddings; returns
    how many were added. Tokens already single ids (a model trained by the recipe before) are not added again."""
    transformer = model[0]
    tokenizer = getattr(transformer, "tokenizer", None)
    added = add_tokens(tokenizer, tokens, source)
    if added and transformer.auto_model.get_input_embeddings().num_embeddings < len(tokenizer):
        transformer.auto_model.resize_token_embeddings(len(tokenizer))
    return added


def is_single_token(tokenizer, token: str) -> bool:
    """`token` encodes to exactly one id that is not the unknown token."""
    ids = tokenizer.encode(token, add_special_tokens=False)
    return len(ids) == 1 and ids[0] != tokenizer.unk_token_id


def add_tokens(tokenizer, tokens: Sequence[str], source: str = "model") -> int:
    """Add the tokens a tokenizer does not hold yet as special tokens; check each is then one id."""
    if tokenizer is None or not hasattr(tokenizer, "add_special_tokens"):
        raise TokenizerError(f"{source}: no Hugging Face tokenizer that can take new tokens")
    missing = [t for t in tokens if not is_single_token(tokenizer, t)]
    added = 0
    if missing:
        try:
            added = tokenizer.add_special_tokens({"additional_special_tokens": missing},
                                                 replace_additional_special_tokens=False)
        except (TypeError, ValueError, AttributeError) as exc:
            raise TokenizerError(f"{source}: the tokenizer refused new tokens {missing} ({exc})") from exc
    still = [t for t in tokens if not is_single_token(tokenizer, t)]
    if still:
        raise TokenizerError(f"{source}: after registration {len(still)} special token(s) still split into several "
                             f"ids: {', '.join(still)}; this tokenizer cannot take new tokens")
    return added

"""Issue 32, item 2: an `openai` encoder for OpenAI's text-embedding-3 models reads their 8,191-token input (PRISM
cuts segments and papers at 8,192 tiktoken tokens, 1,536-d), with a margin when no exact tokenizer is at hand."""

from __future__ import annotations

from sciembed.llm.config import LLMConfig
from sciembed.models.openai_backend import (
    DEFAULT_MAX_SEQ_LENGTH,
    ESTIMATE_MARGIN,
    OPENAI_MODELS,
    OpenAIEmbeddingEncoder,
    default_max_seq_length,
)

CONFIG = LLMConfig(base_url="http://127.0.0.1:9/v1")


def _encoder(model: str, **options) -> OpenAIEmbeddingEncoder:
    return OpenAIEmbeddingEncoder(model, CONFIG, progress=False, **options)


class _WordTokenizer:
    """An exact tokenizer stand-in: one token per character pair (denser than the words / 0.7 estimate)."""

    def encode(self, text: str, disallowed_special=()) -> list[str]:
        return [text[i:i + 2] for i in range(0, len(text), 2)]

    def decode(self, tokens: list[str]) -> str:
        return "".join(tokens)


def test_text_embedding_3_reads_at_least_8000_tokens():
    for model in ("text-embedding-3-small", "text-embedding-3-large", "openai/text-embedding-3-small"):
        encoder = _encoder(model)
        assert encoder.max_seq_length == 8191 >= 8000, model
        assert encoder.hard_limit
    assert OPENAI_MODELS["text-embedding-3-small"][1] == 1536  # PRISM's dimension
    assert default_max_seq_length("BAAI/bge-small-en-v1.5") == DEFAULT_MAX_SEQ_LENGTH == 512
    assert _encoder("text-embedding-3-small", max_seq_length=1000).max_seq_length == 1000  # an explicit budget wins


def test_without_a_tokenizer_the_estimate_keeps_a_margin_below_the_limit():
    encoder = _encoder("text-embedding-3-small")
    encoder.tokenizer = None
    long = " ".join(f"w{i}" for i in range(20_000))
    sent = encoder.clip(long).split()
    assert len(sent) == int(8191 * 0.7 * ESTIMATE_MARGIN) and len(sent) > 5000  # a ~2,480-token segment fits whole
    assert encoder.count_tokens(" ".join(sent)) < 8191  # by the estimate, with room for denser text
    other = _encoder("BAAI/bge-small-en-v1.5")  # a server whose limit sciembed does not know: no margin
    assert len(other.clip(long).split()) == int(512 * 0.7)


def test_with_an_exact_tokenizer_the_cut_is_the_limit():
    encoder = _encoder("text-embedding-3-small", max_seq_length=100)
    encoder.tokenizer = _WordTokenizer()
    sent = encoder.clip("x" * 1000)
    assert encoder.count_tokens(sent) == 100
    assert encoder.clip("short") == "short"


def test_the_cut_is_part_of_the_fingerprint():
    exact, estimated = _encoder("text-embedding-3-small"), _encoder("text-embedding-3-small")
    exact.tokenizer, estimated.tokenizer = _WordTokenizer(), None
    assert exact.fingerprint != estimated.fingerprint
    assert _encoder("BAAI/bge-small-en-v1.5").fingerprint == _encoder("BAAI/bge-small-en-v1.5").fingerprint

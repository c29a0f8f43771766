"""A tiny random-init BERT on disk, for fast offline tests and smoke runs of the model code paths.

It is a plain Hugging Face checkpoint (no ``modules.json``), so loading it
exercises the mean-pooling path; its vocabulary is whatever words the caller
passes, so texts made of those words tokenize without [UNK].
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def build_tiny_bert(
    root: str | Path,
    words: Iterable[str],
    *,
    seed: int = 0,
    hidden_size: int = 32,
    layers: int = 2,
    heads: int = 2,
    max_position_embeddings: int = 128,
) -> Path:
    """Write a random-init BERT (weights fixed by `seed`) and a WordPiece vocab of `words` to `root`."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    vocab = list(dict.fromkeys([*SPECIAL_TOKENS, *(w.lower() for w in words if w.strip())]))
    vocab_file = root / "vocab.txt"
    vocab_file.write_text("\n".join(vocab) + "\n", encoding="utf-8")
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=2 * hidden_size,
        max_position_embeddings=max_position_embeddings,
    )
    BertModel(config).save_pretrained(root)
    BertTokenizerFast(vocab_file=str(vocab_file), do_lower_case=True).save_pretrained(root)
    return root


class HashingEncoder:
    """An offline, deterministic, *lexical* `Encoder` for tests: a text is the sum of fixed random vectors of
    its words, so texts sharing words are close. No model, no tokenizer; `count_tokens` counts words."""

    def __init__(self, dim: int = 64, metric: str = "cosine", name: str = "hashing") -> None:
        self.name, self.dim, self.metric, self.max_seq_length = name, dim, metric, 512
        self.fingerprint = f"{name}-{dim}-{metric}"
        self.calls = 0

    def _word(self, word: str):
        import hashlib

        import numpy as np

        seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "big")
        return np.random.default_rng(seed).normal(size=self.dim)

    def encode(self, texts, *, batch_size: int | None = None, show_progress: bool = True):
        import numpy as np

        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i] += self._word(word.strip(".,:;()"))
        out += 1e-6
        if self.metric == "cosine":
            out /= np.linalg.norm(out, axis=1, keepdims=True)
        return out

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def build_tiny_adapter(base: Path, out: Path, name: str = "proximity", seed: int = 7) -> Path:
    """A bottleneck adapter on `base` with non-trivial seeded weights, saved the way `adapters` saves SPECTER2's."""
    import adapters
    import torch
    from transformers import BertModel

    model = BertModel.from_pretrained(base)
    adapters.init(model)
    model.add_adapter(name, config="seq_bn")
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for param_name, param in model.named_parameters():
            if f"adapters.{name}" in param_name:
                param.copy_(torch.randn(param.shape, generator=generator) * 0.5)
    model.save_adapter(str(out), name)
    return out

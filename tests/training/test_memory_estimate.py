"""The training-memory estimator: known numbers for a tiny BERT, monotonic in batch and length, checkpointing,
the recipes' shapes, the paper configs on an 80 GB card, `--device-memory` parsing and the refusal before loading."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.cli.memory_options import parse_memory_size
from sciembed.training.activation_memory import encoder_activation_bytes, layer_bytes
from sciembed.training.config import InfoNCEConfig, JepaConfig, WindowConfig, load_config
from sciembed.training.memory_check import MemoryLimitError, check_fits
from sciembed.training.memory_estimate import estimate
from sciembed.training.model_architecture import architecture_of, read_architecture
from sciembed.training.recipes import recipe_config

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
GB = 10**9


@pytest.fixture(scope="module")
def tiny_arch():
    from transformers import BertConfig

    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    return architecture_of(config, "test")


def test_known_numbers_for_a_tiny_bert(tiny_arch):
    # embeddings 100·32 + 64·32 + 2·32 + LayerNorm 64; per layer Q,K,V,O 4·(32·32+32) + 2 LayerNorms 128 + MLP
    # 32·64+64 + 64·32+32; pooler 32·32+32
    assert tiny_arch.parameters == 5376 + 2 * 8544 + 1056
    # fp32 on CPU with dropout, per token: h·(Q/K/V input 4 + Q,K,V 12 + context 4 + mask 1 + LN 4 + MLP input 4
    # + mask 1 + LN 4) + i·(GELU in + out 8) = 32·34 + 64·8 = 1600 bytes; per text and head: softmax out,
    # dropout mask and output 9 bytes per score: 2 heads × 16² × 9 = 4608
    assert layer_bytes(tiny_arch, seq=16, texts=4, precision="fp32", target="cpu") == 4 * (16 * 1600 + 4608)
    # CUDA's fused attention keeps no score matrix; bf16 autocast halves what is not fp32 (LN inputs) or a mask
    assert layer_bytes(tiny_arch, 16, 4, "fp32", "cuda") == 4 * 16 * 1600
    per_token_bf16 = 32 * (3 * 2 + 3 * 2 + 2 + 1 + 4 + 2 + 1 + 4) + 64 * 4
    assert layer_bytes(tiny_arch, 16, 4, "bf16", "cuda") == 4 * 16 * per_token_bf16


def test_monotonic_in_batch_and_length_and_checkpointing_keeps_less(tiny_arch):
    def kept(texts, seq, ckpt):
        return encoder_activation_bytes(tiny_arch, seq, texts, "fp32", "cpu", ckpt)[0]

    for ckpt in (False, True):
        assert kept(2, 32, ckpt) < kept(4, 32, ckpt) < kept(8, 32, ckpt)
        assert kept(4, 16, ckpt) < kept(4, 32, ckpt) < kept(4, 64, ckpt)
    for texts, seq in ((2, 16), (8, 64)):
        assert kept(texts, seq, True) < kept(texts, seq, False)


def _minilm(cls, **training):
    return cls.model_validate({"model": {"base": None, "max_seq_length": 128}, "training": training})


def test_recipes_put_their_own_number_of_texts_on_the_device():
    arch = read_architecture(None)  # the offline MiniLM's config.json
    assert arch.model_type == "bert" and arch.hidden == 384 and arch.layers == 6
    assert "config.json" in arch.source and 22_000_000 < arch.parameters < 23_000_000
    jepa = estimate(_minilm(JepaConfig, batch_size=16), "cpu", arch)
    infonce = estimate(_minilm(InfoNCEConfig, batch_size=16), "cpu", arch)
    assert (jepa.texts, infonce.texts) == (16, 32)
    names = {c.name for c in jepa.components}
    assert "EMA target weights (fp32)" in names and "target forward (no gradients)" in names
    cached = estimate(_minilm(WindowConfig, batch_size=256, mini_batch_size=8), "cpu", arch)
    plain = estimate(_minilm(WindowConfig, batch_size=256, mini_batch_size=8, loss="mnrl"), "cpu", arch)
    assert cached.texts == 8 and plain.texts == 512 and cached.total() < plain.total()
    assert any(c.name == "CachedMNRL embedding cache" for c in cached.components)


def test_paper_configs_fit_80gb_and_the_old_jepa_setting_does_not():
    """The issue's configs on an 80 GB card (bf16 on CUDA; SciBERT/ModernBERT from the known-architectures
    table when their config.json is not cached)."""
    for name in ("jepa-scibert.yaml", "jepa-lambda-0.yaml", "infonce-scibert.yaml", "window-modernbert.yaml",
                 "window-scibert.yaml", "cosaemb-scibert.yaml"):
        import yaml

        recipe = yaml.safe_load((CONFIGS / name).read_text())["recipe"]
        config = load_config(recipe_config(recipe), CONFIGS / name)
        est = estimate(config, "cuda")
        assert est.precision == "bf16"
        check_fits(config, est, 80 * GB, "--device-memory")  # raises when it does not fit
    old = load_config(JepaConfig, CONFIGS / "jepa-scibert.yaml", {"training.gradient_checkpointing": False})
    est = estimate(old, "cuda")
    assert "known-architectures table" in est.architecture.source or "hub" in est.architecture.source
    with pytest.raises(MemoryLimitError) as err:
        check_fits(old, est, 80 * GB, "--device-memory")
    message = str(err.value)
    assert "exceeds 80.00 GB" in message and "training.gradient_checkpointing=true" in message
    assert "training.batch_size=" in message and "--force" in message


@pytest.mark.parametrize(("text", "size"), [("80GB", 80 * GB), ("24GiB", 24 * 2**30), ("81920MB", 81920 * 10**6),
                                            ("1.5 gb", int(1.5 * GB))])
def test_device_memory_sizes(text, size):
    assert parse_memory_size(text) == size


@pytest.mark.parametrize("text", ["abc", "-5GB", "0GB", "80", "80 parsecs", ""])
def test_bad_device_memory_is_a_usage_error(text):
    with pytest.raises(typer.BadParameter):
        parse_memory_size(text)


def invoke(*args: str):
    result = CliRunner().invoke(app, ["train", "window", *args])
    return result.exit_code, " ".join(result.output.split())


@pytest.mark.parametrize("value", ["lots", "-3GB"])
def test_cli_bad_device_memory_exits_2(tiny_corpus, value):
    code, out = invoke("--corpus", str(tiny_corpus), "--dry-run", "--device-memory", value)
    assert code == 2 and "expected a positive size with a unit" in out


def test_cli_refuses_a_run_that_does_not_fit_before_loading_the_model(tiny_corpus, tiny_bert, tmp_path, monkeypatch):
    import sciembed.training.model as model_module

    def no_load(*args, **kwargs):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(model_module, "build_model", no_load)
    out_dir = tmp_path / "run"
    code, out = invoke("--corpus", str(tiny_corpus), "--out", str(out_dir), "--base-model", str(tiny_bert),
                       "--set", "training.batch_size=10", "--set", "training.mini_batch_size=5",
                       "--set", "model.max_seq_length=64", "--device-memory", "1MB")
    assert code == 2, out
    assert "error: estimated peak CPU memory" in out and "exceeds 1.0 MB (--device-memory)" in out
    assert "training.gradient_checkpointing=true" in out and "--force" in out
    assert not (out_dir / "model").exists()


def test_cli_dry_run_prints_the_estimate(tiny_corpus, tiny_bert):
    code, out = invoke("--corpus", str(tiny_corpus), "--dry-run", "--base-model", str(tiny_bert),
                       "--set", "training.batch_size=10", "--set", "training.mini_batch_size=5",
                       "--set", "model.max_seq_length=64", "--device-memory", "24GiB", "--estimate-for", "cuda")
    assert code == 0, out
    assert "Estimated peak CUDA memory (window, bf16)" in out
    assert "activations (5 × 64 tokens)" in out and "no checkpointing (config)" in out
    assert "(--device-memory); the configured run" in out and "fits" in out
    assert "host memory estimate" in out

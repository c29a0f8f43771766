"""ONNX backend behind the same interface: export once, float parity, int8 quantization, distinct fingerprints."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fakes.models import build_tiny_bert
from sciembed.models import load_encoder, onnx_backend

WORDS = [
    "graph",
    "neural",
    "network",
    "protein",
    "folding",
    "cell",
    "data",
    "model",
    "learning",
    "sparse",
    "attention",
    "kernel",
    "of",
    "the",
    "a",
]
TEXTS = ["graph neural network of the cell", "protein folding model", "a sparse attention kernel", "data"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("tiny"), WORDS, seed=5)


@pytest.fixture(scope="module")
def exports(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("exports")


def test_float_onnx_matches_torch(tiny, exports):
    torch_encoder = load_encoder(str(tiny))
    onnx_encoder = load_encoder(str(tiny), backend="onnx", cache_dir=exports).encoder
    assert onnx_encoder.backend == "onnx" and onnx_encoder.quantization is None
    assert (onnx_encoder.dim, onnx_encoder.max_seq_length) == (torch_encoder.dim, torch_encoder.max_seq_length)
    np.testing.assert_allclose(
        onnx_encoder.encode(TEXTS, show_progress=False), torch_encoder.encode(TEXTS, show_progress=False), atol=1e-4
    )
    assert onnx_encoder.fingerprint != torch_encoder.fingerprint


def test_int8_is_close_and_exports_are_reused(tiny, exports, monkeypatch):
    reference = load_encoder(str(tiny)).encode(TEXTS, show_progress=False)
    quantized = load_encoder(str(tiny), backend="onnx", quantize=True, cache_dir=exports).encoder
    config = onnx_backend.default_quantization()
    assert quantized.quantization == config == "o2-" + onnx_backend.cpu_quantization_config()
    export_dir = onnx_backend.export_dir_for(quantized._weights_id, exports)
    assert (export_dir / onnx_backend.quantized_file(config)).is_file()
    cosines = (quantized.encode(TEXTS, show_progress=False) * reference).sum(axis=1)
    assert cosines.min() > 0.98

    def no_export(*args, **kwargs):
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_backend, "_export_float", no_export)
    monkeypatch.setattr(onnx_backend, "_export_quantized", no_export)
    again = load_encoder(str(tiny), backend="onnx", quantize=True, cache_dir=exports).encoder
    assert again.fingerprint == quantized.fingerprint
    fingerprints = {
        load_encoder(str(tiny)).fingerprint,
        load_encoder(str(tiny), backend="onnx", cache_dir=exports).fingerprint,
        again.fingerprint,
    }
    assert len(fingerprints) == 3


def test_an_index_loads_the_int8_file_its_label_names(tiny, exports):
    """The label a manifest stores picks the file (the plain one of older indexes), not this machine's default."""
    from sciembed.models.spec import EncoderSpec

    label = onnx_backend.cpu_quantization_config()
    built = load_encoder(str(tiny), backend="onnx", quantize=label, cache_dir=exports).encoder
    export_dir = onnx_backend.export_dir_for(built._weights_id, exports)
    assert (export_dir / onnx_backend.quantized_file(label)).is_file() and built.quantization == label
    reference = load_encoder(str(tiny)).encode(TEXTS, show_progress=False)
    assert (built.encode(TEXTS, show_progress=False) * reference).sum(axis=1).min() > 0.98
    described = built.describe()
    assert described["spec"]["quantize"] == label
    again = EncoderSpec.from_described(described).load(cache_dir=exports)
    assert again.fingerprint == built.fingerprint
    np.testing.assert_array_equal(again.encode(TEXTS, show_progress=False), built.encode(TEXTS, show_progress=False))
    default = load_encoder(str(tiny), backend="onnx", quantize=True, cache_dir=exports).encoder
    assert default.fingerprint != built.fingerprint
    described["spec"]["quantize"] = True  # a manifest written before labels travelled in the spec
    assert EncoderSpec.from_described(described).quantize == label  # its loose "quantization" names the file


def test_an_unknown_quantization_label_is_refused():
    from pydantic import ValidationError

    from sciembed.models.spec import EncoderSpec

    with pytest.raises(ValidationError, match="unknown quantization 'o3-avx2'"):
        EncoderSpec(backend="onnx", quantize="o3-avx2")

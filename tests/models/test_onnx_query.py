"""Issue 31, item 3: a CLI text query over an ONNX-built index encodes with ONNX Runtime alone, the same vectors."""

from __future__ import annotations

import numpy as np
import pytest

from fakes.models import build_tiny_bert
from sciembed.models import load_encoder
from sciembed.models.onnx_query import onnx_query_encoder

WORDS = ["graph", "neural", "protein", "folding", "galaxy", "spectra", "soil", "gene", "network", "model"]
TEXTS = ["graph neural network", "protein folding of a gene", "galaxy spectra " * 200, "soil"]


@pytest.mark.parametrize("quantize", [False, True])
def test_the_light_query_encoder_gives_the_full_encoders_vectors(tmp_path, quantize):
    model = build_tiny_bert(tmp_path / "bert", WORDS, seed=0)
    full = load_encoder(str(model), backend="onnx", quantize=quantize, cache_dir=tmp_path / "cache",
                        max_seq_length=64)
    light = onnx_query_encoder(full.describe(), tmp_path / "cache")
    assert light is not None and light.fingerprint == full.fingerprint
    expected = full.encode(TEXTS, show_progress=False)
    assert np.allclose(light.encode(TEXTS), expected, atol=1e-5)  # a text past the budget is cut the same way
    if not quantize:  # many queries go in batches, in order (int8 vectors depend on their batch: docs/p2p.md)
        rows, run = [], light.session.run
        light.session = type("Recorder", (), {"run": lambda _, out, feed: rows.append(len(feed["input_ids"]))
                                              or run(out, feed)})()
        assert np.allclose(light.encode(TEXTS, batch_size=3), expected, atol=1e-5)
        assert rows == [3, 1]


def test_it_steps_aside_where_it_does_not_apply(tmp_path):
    assert onnx_query_encoder({"backend": "torch"}, None) is None
    assert onnx_query_encoder({"backend": "onnx", "adapter": "x", "source": "y"}, None) is None
    assert onnx_query_encoder({"backend": "onnx", "source": str(tmp_path)}, tmp_path) is None  # no export there

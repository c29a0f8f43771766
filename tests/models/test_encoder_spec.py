"""`EncoderSpec`: one value from the command line to the manifest and back, old manifests included."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from sciembed.models.spec import EncoderSpec
from sciembed.retrieval.index_factory import IndexFactoryError, parse_index_factory


def test_spec_round_trips_through_a_manifest_dict():
    spec = EncoderSpec(model="/models/base", adapter="/adapters/proximity", pooling="cls", max_seq_length=64,
                       prefix="query: ", ta_join="[SEP]", metric="l2")
    described = {"name": "base", "source": "/elsewhere", "fingerprint": "f", "spec": spec.to_dict()}
    assert EncoderSpec.from_described(described) == spec
    assert hash(spec) == hash(EncoderSpec.model_validate(spec.to_dict()))  # frozen: a value


def test_old_manifests_are_read_from_their_loose_fields():
    old = {"name": "minilm", "source": "/site-packages/minilm", "backend": "onnx", "quantize": True,
           "quantization": "avx2", "max_seq_length": 256, "prefix": "", "metric": "cosine", "dim": 384,
           "fingerprint": "f", "trust_remote_code": False}
    spec = EncoderSpec.from_described(old)
    assert spec == EncoderSpec(model="/site-packages/minilm", backend="onnx", quantize="avx2", max_seq_length=256,
                               metric="cosine")  # the int8 file that index was built with
    openai = {"name": "m", "source": "m", "backend": "openai", "base_url": "http://h/v1", "api_key_env": "K",
              "dimensions": 8, "pooling": None, "adapter": None, "ta_join": ". ", "metric": "cosine"}
    assert EncoderSpec.from_described(openai).base_url == "http://h/v1"


def test_spec_refuses_unknown_fields_and_values():
    with pytest.raises(ValidationError):
        EncoderSpec(pooling="max")
    with pytest.raises(ValidationError):
        EncoderSpec.model_validate({"model": "m", "hnsw_m": 3})
    assert EncoderSpec().replace(adapter=None, pooling="cls") == EncoderSpec(pooling="cls")


@pytest.mark.parametrize(("text", "kind", "overrides"), [
    ("auto", "auto", {}), ("Flat", "flat", {}), ("hnsw", "hnsw", {}),
    ("HNSW16", "hnsw", {"hnsw_m": 16, "hnsw_storage": "flat"}),
    ("HNSW32,SQ8,efSearch=128,efConstruction=200", "hnsw",
     {"hnsw_m": 32, "hnsw_storage": "sq8", "ef_search": 128, "ef_construction": 200}),
    ("IVF1024,PQ48", "ivf-pq", {"nlist": 1024, "pq_m": 48, "refine": "none"}),
    ("IVF8,PQ48,Refine(SQ8),nprobe=4,k_factor=16", "ivf-pq",
     {"nlist": 8, "pq_m": 48, "refine": "sq8", "nprobe": 4, "refine_k_factor": 16}),
])
def test_index_factory_strings(text, kind, overrides):
    assert parse_index_factory(text) == (kind, overrides)


@pytest.mark.parametrize("text", ["", "LSH", "HNSW32,PQ8", "IVF,PQ8", "HNSW32,efSearch=0", "Flat,nprobe=x",
                                  "IVF8,PQ4,Refine(PQ)", "HNSW32,ef=3"])
def test_bad_index_factory_strings_name_the_grammar(text):
    with pytest.raises(IndexFactoryError, match="expected auto"):
        parse_index_factory(text)

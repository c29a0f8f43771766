"""`--adapter` (and the other encoder options) in `index build`, `encode` and `index serve`: one `EncoderSpec`
built from the command line, stored in the manifest, loaded again by every consumer. An offline adapter
directory on a tiny random BERT (no network)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from fakes.models import build_tiny_adapter, build_tiny_bert
from sciembed.cli.main import app
from sciembed.models import load_encoder
from sciembed.models.encoder import spec_fields
from sciembed.models.spec import EncoderSpec
from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper

pytest.importorskip("adapters")

runner = CliRunner()
WORDS = ["graph", "neural", "network", "protein", "folding", "citation", "retrieval", "embedding", "paper", "title"]


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("base"), WORDS, seed=1)


@pytest.fixture(scope="module")
def adapter_dir(tmp_path_factory, base) -> Path:
    return build_tiny_adapter(base, tmp_path_factory.mktemp("adapter") / "proximity")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    papers = [Paper(f"P{i}", f"{WORDS[i]} {WORDS[(i + 3) % 10]}", f"{WORDS[(i + 5) % 10]} paper title")
              for i in range(8)]
    write_parquet(papers, root / "papers.parquet")
    return root


def options(base: Path, adapter: Path) -> list[str]:
    return ["-m", str(base), "--adapter", str(adapter), "--pooling", "cls", "--ta-join", "sep",
            "--max-seq-length", "32", "--backend", "torch"]


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory, base, adapter_dir, corpus) -> Path:
    out = tmp_path_factory.mktemp("index") / "idx"
    result = runner.invoke(app, ["index", "build", str(corpus), "--view", "ta", "-o", str(out),
                                 *options(base, adapter_dir)])
    assert result.exit_code == 0, result.output
    return out


def test_index_build_stores_the_spec_with_its_adapter(index_dir, base, adapter_dir):
    manifest = json.loads((index_dir / "manifest.json").read_text())
    spec = EncoderSpec.from_described(manifest["encoder"])
    assert spec.adapter == str(adapter_dir.resolve()) and spec.pooling == "cls" and spec.max_seq_length == 32
    plain = load_encoder(str(base), max_seq_length=32, pooling="cls", ta_join="sep")
    loaded = spec.load()
    assert loaded.fingerprint == manifest["encoder"]["fingerprint"] != plain.fingerprint
    # loading the stored spec gives an encoder of the same spec
    assert EncoderSpec.model_validate(spec_fields(loaded)) == spec
    from sciembed.index.collection import encoder_from_manifest

    assert encoder_from_manifest(manifest).fingerprint == loaded.fingerprint


def test_index_search_encodes_queries_with_the_adapter(index_dir):
    result = runner.invoke(app, ["index", "search", str(index_dir), "--query", "protein folding", "--k", "3",
                                 "--output-format", "json"])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.output)[0]["hits"]) == 3


def test_serve_takes_the_adapter(index_dir, base, adapter_dir, monkeypatch, tmp_path):
    import shutil

    import uvicorn
    from fastapi.testclient import TestClient

    other = runner.invoke(app, ["index", "serve", str(index_dir), "-m", str(base), "--pooling", "mean"])
    assert other.exit_code == 2 and "fingerprint" in other.output
    served = {}
    monkeypatch.setattr(uvicorn, "run", lambda app_, **kw: served.update(app=app_))
    copy = shutil.copytree(index_dir, tmp_path / "served")  # the served collection keeps its writer lock
    result = runner.invoke(app, ["index", "serve", str(copy), *options(base, adapter_dir)])
    assert result.exit_code == 0, result.output
    client = TestClient(served["app"], base_url="http://localhost")
    body = client.post("/search", json={"query": "protein folding", "k": 3}).json()
    assert len(body["hits"]) == 3


def test_encode_takes_the_adapter(corpus, base, adapter_dir, index_dir, tmp_path):
    out = tmp_path / "vectors"
    result = runner.invoke(app, ["encode", str(corpus), "-o", str(out), "--no-progress", *options(base, adapter_dir)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    built = json.loads((index_dir / "manifest.json").read_text())["encoder"]
    assert manifest["encoder"]["fingerprint"] == built["fingerprint"]
    assert EncoderSpec.from_described(manifest["encoder"]) == EncoderSpec.from_described(built)
    again = EncoderSpec.from_described(manifest["encoder"]).load()
    vectors = again.encode(["protein folding"])
    assert np.isfinite(vectors).all()


def test_eval_run_takes_the_same_spec_options(base, adapter_dir, tmp_path):
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    docs = [{"_id": f"d{i}", "title": WORDS[i], "text": f"{WORDS[(i + 1) % 10]} paper"} for i in range(10)]
    (beir / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (beir / "queries.jsonl").write_text("".join(json.dumps({"_id": f"q{i}", "text": WORDS[i]}) + "\n"
                                                for i in range(10)))
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i}\t1\n"
                                                                                     for i in range(10)))
    result = runner.invoke(app, ["eval", "run", "--kind", "beir", str(beir), "-o", str(tmp_path / "run"),
                                 *options(base, adapter_dir)])
    assert result.exit_code == 0, result.output
    assert str(adapter_dir) in (tmp_path / "run" / "results.json").read_text()
    bad = runner.invoke(app, ["eval", "run", "--kind", "beir", str(beir), "-o", str(tmp_path / "bad"), "-m",
                              str(base), "--pooling", "max"])
    assert bad.exit_code == 2 and "--pooling" in bad.output

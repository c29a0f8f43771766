"""Regression tests for issue 15, defects 8 (damaged / unwritable files), 11 (integrity) and 16 (configs, search)."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest
from typer.testing import CliRunner

from fakes.fuzzing.hostile import own_record, write_lines
from sciembed.cli.errors import data_error_message
from sciembed.cli.main import app
from sciembed.cli.search import truncation_note
from sciembed.index.paper_index import build_paper_index, open_paper_index
from sciembed.ioutil.atomic import OutputError, check_writable
from sciembed.models.cache import CachedEncoder, EmbeddingCache
from sciembed.papers.ingest import ingest
from sciembed.retrieval.dense import DenseIndex, IndexLoadError
from sciembed.training import WindowConfig, load_config
from sciembed.training.config import ConfigError


class FakeEncoder:
    """Deterministic 4-d vectors from text hashes; counts what it encodes."""

    name = fingerprint = "fake-v1"
    dim, metric, max_seq_length = 4, "cosine", 64

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def encode(self, texts, batch_size=32, show_progress=True):
        self.encoded += list(texts)
        rows = [np.random.default_rng(abs(hash(t)) % 2**32).random(4) + 0.1 for t in texts]
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), 4)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("integrity")
    ingest([write_lines(root / "p.jsonl", [own_record(f"p{i}") for i in range(6)])], root / "corpus", progress=False)
    return root / "corpus"


# -- 8: damaged and unwritable files ---------------------------------------------------------------------------


def test_a_truncated_papers_parquet_is_one_message_not_a_traceback(corpus, tmp_path):
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    data = (corpus / "papers.parquet").read_bytes()
    (damaged / "papers.parquet").write_bytes(data[: len(data) // 2])
    (damaged / "manifest.json").write_text((corpus / "manifest.json").read_text())
    done = subprocess.run([sys.executable, "-m", "sciembed.cli.main", "corpus", "build", str(damaged), "-o",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    # Not a terminal: progress prints plain "<stage>: started / stopped" lines; besides them, one message.
    message = [line for line in done.stderr.splitlines() if not re.match(r"^[\w ]+: (started|stopped|done), ", line)]
    assert "Traceback" not in done.stderr and len(message) <= 2 and "error:" in done.stderr + done.stdout
    assert "corpus build load papers: stopped, 0/7" in done.stderr


def test_damage_and_disk_errors_get_a_message():
    assert "damaged" in data_error_message(pa.ArrowInvalid("Parquet magic bytes not found"))
    assert "No space left" in data_error_message(OSError(28, "No space left on device", "/x/papers.parquet"))
    assert "damaged" in data_error_message(sqlite3.DatabaseError("file is not a database"))
    assert data_error_message(KeyError("a bug")) is None  # real bugs still show their traceback


def test_unwritable_outputs_fail_before_any_work(corpus, tmp_path):
    with pytest.raises(OutputError, match="cannot write"):
        check_writable(__import__("pathlib").Path("/proc/sciembed-out/x"))
    run = CliRunner().invoke(app, ["corpus", "ingest", str(corpus / "papers.parquet"), "--out", "/proc/sciembed-out"])
    assert run.exit_code == 2 and "cannot write" in run.output
    run = CliRunner().invoke(app, ["eval", "run", str(corpus), "-m", "bm25", "-o", "/proc/sciembed-eval"])
    assert run.exit_code == 2 and "cannot write" in run.output
    with pytest.raises(OutputError):
        build_paper_index(corpus, FakeEncoder(), "ta", "/proc/sciembed-index")


# -- 11: integrity of index files and the embedding cache ------------------------------------------------------


def test_editing_meta_json_is_refused(tmp_path):
    index = DenseIndex(4)
    index.add(["a", "b"], np.eye(2, 4, dtype=np.float32) + 0.1)
    index.save(tmp_path / "idx", "fp")
    meta = json.loads((tmp_path / "idx" / "meta.json").read_text())
    assert DenseIndex.load(tmp_path / "idx", "fp").ids == ["a", "b"]
    for key, value in (("fingerprint", "other"), ("metric", "l2")):
        (tmp_path / "idx" / "meta.json").write_text(json.dumps({**meta, key: value}))
        with pytest.raises(IndexLoadError, match="changed after it was written"):
            DenseIndex.load(tmp_path / "idx")


def test_paper_index_files_are_checksummed(corpus, tmp_path):
    out = tmp_path / "index"
    build_paper_index(corpus, FakeEncoder(), "ta", out, show_progress=False)
    assert len(open_paper_index(out).titles) == 6
    titles = json.loads((out / "papers.json").read_text())
    (out / "papers.json").write_text(json.dumps({**titles, "p0": "forged"}))
    with pytest.raises(IndexLoadError, match=r"papers\.json: checksum mismatch"):
        open_paper_index(out)
    (out / "papers.json").unlink()
    with pytest.raises(IndexLoadError, match=r"papers\.json: missing"):
        open_paper_index(out)


def test_overwritten_cache_vectors_are_not_used(tmp_path):
    fake = FakeEncoder()
    cached = CachedEncoder(fake, tmp_path)
    first = cached.encode(["alpha", "beta"], show_progress=False)
    with sqlite3.connect(EmbeddingCache(tmp_path).path("fake-v1")) as conn:
        conn.execute("UPDATE entries SET vec = ?", (np.ones(4, np.float32).tobytes(),))
    with pytest.warns(UserWarning, match="2 damaged cache entries"):
        again = cached.encode(["alpha", "beta"], show_progress=False)
    np.testing.assert_array_equal(again, first)
    assert cached.last.damaged == 2 and fake.encoded == ["alpha", "beta", "alpha", "beta"]
    other = EmbeddingCache(tmp_path)
    other.path("fake-v2").write_bytes(other.path("fake-v1").read_bytes())  # a file renamed to another model
    with pytest.raises(Exception, match="holds vectors of encoder fake-v1"):
        other.get("fake-v2", 4, [b"k" * 16])


# -- 16: configs, search queries -------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [float("inf"), float("nan"), "-.inf"])
def test_non_finite_learning_rate_is_refused(value):
    with pytest.raises(ConfigError, match="learning_rate"):
        load_config(WindowConfig, None, {"training.learning_rate": value})


def test_empty_and_file_queries(tmp_path):
    run = CliRunner().invoke(app, ["index", "search", str(tmp_path), "--query", "   "])
    assert run.exit_code == 2 and "query is empty" in run.output
    (tmp_path / "q.txt").write_text("")
    run = CliRunner().invoke(app, ["index", "search", str(tmp_path), "--query-file", str(tmp_path / "q.txt")])
    assert run.exit_code == 2 and "query is empty" in run.output
    run = CliRunner().invoke(app, ["index", "search", str(tmp_path), "--query-file", "-"], input="a long query " * 5)
    assert run.exit_code == 2 and "no manifest.json" in run.output  # the stdin query was read, the index is missing


def test_long_queries_are_truncated_with_notice():
    class Tok:
        def __call__(self, text, add_special_tokens=True, truncation=False):
            return {"input_ids": text.split()}

    encoder = type("E", (), {"model": type("M", (), {"tokenizer": Tok()})(), "max_seq_length": 5})()
    assert truncation_note(encoder, "a b c") == ""
    assert truncation_note(encoder, "a " * 9) == "note: the query has 9 tokens; the encoder reads the first 5"

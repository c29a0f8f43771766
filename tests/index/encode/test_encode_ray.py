"""`sciembed encode --ray` and `sciembed ingest --ray` on a local Ray instance (2 CPUs) against one process.

One Ray instance serves the whole module (started and stopped by the fixture); the corpus is 200
real ACL papers (GROBID TEI) and the model a tiny random BERT. Ray's workers run at this process's
priority (`RAY_worker_niceness=0`; Ray's default lowers them by 15, which starves them on a busy machine),
and the one-process runs use one torch thread like the one-CPU actors, so the floats must match bit for
bit (with another thread count they differ by rounding, ~1e-8).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
import ray
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.index.encode.on_ray import CrashOnce
from sciembed.index.encode.run import encode_corpus

runner = CliRunner(env={"COLUMNS": "200"})
PAPERS = 200
SHARD = "50"  # 4 shards of 50 papers


@pytest.fixture(scope="module")
def local_ray():
    os.environ["RAY_worker_niceness"] = "0"  # noqa: SIM112 (Ray reads its config names case-sensitively)
    for attempt in range(3):  # a loaded machine can make the raylet miss Ray's fixed 30 s start-up deadline
        try:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
            break
        except Exception:
            ray.shutdown()
            if attempt == 2:
                raise
    yield
    ray.shutdown()
    os.environ.pop("RAY_worker_niceness", None)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory, helpers) -> Path:
    """200 real TEI files, a JSONL paper, and records that must be rejected: malformed XML, a duplicate id, a bad
    JSONL line."""
    folder = helpers.link_tei(tmp_path_factory.mktemp("inputs") / "in", PAPERS)
    (folder / "broken.tei.xml").write_text("<TEI xmlns='http://www.tei-c.org/ns/1.0'><teiHeader><fileDesc>")
    record = '{"id": "j1", "title": "A paper", "abstract": "Text."}\n'
    (folder / "papers.jsonl").write_text(record + record + '{"id": \n')
    return folder


@pytest.fixture(scope="module")
def corpora(local_ray, inputs, tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("corpora")
    for name, extra in (("one", []), ("ray", ["--ray", "auto"])):
        result = runner.invoke(app, ["corpus", "ingest", str(inputs), "--out", str(root / name), "--no-progress",
                                     *extra])
        assert result.exit_code == 0, result.output
    return root / "one", root / "ray"


def test_ingest_on_ray_writes_the_same_corpus(corpora):
    one, on_ray = corpora
    assert pq.read_table(one / "papers.parquet").equals(pq.read_table(on_ray / "papers.parquet"))
    assert (one / "rejects.jsonl").read_text() == (on_ray / "rejects.jsonl").read_text()
    manifest = json.loads((one / "manifest.json").read_text())
    assert manifest == json.loads((on_ray / "manifest.json").read_text())
    counts = manifest["counts"]
    assert counts["read"] == counts["accepted"] + counts["rejected"] and counts["accepted"] == PAPERS + 1
    assert manifest["rejected_by_reason"] == {"duplicate_id": 1, "malformed_json": 1, "malformed_xml": 1}


@pytest.fixture(scope="module")
def model(corpora, tmp_path_factory, helpers) -> Path:
    return helpers.tiny_model(corpora[0], tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="module")
def local_vectors(corpora, model, tmp_path_factory, helpers) -> Path:
    out = tmp_path_factory.mktemp("vectors") / "one"
    with helpers.one_thread():
        result = runner.invoke(app, ["encode", str(corpora[0]), "--views", "ta,window", "--model", str(model),
                                     "--shard-papers", SHARD, "-o", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    return out


def test_ray_vectors_are_identical_to_one_process(corpora, model, local_vectors, tmp_path, helpers):
    out = tmp_path / "ray"
    result = runner.invoke(app, ["encode", str(corpora[0]), "--views", "ta,window", "--model", str(model),
                                 "--shard-papers", SHARD, "-o", str(out), "--no-progress", "--ray", "auto",
                                 "--actors", "2"])
    assert result.exit_code == 0, result.output
    assert "2 CPU actors" in result.output
    one, many = helpers.shard_tables(local_vectors), helpers.shard_tables(out)
    assert list(one) == list(many) == [f"shard-0000{i}.parquet" for i in range(5)]  # 201 papers
    for name in one:
        assert one[name].equals(many[name]), name  # ids, kinds and every float32 bit
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["papers"] == PAPERS + 1
    assert set(manifest["counts"]["views"]) == {"ta", "window"}


def test_a_killed_worker_shard_is_redone_with_nothing_lost_or_doubled(corpora, model, tmp_path, helpers):
    with helpers.one_thread():
        reference = encode_corpus(corpora[0], tmp_path / "one", kinds=["ta"], load={"name": str(model)},
                                  shard_papers=int(SHARD), show_progress=False)
    marker = tmp_path / "crashed"
    result = encode_corpus(corpora[0], tmp_path / "ray", kinds=["ta"], load={"name": str(model)},
                           shard_papers=int(SHARD), show_progress=False, ray="auto", actors=2,
                           crash=CrashOnce(shard=2, marker=str(marker)))
    assert marker.exists()  # a worker died in the middle of shard 2
    assert result.views == reference.views and result.encoded == 5
    one, many = helpers.shard_tables(tmp_path / "one"), helpers.shard_tables(tmp_path / "ray")
    assert one.keys() == many.keys() and all(one[n].equals(many[n]) for n in one)
    ids = [v for table in many.values() for v in table.column("view_id").to_pylist()]
    assert len(ids) == len(set(ids)) == sum(reference.views.values())


def test_a_resumed_ray_run_skips_finished_shards_and_redoes_broken_ones(local_vectors, corpora, model, tmp_path,
                                                                         helpers):
    import shutil

    out = tmp_path / "resumed"
    shutil.copytree(local_vectors, out)
    kept = (out / "shard-00000.parquet").stat().st_mtime_ns
    (out / "shard-00001.parquet").unlink()  # never written
    (out / "shard-00003.parquet").write_bytes((out / "shard-00003.parquet").read_bytes()[:500])  # cut short
    (out / ".shard-00004.parquet.x1.tmp").write_bytes(b"half")  # a write the kill interrupted
    result = encode_corpus(corpora[0], out, kinds=["ta", "window"], load={"name": str(model)},
                           shard_papers=int(SHARD), show_progress=False, ray="auto", actors=2)
    assert (result.resumed, result.encoded) == (3, 2)
    assert (out / "shard-00000.parquet").stat().st_mtime_ns == kept
    assert not list(out.glob(".shard-*.tmp"))
    one, again = helpers.shard_tables(local_vectors), helpers.shard_tables(out)
    assert all(one[n].equals(again[n]) for n in one)
    assert pc.sum(pc.equal(again["shard-00001.parquet"].column("kind"), "ta")).as_py() == 50

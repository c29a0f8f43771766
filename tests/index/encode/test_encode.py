"""`sciembed encode` in one process (shards, resume, settings) and `sciembed index` from its vectors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.index.encode.run import encode_corpus
from sciembed.index.encode.store import VectorsError, vectors_of
from sciembed.index.paper_index import open_paper_index

runner = CliRunner(env={"COLUMNS": "200"})


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, helpers) -> Path:
    """24 real ACL papers (GROBID TEI), ingested."""
    root = tmp_path_factory.mktemp("corpus")
    result = runner.invoke(app, ["corpus", "ingest", str(helpers.link_tei(root / "in", 24)), "--out", str(root / "c"),
                                 "--no-progress"])
    assert result.exit_code == 0, result.output
    return root / "c"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, corpus, helpers) -> Path:
    return helpers.tiny_model(corpus, tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="module")
def vectors(corpus, tiny, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("vectors") / "v"
    result = runner.invoke(app, ["encode", str(corpus), "--views", "ta,window", "--model", str(tiny),
                                 "--shard-papers", "6", "-o", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "encoded 24 papers (24 with views)" in result.output and "4 shards (0 already done)" in result.output
    return out


def test_shards_hold_every_view_once_with_its_vector(vectors, corpus, tiny, helpers):
    tables = helpers.shard_tables(vectors)
    assert list(tables) == [f"shard-0000{i}.parquet" for i in range(4)]
    rows = [r for t in tables.values() for r in t.select(["paper_id", "view_id", "kind"]).to_pylist()]
    assert len({r["view_id"] for r in rows}) == len(rows)
    assert sum(r["kind"] == "ta" for r in rows) == 24
    manifest = json.loads((vectors / "manifest.json").read_text())
    assert manifest["counts"]["views"] == {"ta": 24, "window": len(rows) - 24}
    assert manifest["counts"]["papers"] == 24 and manifest["encoder"]["fingerprint"] == manifest["fingerprint"]
    from sciembed.models import load_encoder

    encoder = load_encoder(str(tiny))
    table = tables["shard-00000.parquet"]
    first = table.slice(0, 1).to_pylist()[0]
    papers = pq.read_table(corpus / "papers.parquet").to_pylist()
    assert first["view_id"] == f"{papers[0]['id']}:ta:0"
    from sciembed.papers.model import Paper
    from sciembed.views import ta_text

    expected = encoder.encode([ta_text(Paper.from_dict(papers[0]))], show_progress=False)[0]
    assert np.allclose(vectors_of(table)[0], expected, atol=1e-5)


def test_a_resumed_run_keeps_finished_shards_and_redoes_the_rest(vectors, corpus, tiny, tmp_path, helpers):
    import shutil

    out = tmp_path / "v"
    shutil.copytree(vectors, out)
    kept = (out / "shard-00000.parquet").stat().st_mtime_ns
    (out / "shard-00002.parquet").unlink()
    (out / "shard-00003.parquet").write_bytes(b"PAR1 not a whole file")
    (out / ".shard-00001.parquet.abc.tmp").write_bytes(b"half")
    result = encode_corpus(corpus, out, kinds=["ta", "window"], load={"name": str(tiny)}, shard_papers=6,
                           show_progress=False)
    assert (result.resumed, result.encoded) == (2, 2)
    assert (out / "shard-00000.parquet").stat().st_mtime_ns == kept and not list(out.glob(".*.tmp"))
    before, after = helpers.shard_tables(vectors), helpers.shard_tables(out)
    assert all(before[n].equals(after[n]) for n in before)
    with pytest.raises(VectorsError, match="other settings"):
        encode_corpus(corpus, out, kinds=["ta"], load={"name": str(tiny)}, shard_papers=6, show_progress=False)


def test_bad_arguments_exit_2_with_one_message(corpus, tiny, tmp_path):
    result = runner.invoke(app, ["encode", str(corpus), "--views", "ta,fulltext", "-o", str(tmp_path / "v")])
    assert result.exit_code == 2 and \
        "expected a comma-separated list of ta, window, section, ta+section, chunk, segment" in result.output
    result = runner.invoke(app, ["encode", str(tmp_path / "nowhere"), "-o", str(tmp_path / "v")])
    assert result.exit_code == 2 and "missing papers.parquet" in result.output


@pytest.mark.parametrize("kind", ["Flat", "HNSW16,efSearch=32", "IVF4,PQ8,RFlat"])
def test_index_from_vectors_matches_the_corpus_index(vectors, corpus, tiny, tmp_path, kind):
    result = runner.invoke(app, ["index", "build", str(vectors), "--view", "window", "--index", kind, "--out",
                                 str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    assert "indexed 24 of 24 papers" in result.output and "0 without vectors" in result.output
    from_vectors = open_paper_index(tmp_path / "a")
    assert from_vectors.manifest["view"] == "window" and len(from_vectors.index) == 24
    direct = runner.invoke(app, ["index", "build", str(corpus), "--model", str(tiny), "--view", "window", "--out",
                                 str(tmp_path / "b"), "--index", kind])
    assert direct.exit_code == 0, direct.output
    corpus_index = open_paper_index(tmp_path / "b")
    assert from_vectors.manifest["counts"] == corpus_index.manifest["counts"]
    assert from_vectors.titles == corpus_index.titles
    papers = sorted(from_vectors.titles)
    same = [[p for p, _ in from_vectors.index.search_paper(q, 5)] == [p for p, _ in corpus_index.index.search_paper(
        q, 5)] for q in papers]
    assert sum(same) >= len(papers) - 1  # float noise of other batchings may swap one near-tie
    search = runner.invoke(app, ["index", "search", str(tmp_path / "a"), "--paper", papers[0], "--k", "3"])
    assert search.exit_code == 0, search.output


def test_ivf_pq_from_vectors_is_trained_on_a_seeded_sample(vectors, tmp_path):
    for name in ("a", "b"):
        result = runner.invoke(app, ["index", "build", str(vectors), "--view", "window", "--index", "IVF4,PQ8",
                                     "--out", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
    files = sorted(p.name for p in (tmp_path / "a" / "index").iterdir())
    assert all((tmp_path / "a" / "index" / f).read_bytes() == (tmp_path / "b" / "index" / f).read_bytes()
               for f in files)
    result = runner.invoke(app, ["index", "build", str(vectors), "--out", str(tmp_path / "c")])
    assert result.exit_code == 2 and "these vectors hold ta, window; pick one with --view" in result.output


def test_cli_does_not_import_ray_until_asked():
    code = "import sys; from sciembed.cli.main import app; assert 'ray' not in sys.modules, 'ray imported'"
    subprocess.run([sys.executable, "-c", code], check=True)

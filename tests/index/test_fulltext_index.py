"""Issue 31, item 2: `index build PAPERS --out IDX` builds the full-text default in one directory, searched and
served as one index; `--view ta` stays one flag away; the backend is chosen where it was measured."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from fakes.models import build_tiny_bert
from sciembed.cli.encoder_options import resolve_backend
from sciembed.cli.main import app
from sciembed.cli.serve import served_parts
from sciembed.corpus.layout import CorpusDir
from sciembed.index.bm25_paper import open_bm25_index
from sciembed.index.fulltext_index import PIECE_SECTIONS, is_fulltext_index
from sciembed.papers.ingest import ingest
from sciembed.search.batch import search_batch

runner = CliRunner(env={"COLUMNS": "200"})


@pytest.fixture(scope="module")
def corpus_and_model(tmp_path_factory, shared_data) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("fulltext")
    ingest([shared_data / "unarxive-sample"], root / "corpus", progress=False)
    words = {w.strip(".,;:()$[]").lower() for p in CorpusDir(root / "corpus").iter_papers()
             for w in f"{p.title} {p.abstract}".split()}
    return root / "corpus", build_tiny_bert(root / "tiny", sorted(words)[:3000], seed=0)


@pytest.fixture(scope="module")
def fulltext_index(corpus_and_model, tmp_path_factory) -> Path:
    corpus, model = corpus_and_model
    out = tmp_path_factory.mktemp("idx") / "idx"
    built = runner.invoke(app, ["index", "build", str(corpus), "--out", str(out), "--model", str(model)])
    assert built.exit_code == 0, built.output
    text = " ".join(built.output.split())
    assert "encoding" in text and "on this machine" in text  # the estimate, before the encode
    assert "indexed 49 of 49 papers: BM25 over 49 full texts" in text
    return out


def test_the_default_build_is_one_full_text_directory(fulltext_index):
    assert is_fulltext_index(fulltext_index)
    assert sorted(p.name for p in fulltext_index.iterdir()) == ["bm25", "late", "manifest.json", "ta"]
    manifest = json.loads((fulltext_index / "manifest.json").read_text())
    assert manifest["parts"] == {"bm25": "bm25", "a2a": "ta", "late": "late"}
    assert manifest["pieces"]["sections"] == PIECE_SECTIONS and manifest["timings"]["total_s"] >= 0
    late = json.loads((fulltext_index / "late" / "manifest.json").read_text())
    assert late["view"] == "ta+section" and late["piece_sections"] == PIECE_SECTIONS
    _, bm25_manifest, titles = open_bm25_index(fulltext_index / "bm25")
    assert bm25_manifest["view"] == "fulltext" and len(titles) == 49
    assert manifest["views"]["pieces"] <= PIECE_SECTIONS * 49


def test_search_reads_it_as_one_index_with_the_measured_fusion(fulltext_index):
    pid = sorted(json.loads((fulltext_index / "ta" / "papers.json").read_text()))[5]
    found = runner.invoke(app, ["index", "search", str(fulltext_index), "--paper", pid, "--k", "5",
                                "--output-format", "json"])
    assert found.exit_code == 0, found.output
    assert "the fusion measured best on real papers" in " ".join(found.output.split())
    hits = json.loads(found.output[found.output.index("["):])[0]["hits"]
    parts = [fulltext_index / "bm25", fulltext_index / "ta", fulltext_index / "late"]
    expected, _ = search_batch(parts, papers=[pid], k=5, method="late")
    assert [h["paper_id"] for h in hits] == [d for d, _ in expected[0][1]] and pid not in [h["paper_id"] for h in hits]
    by_text = runner.invoke(app, ["index", "search", str(fulltext_index), "--query", "exoplanet atmospheres"])
    assert by_text.exit_code == 0 and "query: exoplanet atmospheres" in by_text.output, by_text.output


def test_serve_uses_it_as_one_index(fulltext_index, tmp_path):
    import shutil

    from sciembed.index.collection import Collection
    from sciembed.search.served import FusedPaperSearch
    from sciembed.server import ServerSettings, create_app

    copy = Path(shutil.copytree(fulltext_index, tmp_path / "idx"))
    served, companions = served_parts(copy, [])
    assert served == copy / "late" and companions == [copy / "bm25", copy / "ta"]
    search = FusedPaperSearch(None, companions, "ta+section")  # the measured default: bm25, a2a, late
    collection = Collection.open(served, paper_search=search)
    try:
        client = TestClient(create_app(collection, ServerSettings(max_k=20)), base_url="http://localhost")
        pid = sorted(collection.index.papers)[5]
        body = client.post("/search", json={"paper_id": pid, "k": 5}).json()
    finally:
        collection.close()
    expected, _ = search_batch([copy], papers=[pid], k=5)
    assert [h["id"] for h in body["hits"]] == [d for d, _ in expected[0][1]]


def test_view_ta_is_one_flag_away_and_replaces_the_full_text_index_whole(corpus_and_model, fulltext_index, tmp_path):
    import shutil

    corpus, model = corpus_and_model
    out = Path(shutil.copytree(fulltext_index, tmp_path / "idx"))
    refused = runner.invoke(app, ["index", "build", str(corpus), "--out", str(out), "--model", str(model)])
    assert refused.exit_code == 2 and "pass --overwrite" in " ".join(refused.output.split())
    ta = runner.invoke(app, ["index", "build", str(corpus), "--out", str(out), "--model", str(model),
                             "--view", "ta", "--overwrite"])
    assert ta.exit_code == 0, ta.output
    assert sorted(p.name for p in out.iterdir()) == ["index", "manifest.json", "papers.json"]  # nothing old left
    assert json.loads((out / "manifest.json").read_text())["view"] == "ta"


def test_auto_backend_is_onnx_int8_only_where_measured(monkeypatch):
    import importlib.util

    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    onnx_installed = importlib.util.find_spec("optimum") is not None
    assert resolve_backend("auto", False, "minilm") == (("onnx", True) if onnx_installed else ("torch", False))
    assert resolve_backend("auto", False, "allenai/specter2_base") == ("torch", False)
    assert resolve_backend("torch", False, "minilm") == ("torch", False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_backend("auto", False, "minilm") == ("torch", False)


def test_search_asks_a_running_server(fulltext_index, tmp_path):
    import shutil
    import socket
    import threading
    import time

    import uvicorn

    from sciembed.index.collection import Collection
    from sciembed.search.served import FusedPaperSearch
    from sciembed.server import ServerSettings, create_app

    copy = Path(shutil.copytree(fulltext_index, tmp_path / "idx"))
    served, companions = served_parts(copy, [])
    collection = Collection.open(served, paper_search=FusedPaperSearch(None, companions, "ta+section"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(collection, ServerSettings(max_k=20)), host="127.0.0.1",
                                           port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            time.sleep(0.05)
        pid = sorted(collection.index.papers)[5]
        url = f"http://127.0.0.1:{port}"
        found = runner.invoke(app, ["index", "search", "--server", url, "--paper", pid, "--k", "5",
                                    "--output-format", "json"])
        assert found.exit_code == 0, found.output
        hits = json.loads(found.output)[0]["hits"]
        expected, _ = search_batch([copy], papers=[pid], k=5)
        assert [h["paper_id"] for h in hits] == [d for d, _ in expected[0][1]]
        text = runner.invoke(app, ["index", "search", "--server", url, "--query", "exoplanet atmospheres"])
        assert text.exit_code == 0 and "query: exoplanet atmospheres" in text.output, text.output
        both = runner.invoke(app, ["index", "search", str(copy), "--server", url, "--query", "x"])
        assert both.exit_code == 2 and "one of them" in both.output
    finally:
        server.should_exit = True
        thread.join(10)
        collection.close()
    gone = runner.invoke(app, ["index", "search", "--server", f"http://127.0.0.1:{port}", "--query", "x"])
    assert gone.exit_code == 2 and "is `sciembed index serve` running there?" in " ".join(gone.output.split())


def test_index_sets_the_late_part_and_paper_search_works_over_hnsw(corpus_and_model, fulltext_index, tmp_path):
    """`--index HNSW32` builds both dense parts as HNSW (the TA part answers a2a); a paper query fuses
    all three runs through late interaction over it (candidates scored exactly: `approximate_late`)."""
    corpus, model = corpus_and_model
    out = tmp_path / "hnsw"
    built = runner.invoke(app, ["index", "build", str(corpus), "--out", str(out), "--model", str(model),
                                "--index", "HNSW32"])
    assert built.exit_code == 0, built.output
    late = json.loads((out / "late" / "index" / "meta.json").read_text())
    assert late["index"]["kind"] == "hnsw" and late["index"]["hnsw_m"] == 32
    assert json.loads((out / "ta" / "index" / "meta.json").read_text())["index"]["kind"] == "hnsw"
    pid = sorted(json.loads((out / "ta" / "papers.json").read_text()))[5]
    approx, _ = search_batch([out / "bm25", out / "ta", out / "late"], papers=[pid], k=5, method="late")
    exact, _ = search_batch([fulltext_index / "bm25", fulltext_index / "ta", fulltext_index / "late"], papers=[pid],
                            k=5, method="late")
    assert len(approx[0][1]) == 5 and pid not in [d for d, _ in approx[0][1]]
    assert len({d for d, _ in approx[0][1]} & {d for d, _ in exact[0][1]}) >= 4  # 49 papers: candidates cover most
    fused, _ = search_batch([out / "bm25", out / "ta", out / "late"], papers=[pid], k=5)  # a2a from the HNSW TA part
    exact_fused, _ = search_batch([fulltext_index / "bm25", fulltext_index / "ta", fulltext_index / "late"],
                                  papers=[pid], k=5)
    assert len(fused[0][1]) == 5 and pid not in [d for d, _ in fused[0][1]]
    assert len({d for d, _ in fused[0][1]} & {d for d, _ in exact_fused[0][1]}) >= 4


def test_the_build_encodes_through_the_process_pool_it_is_given(fulltext_index, corpus_and_model, tmp_path,
                                                                 monkeypatch):
    """The wiring: `processes` reaches `parallel_encoding` and every text is encoded through what it yields (the
    pool itself, vectors equal to one process's, is tests/models/test_process_pool.py: spawning is slow)."""
    from contextlib import contextmanager

    from sciembed.index import fulltext_index as module
    from sciembed.index.paper_index import open_paper_index, read_manifest
    from sciembed.models.spec import EncoderSpec

    seen: dict = {"texts": 0}

    class Counting:
        def __init__(self, encoder):
            self.encoder = encoder

        def __getattr__(self, item):
            return getattr(self.encoder, item)

        def encode(self, texts, **kwargs):
            seen["texts"] += len(texts)
            return self.encoder.encode(texts, **kwargs)

    @contextmanager
    def pool(encoder, processes):
        seen["processes"] = processes
        yield Counting(encoder)

    monkeypatch.setattr(module, "parallel_encoding", pool)
    corpus, _ = corpus_and_model
    encoder = EncoderSpec.from_described(read_manifest(fulltext_index)["encoder"]).load()
    module.build_fulltext_index(corpus, encoder, tmp_path / "two", show_progress=False, say=lambda line: None,
                                processes=3)
    manifest = read_manifest(tmp_path / "two")
    assert seen == {"processes": 3, "texts": manifest["views"]["ta"] + manifest["views"]["pieces"]}
    assert manifest["timings"]["encode_processes"] == 3
    one, two = (open_paper_index(root / "late").index for root in (fulltext_index, tmp_path / "two"))
    for paper in one.papers[:5]:
        np.testing.assert_allclose(two.views_of(paper), one.views_of(paper), atol=1e-6)


def test_the_full_text_build_trains_an_index_that_needs_training(corpus_and_model, tmp_path):
    """SQ8 storage and IVF-PQ learn from the vectors before any is added: the full-text build trains both dense
    parts on a seeded sample (it trained none and failed with faiss's "not trained yet")."""
    corpus, model = corpus_and_model
    out = tmp_path / "sq8"
    built = runner.invoke(app, ["index", "build", str(corpus), "--out", str(out), "--model", str(model),
                                "--index", "HNSW32,SQ8"])
    assert built.exit_code == 0, built.output
    pid = sorted(json.loads((out / "ta" / "papers.json").read_text()))[5]
    found, _ = search_batch([out / "bm25", out / "ta", out / "late"], papers=[pid], k=5, method="late")
    assert len(found[0][1]) == 5 and pid not in [d for d, _ in found[0][1]]
    # IVF-PQ is trained too: 49 title+abstract vectors are too few for its 256 centroids, and it says so
    small = runner.invoke(app, ["index", "build", str(corpus), "--out", str(tmp_path / "pq"), "--model", str(model),
                                "--index", "IVF4,PQ4"])
    assert small.exit_code != 0 and "49 vectors cannot train" in " ".join(small.output.split())

"""A small real collection for the service tests: the 49 unarXive sample papers, windows, a tiny random BERT."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fakes.models import build_tiny_bert
from sciembed.corpus.layout import CorpusDir
from sciembed.index.collection import Collection
from sciembed.index.paper_index import build_paper_index
from sciembed.models import load_encoder
from sciembed.papers.ingest import ingest


@pytest.fixture(scope="session")
def built_index(tmp_path_factory, shared_data) -> Path:
    """An index directory (window views), built once; tests copy it before writing to it."""
    root = tmp_path_factory.mktemp("served")
    ingest([shared_data / "unarxive-sample"], root / "corpus", progress=False)
    words = {w.strip(".,;:()$[]").lower() for p in CorpusDir(root / "corpus").iter_papers()
             for w in f"{p.title} {p.abstract}".split()}
    model = build_tiny_bert(root / "tiny", sorted(words)[:3000], seed=0)
    encoder = load_encoder(str(model))
    build_paper_index(root / "corpus", encoder, "window", root / "index", show_progress=False)
    Collection.open(root / "index", encoder).close()  # writes the catalog once
    return root / "index"


@pytest.fixture()
def index_dir(built_index, tmp_path) -> Path:
    """A private copy of the built index (writes never leak between tests)."""
    return Path(shutil.copytree(built_index, tmp_path / "index"))


@pytest.fixture()
def collection(index_dir):
    opened = Collection.open(index_dir)
    yield opened
    opened.close()

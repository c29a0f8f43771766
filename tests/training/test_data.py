"""Training data from a built corpus: counts, bad corpora, and the text of each view."""

from __future__ import annotations

import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sciembed.corpus.layout import CorpusError
from sciembed.papers.io import write_parquet
from sciembed.training.config import WindowConfig, load_config
from sciembed.training.data import ViewTexts, load_training_data
from sciembed.training.recipes import window
from sciembed.views import ta_text
from sciembed.views.body import body_words


def test_counts_add_up_and_ta_only_papers_are_kept(tiny_corpus):
    data = load_training_data(tiny_corpus)
    summary = data.summary()
    assert summary["papers"] == 48
    assert summary["ta_only_papers"] == sum(1 for p in data.papers if not p.has_body) > 0
    assert summary["papers_with_body"] + summary["ta_only_papers"] == summary["papers"]
    assert len(data.pairs) == summary["citation_pairs"] > 0
    assert all(len(s) == 0 for p, s in zip(data.papers, data.window_sections, strict=True) if not p.has_body)


def test_view_texts_ta_and_windows_with_prefixes(tiny_corpus):
    data = load_training_data(tiny_corpus)
    texts = ViewTexts(data, window_words=30, ta_prefix="[TA] ", body_prefix="[BODY] ")
    i = next(i for i, s in enumerate(data.window_sections) if len(s) >= 2)
    paper = data.papers[i]
    assert texts(i, 0) == "[TA] " + ta_text(paper)
    body = body_words(paper)
    for v, section in enumerate(data.window_sections[i], start=1):
        text = texts(i, v)
        assert text.startswith("[BODY] " + paper.sections[section].heading)  # starts at a section header
        start = body.section_starts[section]
        assert text.split()[1:] == list(body.words[start : start + 30])  # runs to the word target
    plain = ViewTexts(data, window_words=30)
    assert plain(i, 1) == texts(i, 1).removeprefix("[BODY] ")


def test_corpus_without_training_split(tmp_path, kit):
    papers = kit.make_papers(12)
    write_parquet(papers, tmp_path / "papers.parquet")
    with pytest.raises(CorpusError, match="no training split"):
        load_training_data(tmp_path)


def test_split_with_no_train_papers(tmp_path, kit):
    papers = kit.make_papers(24)
    root = kit.write_built_corpus(tmp_path / "c", papers, {p.id: "test" for p in papers})
    with pytest.raises(CorpusError, match="the train split has no papers"):
        load_training_data(root)


def test_pairs_outside_the_split_are_reported_with_counts(tmp_path, kit):
    papers = kit.make_papers(36)
    root = kit.write_built_corpus(tmp_path / "c", papers, kit.default_splits(papers))
    table = pq.read_table(root / "pairs.parquet").to_pydict()
    table["paper_a"].append("p000")
    table["paper_b"].append("zz-missing")
    table["domain"].append("topic0")
    table["split"].append("train")
    pq.write_table(pa.table(table), root / "pairs.parquet")
    with pytest.raises(CorpusError, match=r"1 of \d+ train pairs name papers outside the train split"):
        load_training_data(root)


def test_window_words_follow_max_seq_length(tiny_corpus, tmp_path):
    config = load_config(WindowConfig, None, {"model.max_seq_length": 512, "training.batch_size": 10,
                                              "training.mini_batch_size": 5})
    assert window.window_words(config) == 358
    config = load_config(WindowConfig, None, {"model.max_seq_length": 1024})
    assert window.window_words(config) == 716
    copy = shutil.copytree(tiny_corpus, tmp_path / "c")
    prepared = window.prepare(load_config(WindowConfig, None, {"training.batch_size": 10,
                                                               "training.mini_batch_size": 5}), copy)
    assert prepared.summary()["data"]["ta_only_papers"] > 0

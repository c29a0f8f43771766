"""Training texts streamed from the paper store are the texts of the papers read whole, in every
process: the main one, forked dataloader workers, and a process that unpickles the source."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from sciembed.corpus.layout import CorpusDir
from sciembed.corpus.paper_store import PaperStore, open_store
from sciembed.ioutil.mapped_rows import RELEASE_ROWS, TextWriter
from sciembed.training.config import SectionFilterConfig, WindowConfig, load_config
from sciembed.training.data import ViewTexts, load_training_data, window_sections
from sciembed.training.recipes import window
from sciembed.training.sources.section_pairs import SectionPairTexts, draw_examples, load_section_pairs
from sciembed.views import ta_text, window_at
from sciembed.views.simple import section_view

from .test_jepa_source import section_papers, write_ingested


def reference_window_text(paper, view: int, words: int) -> str:
    """The text of a view from a paper held in memory (the code before streaming)."""
    if view == 0:
        return ta_text(paper)
    return window_at(paper, window_sections(paper)[view - 1], words).text


@pytest.fixture(scope="module")
def planned(tiny_corpus):
    config = load_config(WindowConfig, None, {"training.batch_size": 10, "training.epochs": 2, "seed": 3})
    prepared = window.prepare(config, tiny_corpus)
    texts = ViewTexts(prepared.data, window_words=30)
    plan = prepared.plan
    slots = list(zip(plan.anchor_paper.tolist(), plan.anchor_view.tolist(), strict=True)) + list(
        zip(plan.positive_paper.tolist(), plan.positive_view.tolist(), strict=True))
    return prepared, texts, slots


def test_every_planned_window_text_is_the_text_of_the_paper_read_whole(planned, tiny_corpus):
    prepared, texts, slots = planned
    ids = CorpusDir(tiny_corpus).split_ids("train")
    whole = CorpusDir(tiny_corpus).papers(ids)
    assert prepared.data.papers.ids() == ids
    for paper, view in slots:
        assert texts(paper, view) == reference_window_text(whole[ids[paper]], view, 30)


def _texts_of(texts: ViewTexts, slots: list[tuple[int, int]]) -> list[str]:
    return [texts(p, v) for p, v in slots]


def test_forked_workers_and_unpickled_copies_read_the_same_texts(planned):
    from torch.utils.data import DataLoader

    _, texts, slots = planned
    expected = _texts_of(texts, slots)
    loader = DataLoader(slots, batch_size=16, num_workers=2, collate_fn=lambda batch: _texts_of(texts, batch))
    assert [t for batch in loader for t in batch] == expected
    copy = pickle.loads(pickle.dumps(texts))
    assert _texts_of(copy, slots) == expected
    store = texts.data.papers.store
    assert len(pickle.dumps(store)) < 300  # a store pickles as its path, never its rows


def test_reads_stay_right_across_page_releases(tiny_corpus):
    store = open_store(CorpusDir(tiny_corpus).root)
    whole = list(CorpusDir(tiny_corpus).iter_papers())
    rng = np.random.default_rng(0)
    rows = rng.integers(0, len(store), RELEASE_ROWS * 2 + 7)  # several MADV_DONTNEED on the way
    for row, paper in zip(rows, store.papers(rows), strict=True):
        assert (paper.id, paper.title, paper.sections) == (whole[row].id, whole[row].title, whole[row].sections)


def test_store_is_rebuilt_when_the_corpus_changes(tmp_path, kit):
    papers = kit.make_papers(12)
    root = kit.write_built_corpus(tmp_path / "c", papers, kit.default_splits(papers))
    first = open_store(root)
    assert first.ids().to_pylist() == [p.id for p in papers]
    from sciembed.papers.io import write_parquet

    write_parquet(papers[:5], root / "papers.parquet")
    assert PaperStore(open_store(root).path).ids().to_pylist() == [p.id for p in papers[:5]]


def test_section_pair_texts_are_those_of_the_papers_read_whole(tmp_path):
    corpus = write_ingested(tmp_path / "ingested", section_papers())
    data = load_section_pairs(corpus, SectionFilterConfig())
    paper, task = draw_examples(data, 40, seed=1)
    texts = SectionPairTexts(data)
    by_id = CorpusDir(corpus).papers()
    kept = data.papers.ids()
    for p, t in zip(paper.tolist(), task.tolist(), strict=True):
        whole = by_id[kept[p]]
        method = section_view(whole, int(data.method[p])).text
        expected = (ta_text(whole), method) if t == 0 else (method, section_view(whole, int(data.conclusion[p])).text)
        assert texts(p, t) == expected


def test_text_writer_gives_back_what_was_written(tmp_path):
    writer = TextWriter(tmp_path / "texts.arrow")
    written = [f"text {i} " * (i % 7) for i in range(2500)]
    for text in written[:10]:
        writer.append(text)
    writer.extend(written[10:])
    assert len(writer) == len(written)
    texts = writer.finish()
    assert len(texts) == len(written) and list(texts) == written and texts[1234] == written[1234]


def test_pairs_and_window_sections_are_those_of_the_in_memory_path(tiny_corpus):
    corpus = CorpusDir(tiny_corpus)
    data = load_training_data(corpus)
    ids = corpus.split_ids("train")
    index = {pid: i for i, pid in enumerate(ids)}
    assert data.pairs.tolist() == [[index[a], index[b]] for a, b in corpus.pairs("train")]
    whole = corpus.papers(ids)
    assert [tuple(s.tolist()) for s in data.window_sections] == [window_sections(whole[i]) for i in ids]

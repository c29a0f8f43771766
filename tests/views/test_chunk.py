"""CoSAEmb's chunk view: byte-for-byte format on a real paper, tokenizer budgets, classes, merging."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakes.models import build_tiny_bert
from sciembed.papers.model import Paper, Section, SectionRole
from sciembed.papers.readers import Accepted, read_papers
from sciembed.views.chunk import (
    SPECIAL_TOKENS,
    chunk_text,
    chunk_views,
    paper_chunks,
    section_texts,
    split_sentences,
    ta_unit,
)
from sciembed.views.tokens import tokenizer_counter

TITLE = "Coreference in Wikipedia: Main Concept Resolution"


@pytest.fixture(scope="module")
def real_paper(shared_data) -> Paper:
    path = shared_data / "formats" / "science-parse" / "peerread_conll_2016_train_11.pdf.json"
    (paper,) = [r.paper for r in read_papers(path) if isinstance(r, Accepted)]
    return paper


@pytest.fixture(scope="module")
def counter(real_paper, tmp_path_factory):
    """The real tokenizer of a tiny BERT whose vocabulary is the paper's words, with the CoSAEmb tokens."""
    from transformers import AutoTokenizer

    words = re.findall(r"\w+", " ".join([real_paper.title, real_paper.abstract,
                                         *(s.text for s in real_paper.sections)]))
    root = build_tiny_bert(tmp_path_factory.mktemp("chunk-bert"), words)
    tokenizer = AutoTokenizer.from_pretrained(root)
    tokenizer.add_special_tokens({"additional_special_tokens": list(SPECIAL_TOKENS)})
    return tokenizer_counter(tokenizer)


def test_ta_unit_and_chunks_byte_for_byte(real_paper, counter):
    assert real_paper.title == TITLE
    assert ta_unit(real_paper) == f"[TTL] {TITLE} [SEP] [ABS] {real_paper.abstract}"
    assert ta_unit(real_paper, sep=False) == f"[TTL] {TITLE} [ABS] {real_paper.abstract}"
    assert real_paper.abstract.startswith("Wikipedia is a resource of choice exploited in many NLP applications")

    intro = real_paper.sections[0]
    assert intro.role is SectionRole.INTRODUCTION
    sentences = split_sentences(intro.text)
    # 260 tokens leave room for the longest sentence (121 tokens) twice, so none is cut by words here.
    assert max(counter(x) for x in sentences) <= (260 - counter(f"[TTL] {TITLE} [SEP] [INTR]")) // 2
    chunks = chunk_text(real_paper.title, intro.text, "[INTR]", counter, budget=260)
    assert len(chunks) >= 4
    first = chunks[0]
    assert first.startswith(f"[TTL] {TITLE} [SEP] [INTR] Coreference Resolution (CR) is the task of identifying all "
                            "mentions of entities in a document and grouping them into equivalence classes. ")
    # The first chunk is the title prefix and sentences 1..i, exactly.
    i = next(n for n in range(1, len(sentences) + 1) if first == f"[TTL] {TITLE} [SEP] [INTR] "
             + " ".join(sentences[:n]))
    # The second repeats sentence i after the section token, then the token again, then i+1..j.
    second = chunks[1]
    j = next(n for n in range(i + 1, len(sentences) + 1)
             if second == f"[INTR] {sentences[i - 1]} [INTR] " + " ".join(sentences[i:n]))
    # Greedy: one more sentence would not have fit.
    assert counter(first + " " + sentences[i]) > 260
    assert counter(second + " " + sentences[j]) > 260
    no_sep = chunk_text(real_paper.title, intro.text, "[INTR]", counter, budget=260, sep=False)
    assert no_sep[0].startswith(f"[TTL] {TITLE} [INTR] Coreference Resolution (CR)")
    assert all(counter(c) <= 260 for c in chunks + no_sep)


def test_five_classes_merged_in_order(real_paper, counter):
    texts = section_texts(real_paper)
    # "Baselines" has no class of its own: it is method, merged with Approach, Preprocessing, ...
    assert [t.role.value for t in texts] == ["introduction", "related_work", "method", "results", "conclusion"]
    method = texts[2]
    assert method.sections == (2, 3, 4, 5, 6, 7, 8, 10)
    assert method.text.startswith(real_paper.sections[2].text.strip() + " " + real_paper.sections[3].text.strip())
    physical = section_texts(real_paper, merge=False)
    assert len(physical) == len(real_paper.sections) and physical[2].role is SectionRole.METHOD
    views = chunk_views(real_paper, counter, budget=200)
    assert views[0].text == ta_unit(real_paper) and views[0].section is None
    tokens = {v.text.split()[0] for v in views[1:]}
    assert tokens <= {"[TTL]", "[INTR]", "[RW]", "[MET]", "[RES]", "[CONC]"} and "[OTH]" not in " ".join(
        v.text for v in views)
    assert [c.unit.role for c in paper_chunks(real_paper, counter, 200)] == [t.role for t in texts]


WORDS = ["coreference", "wikipedia", "mention", "concept", "the", "of", "resolution", "a", "CR", "2010",
         "(Raghunathan", "et", "al.,", "2010)", "supercalifragilisticexpialidociousnessable"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sentences=st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=90), min_size=1, max_size=25),
    budget=st.integers(min_value=16, max_value=140),
    title=st.lists(st.sampled_from(WORDS), min_size=0, max_size=60),
    sep=st.booleans(),
)
def test_no_chunk_exceeds_the_budget(counter, sentences, budget, title, sep):
    text = " ".join(" ".join(s).capitalize() + "." for s in sentences)
    chunks = chunk_text(" ".join(title), text, "[RES]", counter, budget=budget, sep=sep)
    assert chunks
    assert all(counter(c) <= budget for c in chunks)
    assert chunks[0].startswith("[TTL]") and all(c.startswith("[RES] ") for c in chunks[1:])
    # Nothing lost: the chunks' own sentences (carried ones dropped) give back every word in order.
    own = [chunks[0].split("[RES]", 1)[1]] + [c.split("[RES]", 2)[2] for c in chunks[1:]]
    assert " ".join(own).split() == text.split()


def test_title_only_paper_gives_only_the_ta_unit(counter):
    paper = Paper(id="x", title="A title", abstract="An abstract.", sections=(Section("Intro", "  "),))
    assert [v.text for v in chunk_views(paper, counter)] == ["[TTL] A title [SEP] [ABS] An abstract."]

"""Views sized to the encoder: pieces within the budget, every word kept once, truncation counted."""

from __future__ import annotations

import pytest

from sciembed.papers.model import Paper, Section
from sciembed.views.fit import encoder_budget, fit_pieces, fit_pieces_many, section_pieces, spread, truncation_report
from sciembed.views.tokens import approx_tokens, tokenizer_counter


def _long_text(paragraphs: int = 6, sentences: int = 12) -> str:
    return "\n\n".join(" ".join(f"Paragraph {p} sentence {s} talks about parsing model number {p * 100 + s}."
                                for s in range(sentences)) for p in range(paragraphs))


@pytest.mark.parametrize("budget", [20, 64, 254])
def test_pieces_fit_the_budget_and_keep_every_word_in_order(budget):
    text = _long_text()
    pieces = fit_pieces(text, budget, approx_tokens)
    assert all(approx_tokens(p) <= budget for p in pieces)
    assert " ".join(pieces).split() == text.split()
    assert len(pieces) >= approx_tokens(text) // budget


def test_a_text_that_fits_is_kept_whole_and_empty_text_gives_nothing():
    assert fit_pieces("A short section.", 50) == ["A short section."]
    assert fit_pieces("   ", 50) == []
    assert fit_pieces_many(["one two", ""], 5) == [["one two"], []]
    with pytest.raises(ValueError, match="budget must be positive"):
        fit_pieces("x", 0)


def test_an_overlong_sentence_becomes_word_pieces():
    sentence = " ".join(f"w{i}" for i in range(300)) + "."
    pieces = fit_pieces(sentence, 30, approx_tokens)
    assert all(approx_tokens(p) <= 30 for p in pieces) and " ".join(pieces).split() == sentence.split()


def test_exact_counts_with_the_minilm_tokenizer():
    from transformers import AutoTokenizer

    from sciembed.models.loading import offline_package_path

    count = tokenizer_counter(AutoTokenizer.from_pretrained(str(offline_package_path())))
    text = _long_text(4, 30) + "\n\nsupercalifragilisticexpialidocious " * 5
    budget = encoder_budget(64)
    pieces = fit_pieces(text, budget, count)
    assert max(count.many(pieces)) <= budget
    assert " ".join(pieces).split() == text.split()


def test_spread_keeps_first_and_last_and_nests():
    items = list(range(13))
    assert spread(items, None) == items and spread(items, 20) == items
    assert spread(items, 2) == [0, 12] and spread(items, 1) == [0]
    assert set(spread(items, 2)) <= set(spread(items, 4)) <= set(spread(items, 7))


def test_section_pieces_per_section_and_spread_sections():
    sections = (*tuple(Section(f"{i} Part", _long_text(2, 10)) for i in range(5)), Section("Empty", "  "))
    paper = Paper("p", "T", "A", sections)
    every = section_pieces(paper, 40)
    assert {v.section for v in every} == set(range(5)) and all(approx_tokens(v.text) <= 40 for v in every)
    assert every[0].text.startswith("0 Part\nParagraph 0")
    first = section_pieces(paper, 40, per_section=1, sections=3)
    assert [v.section for v in first] == [0, 2, 4]
    assert [v.text for v in first] == [next(v.text for v in every if v.section == s) for s in (0, 2, 4)]


def test_truncation_report_counts_views_and_tokens_cut():
    rows = truncation_report({"long": ["a " * 10, "b " * 3], "short": ["c"]}, 5, lambda t: len(t.split()))
    long_row, short_row = (r.to_dict() for r in rows)
    assert long_row == {"kind": "long", "views": 2, "over_budget": 1, "share_over_budget": 0.5, "tokens": 13,
                        "tokens_cut": 5, "share_tokens_cut": 5 / 13}
    assert short_row["tokens_cut"] == 0 and short_row["over_budget"] == 0


def test_first_pieces_are_those_of_the_whole_cut_on_real_sections(shared_data):
    """`first` counts only the sentences that can reach the first pieces; the pieces are those of the whole cut."""
    from transformers import AutoTokenizer

    from sciembed.models.loading import offline_package_path
    from sciembed.papers.readers import read_papers

    count = tokenizer_counter(AutoTokenizer.from_pretrained(str(offline_package_path())))
    files = sorted((shared_data / "acl-grobid" / "tei").iterdir())[:6]
    texts = [f"{s.heading}\n{s.text}" for f in files for r in read_papers(f) if hasattr(r, "paper")
             for s in r.paper.sections]
    texts += [_long_text(4, 30), " ".join(f"w{i}" for i in range(900)) + ".", "A short section.", ""]
    for budget in (30, 254):
        whole = fit_pieces_many(texts, budget, count)
        for first in (1, 2):
            assert fit_pieces_many(texts, budget, count, first) == [pieces[:first] for pieces in whole]
    assert sum(len(p) > 1 for p in fit_pieces_many(texts, 254, count)) > 10  # long sections were cut

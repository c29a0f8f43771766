"""Title keys (the Python twin of the corpus's `norm_title` macro) and the live title-twin map."""

from __future__ import annotations

import pytest

from sciembed.corpus.keys import normalize_titles
from sciembed.papers.titles import TitleTwins, title_key

TITLES = ["Attention Is All You Need!", "attention is all you need", "  Über  die Théorie —\u00a0of α-β-Splines! ",
          "BERT: Pre-training of Deep (Bidirectional) Transformers", "x^2 + y_1 = z~{a|b}", "C++ & C# @ 100%",
          "Tab\tand\nnew line", "...", ""]


@pytest.mark.parametrize("title", TITLES)
def test_title_key_folds_as_the_duckdb_macro_on_both_paths(title):
    assert title_key(title) == (normalize_titles([title])[0] or "")


def test_twins_follow_adds_replacements_and_removals():
    twins = TitleTwins([("a", "Attention Is All You Need"), ("b", "attention is all you need."), ("c", "Other")])
    assert twins.excluded("a") == ["a", "b"] and twins.excluded("new", "ATTENTION is all you need") == ["new", "a", "b"]
    twins.add("b", "A new title")  # replaced: no longer a twin of a
    assert twins.excluded("a") == ["a"] and twins.excluded("b") == ["b"]
    twins.add("d", "Other!")
    twins.remove("c")
    assert twins.excluded("d") == ["d"] and twins.excluded("c") == ["c"]
    twins.add("e", "...")  # nothing left of the title: never anyone's twin
    assert twins.excluded("e") == ["e"] and twins.excluded("f", "") == ["f"]

"""Property tests for S2Full windows."""

from hypothesis import given, settings
from hypothesis import strategies as st

from sciembed.papers.model import Paper, Section
from sciembed.views.body import body_words
from sciembed.views.window import random_window, seeded_rng, target_words, window_at

word = st.text(alphabet="abcdefghij", min_size=1, max_size=6)
section = st.tuples(
    st.lists(word, min_size=0, max_size=4).map(" ".join),
    st.lists(word, min_size=0, max_size=300).map(" ".join),
)
papers = st.lists(section, min_size=1, max_size=8).map(
    lambda secs: Paper(id="p", title="t", sections=tuple(Section(h, t) for h, t in secs))
)


def test_target_words_follows_the_07_rule():
    assert target_words(512) == 358
    assert target_words(1024) == 716


@settings(max_examples=200, deadline=None)
@given(paper=papers, target=st.integers(min_value=1, max_value=400), seed=st.integers(0, 2**32))
def test_window_properties(paper, target, seed):
    body = body_words(paper)
    view = random_window(paper, target, seeded_rng(seed, paper.id))
    if not body.words:
        assert view is None
        return
    assert view is not None
    # starts at a section header
    assert view.start == body.section_starts[view.section]
    # never exceeds the target; shorter only when the body ends
    n = view.end - view.start
    assert n <= target
    assert n == target or view.end == len(body.words)
    # contiguous body text
    assert view.text.split() == list(body.words[view.start : view.end])
    # same seed, same window
    assert random_window(paper, target, seeded_rng(seed, paper.id)) == view


def test_window_crosses_section_boundaries():
    paper = Paper(id="p", title="t", sections=(Section("1 Intro", "a " * 10), Section("2 Next", "b " * 10)))
    view = window_at(paper, 0, 20)
    assert view.text.split()[:2] == ["1", "Intro"]
    assert "Next" in view.text.split()
    assert view.end - view.start == 20


def test_huge_section_window_stays_bounded():
    paper = Paper(id="p", title="t", sections=(Section("Big", "w " * 20_000),))
    assert len(window_at(paper, 0, 358).text.split()) == 358

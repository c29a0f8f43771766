import itertools

from sciembed.papers.model import Paper, Section, SectionRole
from sciembed.views import build_paper_log, chunk_views, read_paper_log, segment_views, ta_text, write_paper_log
from sciembed.views.chunk import SECTION_TOKENS, chunk_text, split_sentences
from sciembed.views.simple import section_view
from sciembed.views.tokens import approx_tokens


def _sentences(n: int, stem: str = "Sentence") -> str:
    return " ".join(f"{stem} number {i} has several plain words in it." for i in range(n))


PAPER = Paper(
    id="p1",
    title="A Study of Things",
    abstract=_sentences(3, "Abstract"),
    sections=(
        Section("1 Introduction", _sentences(40), SectionRole.INTRODUCTION),
        Section("2 Method", _sentences(5), SectionRole.METHOD),
        Section("3 Tiny", "Too short.", SectionRole.OTHER),
    ),
)


def test_ta_text():
    assert ta_text(PAPER).startswith("A Study of Things. Abstract number 0")
    assert ta_text(Paper(id="x", title="Title.")) == "Title"


def test_section_view_is_heading_plus_text():
    view = section_view(PAPER, 1)
    assert view.text.startswith("2 Method\n")
    assert view.section == 1


def test_split_sentences():
    assert split_sentences("One two. Three four! Five (six)? 7 eight.") == [
        "One two.", "Three four!", "Five (six)?", "7 eight."
    ]


def test_chunks_carry_prefix_and_previous_sentence():
    chunks = chunk_text("T", _sentences(40), "[INTR]", max_tokens=64)
    assert len(chunks) > 3
    assert chunks[0].startswith("[TTL] T [INTR] ")
    for prev, cur in itertools.pairwise(chunks):
        assert cur.startswith("[INTR] ")
        last_sentence = split_sentences(prev.removeprefix("[TTL] T [INTR] ").removeprefix("[INTR] "))[-1]
        assert cur.removeprefix("[INTR] ").startswith(last_sentence)
    assert all(approx_tokens(c) <= 64 for c in chunks)


def test_chunk_views_cover_abstract_and_every_section():
    views = chunk_views(PAPER, max_tokens=128)
    assert views[0].text.startswith("[TTL] A Study of Things [ABS]")
    assert {v.section for v in views} == {None, 0, 1, 2}
    method = [v for v in views if v.section == 1]
    assert method[0].text.startswith("[TTL] A Study of Things [MET] ")
    other = [v for v in views if v.section == 2]
    assert other[0].text == f"[TTL] A Study of Things {SECTION_TOKENS[SectionRole.OTHER]} Too short."


def test_segments_partition_the_body():
    segs = segment_views(PAPER, segment_tokens=100)
    words = " ".join(s.text for s in segs).split()
    assert words == [w for s in PAPER.sections for w in (*s.heading.split(), *s.text.split())]
    assert all(approx_tokens(s.text) <= 100 for s in segs)
    assert [(s.start, s.end) for s in segs] == [(a, b) for a, b in zip([0, *[s.end for s in segs[:-1]]],
                                                                       [s.end for s in segs], strict=True)]


def test_segments_are_packed_by_sentences_and_cut_only_overlong_ones():
    sentences = [f"Sentence number {i} has exactly eight words here." for i in range(40)]
    paper = Paper(id="s", title="T", sections=(Section("Intro", " ".join(sentences)),))
    segs = segment_views(paper, segment_tokens=60)  # 60 tokens = 42 words: five sentences (+ heading) fit
    assert all(approx_tokens(s.text) <= 60 for s in segs)
    assert all(s.text.endswith("here.") for s in segs)  # never cut inside a sentence
    assert segs[0].text.startswith("Intro Sentence number 0")
    long = Paper(id="l", title="T", sections=(Section("", "word " * 500),))
    cut = segment_views(long, segment_tokens=50)
    assert all(approx_tokens(s.text) <= 50 for s in cut) and sum(s.end - s.start for s in cut) == 500
    counted = segment_views(paper, segment_tokens=10_000, count=lambda t: len(t))  # any counter: here characters
    assert len(counted) == 1
    assert segment_views(Paper(id="e", title="T"), 100) == []


def test_paper_log_is_deterministic_and_skips_ta_only(tmp_path):
    ta_only = Paper(id="p2", title="No body")
    log = build_paper_log([PAPER, ta_only], seed=7)
    assert set(log) == {"p1"}
    assert log["p1"].section in (0, 1)  # the 10-character section is not substantial
    assert build_paper_log([PAPER], seed=7) == {"p1": log["p1"]}
    path = tmp_path / "paper_log.jsonl"
    write_paper_log(log, path)
    assert read_paper_log(path) == log
    seeds = {build_paper_log([PAPER], seed=s)["p1"].section for s in range(30)}
    assert seeds == {0, 1}

import pytest

from sciembed.papers.model import Paper, Section, SectionRole
from sciembed.papers.roles import conclusion_section_index, method_section_index, normalize_heading, role_of

R = SectionRole


@pytest.mark.parametrize(
    ("heading", "role"),
    [
        ("1 Introduction", R.INTRODUCTION),
        ("I. INTRODUCTION", R.INTRODUCTION),
        ("Background", R.RELATED_WORK),
        ("2.1 Prior Works", R.RELATED_WORK),
        ("Related Work", R.RELATED_WORK),
        ("3 Approach", R.METHOD),
        ("Methods", R.METHOD),
        ("Materials and Methods", R.METHOD),
        ("Experimental Setup", R.RESULTS),
        ("4. Evaluation", R.RESULTS),
        ("Results and Discussion", R.RESULTS),
        ("Discussion", R.RESULTS),
        ("6 Concluding Remarks", R.CONCLUSION),
        ("CONCLUSIONS AND FUTURE WORK", R.CONCLUSION),
        ("Acknowledgements", R.OTHER),
        ("", R.OTHER),
        (None, R.OTHER),
    ],
)
def test_role_of(heading, role):
    assert role_of(heading) is role


def test_normalize_heading_strips_numbering():
    assert normalize_heading("2.3 Prior Works") == "prior works"
    assert normalize_heading("IV. RESULTS") == "results"


def _paper(*sections: tuple[str, str]) -> Paper:
    return Paper(
        id="x",
        title="t",
        sections=tuple(Section(h, t, role_of(h)) for h, t in sections),
    )


LONG = "word " * 20


def test_method_section_by_heading():
    p = _paper(("1 Introduction", LONG), ("2 Related Work", LONG), ("3 Our Approach", LONG), ("4 Results", LONG))
    assert p.sections[method_section_index(p)].heading == "3 Our Approach"
    assert p.sections[conclusion_section_index(p)].heading == "4 Results"


def test_method_section_falls_back_to_first_substantial_after_intro():
    p = _paper(("1 Introduction", LONG), ("2 Tiny", "short"), ("3 Graph Things", LONG), ("4 More Things", LONG))
    assert p.sections[method_section_index(p)].heading == "3 Graph Things"
    # no conclusion-like heading after it: the last substantial section
    assert p.sections[conclusion_section_index(p)].heading == "4 More Things"


def test_method_section_falls_back_to_second_substantial():
    p = _paper(("Alpha", LONG), ("Beta", LONG), ("Gamma", LONG))
    assert p.sections[method_section_index(p)].heading == "Beta"
    assert p.sections[conclusion_section_index(p)].heading == "Gamma"


def test_selectors_may_be_absent():
    p = _paper(("Only", LONG))
    assert method_section_index(p) is None
    assert conclusion_section_index(p) is None

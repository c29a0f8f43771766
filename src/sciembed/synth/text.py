"""Sentence templates and the fast filler that turns them into paper text.

A template is English with typed slots in braces. Slot letters:

    T topic term        M topic method      D topic data        Q topic measure
    X topic name        G domain word       O term of another topic in the domain (noise)
    C own key concept   H inherited concept (abstract: no marker)
    I inherited concept, J its citation marker (" [k]", empty without references)
    B body-only concept N the paper's own method name (body only)
    K a cited paper's method name with its marker      R any citation marker
    V a number          P a percentage

Templates are compiled once into (format string, slot letters) pairs, so
filling one is a single `str.format` over pre-drawn values: the generator has
to write thousands of papers per second on one core.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import call as _call

_SLOT = re.compile(r"\{([A-Z])\}")
SLOTS = frozenset("TMDQXGOCHIJBNKRVP")


@dataclass(frozen=True, slots=True)
class Template:
    fmt: str  # positional "{}" format string
    slots: str  # one letter per "{}", in order
    capitalize: bool  # the sentence starts with a slot
    key: int  # unique over all compiled templates: index of the paper's bound slot sources


_N_TEMPLATES = 0


def compile_templates(lines: str) -> tuple[Template, ...]:
    """One template per non-empty line; unknown slot letters are a programming error."""
    global _N_TEMPLATES
    out = []
    for line in lines.strip().splitlines():
        line = line.strip()
        if not line:
            continue
        slots = "".join(_SLOT.findall(line))
        unknown = set(slots) - SLOTS
        if unknown:
            raise ValueError(f"template {line!r}: unknown slot(s) {sorted(unknown)}")
        if "J" in slots and ("I" not in slots or slots.index("J") < slots.index("I")):
            raise ValueError(f"template {line!r}: {{J}} must follow an {{I}}")
        out.append(Template(_SLOT.sub("{}", line), slots, line.startswith("{"), _N_TEMPLATES))
        _N_TEMPLATES += 1
    return tuple(out)


CONTEXT = compile_templates("""
{T} plays a central role in {X}, yet its interaction with {T} is still poorly understood.
Over the past decade, {T} has become a standard lens for studying {G}.
Progress in {X} increasingly depends on accurate models of {T}.
A long-standing question in {X} is how {T} shapes {T}.
Much of the recent work on {T} relies on {M} applied to {D}.
{T} and {T} are closely linked, and both affect {Q} in practice.
Researchers working on {T} have repeatedly observed that {G} limits what {M} can achieve.
The study of {T} has moved from small case studies to systematic analyses of {D}.
Interest in {T} has grown steadily, driven by new data such as {D}.
Both theory and practice in {X} hinge on how well we understand {T}.
""")

GAP = compile_templates("""
However, existing approaches based on {M} treat {T} in isolation and ignore {T}.
Current methods either rely on strong assumptions about {T} or require large amounts of {D}.
Despite this progress, little is known about how {T} behaves under realistic conditions.
Standard {M} pipelines degrade sharply when {T} is noisy or only partially observed.
A key obstacle is that {G} is difficult to measure directly in {D}.
Prior analyses have largely overlooked the role of {T} in determining {Q}.
It remains unclear whether gains in {Q} reported for {M} carry over to {D}.
""")

PROPOSAL = compile_templates("""
We propose {C}, which combines {M} with an explicit model of {T}.
In this work, we introduce {C} and show how it can be estimated from {D}.
Here we study {C} and its relation to {T}.
We develop a framework built around {C} that accounts for {T} and {T}.
This paper presents an analysis of {C} using {M}.
Our approach couples {C} with {C} to capture {T}.
We argue that {C} is the missing ingredient for reliable {Q} on {D}.
""")

DETAIL = compile_templates("""
Building on {H}, we extend the analysis to {T}.
The key idea is to represent {T} through {C}, which makes {M} applicable to {D}.
We further show that {C} and {H} are complementary.
Unlike earlier work on {H}, our formulation does not require {T}.
We characterize the conditions under which {C} improves {Q}.
A central component is {C}, which we analyze both theoretically and empirically.
We evaluate the approach on {D} and {D}.
In addition, {C} yields interpretable estimates of {T}.
The analysis connects {C} to {H} and clarifies the role of {T}.
""")

RESULT = compile_templates("""
On {D}, {C} improves {Q} by {P} relative to strong baselines.
Across {D}, we observe a consistent gain in {Q} of {P}.
Experiments on {D} show that {Q} increases from {V} to {V}.
The resulting estimates of {Q} are within {P} of the reference values.
Compared with {M}, our approach reduces the error in {Q} by {P}.
""")

CLOSING = compile_templates("""
These results suggest that {C} is a useful building block for future work on {T}.
Our findings highlight the importance of {T} for {X}.
Taken together, the evidence indicates that {C} offers a practical route to better {Q}.
We release our analysis code to support further work on {C}.
The approach is general and applies to other settings where {T} matters.
""")

INTRO = compile_templates("""
{T} has been studied extensively{R}, and recent work has turned to {T}{R}.
Early studies focused on {M}{R}, while more recent efforts emphasize {M}{R}.
Our main contribution is {C}, together with a systematic evaluation on {D}.
We also show that {C} can be combined with {M} at little additional cost.
Our work builds on {I}{J}, which first connected {T} and {Q}.
In summary, we formalize {C}, relate it to {T}, and evaluate it on {D}.
A practical motivation comes from {D}, where {T} is ubiquitous.
Several groups have reported that {T} is sensitive to {G}{R}.
The remainder of this paper is organized as follows.
The question we ask is simple: can {C} explain the variation in {Q}?
""")

RELATED = compile_templates("""
{I} was first studied in the context of {T}{J}.
A related line of work develops {I}{J} to handle {T}.
{K} applies {M} to {D} but does not model {T}.
Closely related to our setting, {K} relies on {M}.
Methods based on {M}{R} have been widely adopted for {T}.
Other authors have examined {T} from the perspective of {O}{R}.
Several surveys summarize progress on {T}{R}.
In contrast to {K}, we do not assume that {T} is known in advance.
The connection between {I} and {T} has been noted before{J}, but has not been exploited systematically.
Work on {T} using {D} is reviewed in{R}.
{K} reports strong {Q} on {D}, but its behavior under {T} is not analyzed.
Our treatment of {I}{J} differs in that it accounts for {G}.
""")

METHOD = compile_templates("""
We call the resulting approach {N}.
{N} consists of two main components, {B} and a dedicated module for {T}.
The first stage applies {M} to obtain an initial estimate of {T}.
We then refine this estimate with {B}, which accounts for {T}.
Formally, let x denote {T} and y denote {Q}; {N} models their relation through {C}.
The main difference from {K} is the use of {B} instead of {M}.
In practice, {B} is computed once per batch of {D} and cached.
All parameters of {N} were fixed before the analysis of {D}.
We run a fixed number of iterations and use {M} for initialization.
This design keeps the cost of {B} linear in the size of {D}.
To handle {T}, {N} maintains an explicit representation of {C}.
An important detail is how {B} interacts with {G}.
The second stage combines {B} with {C} and produces the final estimate of {Q}.
We adopt the notation of{R} for {T} and extend it to {B}.
Where {T} is unavailable, {N} falls back to {M}.
""")

EXPERIMENTS = compile_templates("""
We evaluate {N} on {D} and {D}.
Baselines include {K}, {K}, and a standard {M} pipeline.
We report {Q} and {Q}, averaged over {V} independent runs.
The data were split into development and test portions before any analysis of {T}.
Implementation details of {B} follow the description in Section 3.
For {D}, we follow the protocol of{R}.
All comparisons use the same budget for {M}.
We additionally vary {T} to probe the robustness of {N}.
{D} contains a wide range of {T}, which makes it a demanding test case.
""")

RESULTS = compile_templates("""
{N} achieves a {Q} of {V} on {D}, compared with {V} for {K}.
The gain is largest when {T} is strong, reaching {P}.
Removing {B} reduces {Q} by {P}, confirming its role.
Figure 2 shows how {Q} varies with {T}.
We observe that {C} is most beneficial for {D}.
Differences between {N} and {K} are statistically significant (p < 0.05).
The effect of {T} on {Q} is consistent across settings.
Qualitatively, {N} produces more stable estimates of {T}.
Without {C}, {Q} changes from {V} to {V}.
The improvement over {M} persists when {T} is varied.
""")

CONCLUSION = compile_templates("""
We introduced {N}, an approach based on {C} for {T}.
Our experiments on {D} show consistent improvements in {Q}.
Future work will extend {B} to {T} and study its behavior on {D}.
More broadly, we expect {C} to be relevant to other problems in {X}.
A limitation of the current study is its reliance on {D}.
We hope that {C} will serve as a baseline for work on {T}.
""")

FILLER = compile_templates("""
This observation is consistent with earlier reports{R}.
We return to this point in the discussion.
Table 1 summarizes the main quantities used throughout this section.
The same qualitative picture emerges for {G}.
A similar pattern has been reported for {O}{R}.
Note that {G} is not directly observed in this setting.
These considerations also apply to {O}, although we do not pursue this here.
We emphasize that the choice of {M} is not critical for the conclusions.
Related questions arise for {O} and {G}.
In what follows we keep the notation as simple as possible.
""")

TITLES = compile_templates("""
{C} for {T}
Towards {C} in {X}
{C}: {M} for {T}
On the Role of {C} in {T}
Learning {C} with {M}
A {M} Approach to {C}
{C} Improves {T} on {D}
Revisiting {T} through {C}
{C} and {T}: Evidence from {D}
Understanding {T} with {C}
""")

# Slot-free endings appended to some body sentences (before the final period).
CLAUSES: tuple[str, ...] = (", as discussed in more detail below", ", at least under the assumptions stated above",
                            " in most of the settings we consider",
                            ", which is in line with common practice in the field",
                            ", although the effect is smaller in some cases",
                            " for the range of conditions examined here", ", a point we revisit in the final section",
                            ", unless stated otherwise", " across all of the configurations we tested",
                            ", which simplifies the subsequent analysis considerably",
                            ", and this holds regardless of the particular choice of parameters",
                            " when the available data are sufficiently rich",
                            ", even though this is rarely made explicit in previous studies",
                            ", with only minor differences between the individual runs",
                            " in both the small and the large regime", ", as is common in this line of work",
                            ", which we found to be important in preliminary experiments",
                            " under the standard assumptions of the field",
                            ", although a complete treatment is beyond the scope of this paper",
                            ", as the supplementary analyses confirm", " without any additional tuning",
                            ", which keeps the overall procedure transparent",
                            ", and the same conclusion holds for the other settings we examined",
                            " to a good approximation", ", in agreement with the qualitative picture sketched above")
CLAUSE_RATE = 0.5

# Per-part template mixes: (templates, weight). Weights decide how often each group is drawn.
Mix = tuple[tuple[tuple[Template, ...], int], ...]
PART_MIX: dict[str, Mix] = {"introduction": ((CONTEXT, 3), (GAP, 2), (PROPOSAL, 1), (INTRO, 4), (FILLER, 1)),
                            "related": ((RELATED, 6), (CONTEXT, 1), (FILLER, 2)),
                            "method": ((METHOD, 7), (DETAIL, 1), (FILLER, 2)),
                            "experiments": ((EXPERIMENTS, 6), (METHOD, 1), (FILLER, 2)),
                            "results": ((RESULTS, 6), (RESULT, 1), (FILLER, 2)),
                            "extra": ((RESULTS, 3), (METHOD, 2), (FILLER, 2)),
                            "conclusion": ((CONCLUSION, 4), (CLOSING, 2), (FILLER, 1)),
                            "appendix": ((METHOD, 3), (RESULTS, 3), (FILLER, 1))}


def expand_mix(mix: Mix) -> tuple[Template, ...]:
    """Flatten a mix into one tuple where each group appears in proportion to its weight."""
    out: list[Template] = []
    for templates, weight in mix:
        out.extend(templates * weight)
    return tuple(out)


PART_TEMPLATES: dict[str, tuple[Template, ...]] = {part: expand_mix(mix) for part, mix in PART_MIX.items()}

_SMALL_WORDS = frozenset(
    ["a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "via", "with", "vs"]
)


@lru_cache(maxsize=1 << 16)
def title_case(text: str) -> str:
    """Capitalise words except short function words (keeps acronyms like 'BLEU' and 'MoS2')."""
    words = text.split(" ")
    out = []
    for i, word in enumerate(words):
        if word and (i == 0 or word not in _SMALL_WORDS):
            word = "-".join(part[:1].upper() + part[1:] for part in word.split("-"))
        out.append(word)
    return " ".join(out)


class Filler:
    """Fills templates for one paper from slot sources; all randomness comes from `rnd`.

    Each template's slot sources are bound once per paper, so filling is one
    list of calls and one `str.format`.
    """

    __slots__ = ("_bound", "_last_marker", "_sources", "rnd")

    def __init__(self, rnd: random.Random, sources: dict[str, Callable[[], str]]) -> None:
        missing = SLOTS - sources.keys() - {"J"}
        if missing:
            raise ValueError(f"Filler: no source for slot(s) {sorted(missing)}")
        self.rnd = rnd
        self._last_marker = ""
        self._sources = {**sources, "J": lambda: self._last_marker}
        self._bound: list[tuple[Callable[[], str], ...] | None] = [None] * _N_TEMPLATES

    def set_marker(self, marker: str) -> None:
        """Called by the I source: the next J repeats the marker of the concept just drawn."""
        self._last_marker = marker

    def _getters(self, template: Template) -> tuple[Callable[[], str], ...]:
        getters = self._bound[template.key]
        if getters is None:
            getters = self._bound[template.key] = tuple(self._sources[s] for s in template.slots)
        return getters

    def fill(self, template: Template) -> str:
        text = template.fmt.format(*map(_call, self._getters(template)))
        return text[0].upper() + text[1:] if template.capitalize else text

    def sentences(self, templates: Sequence[Template], n_words: int) -> list[str]:
        """Random sentences from `templates` until at least `n_words` words.

        Some sentences get a slot-free trailing clause: body sentences become
        as long as real ones (~20 words) at little cost.
        """
        out: list[str] = []
        words = 0
        rand = self.rnd.random
        k = len(templates)
        bound = self._bound
        n_clauses = len(CLAUSES)
        while words < n_words:
            template = templates[int(rand() * k)]
            getters = bound[template.key]
            if getters is None:
                getters = self._getters(template)
            text = template.fmt.format(*map(_call, getters))
            if template.capitalize:
                text = text[0].upper() + text[1:]
            if rand() < CLAUSE_RATE and text[-1] == ".":
                text = text[:-1] + CLAUSES[int(rand() * n_clauses)] + "."
            out.append(text)
            words += text.count(" ") + 1
        return out

    def paragraphs(self, templates: Sequence[Template], n_words: int, per_paragraph: int = 6) -> str:
        """`sentences` grouped into paragraphs of about `per_paragraph` sentences."""
        sents = self.sentences(templates, n_words)
        return "\n\n".join(" ".join(sents[i : i + per_paragraph]) for i in range(0, len(sents), per_paragraph))


def render_title(template: Template, values: dict[str, str]) -> str:
    """A title in title case: the template's own words and each value are title-cased separately (cached)."""
    return title_case(template.fmt).format(*(title_case(values[s]) for s in template.slots))


def pick(rnd: random.Random, items: Sequence[str]) -> Callable[[], str]:
    """A source returning a uniformly random item on each call."""
    rand = rnd.random
    n = len(items)
    return lambda: items[int(rand() * n)]

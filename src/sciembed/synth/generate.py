"""Synthetic full-text papers on top of the synthetic citation graph.

Paper i is a pure function of (seed, options, i): per-paper identity (key concepts, method name, title
words, missing metadata) is drawn once as numpy arrays and its text from a `random.Random` seeded with
(seed, i), so a citing paper names what it cites without keeping earlier papers in memory. Signal: linked
papers mostly share a topic, a citing paper inherits key concepts of what it cites and names their methods
in its body; its own method name and body concepts appear only in the body. Noise: topic-generic
sentences, domain words and sibling topics' terms.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from sciembed.papers.model import ExternalIds, Paper, Reference, Section, SectionRole
from sciembed.papers.roles import role_of
from sciembed.synth.graph import SyntheticGraph, paper_id, synthetic_graph
from sciembed.synth.text import (
    CLOSING,
    CONTEXT,
    DETAIL,
    GAP,
    PART_TEMPLATES,
    PROPOSAL,
    RESULT,
    TITLES,
    Filler,
    pick,
    render_title,
    title_case,
)
from sciembed.synth.vocab import DOMAINS, MODIFIERS, NAME_SYLLABLES, TOPIC_DOMAIN, TOPICS

SOURCE = "synthetic:sciembed-synth"
N_OWN_CONCEPTS = 3
N_BODY_CONCEPTS = 2
ABSTRACT_WORDS = (125, 225)  # target range; a finished abstract stays within 120-250 words
SECTION_WORDS_MEDIAN, SECTION_WORDS_SIGMA = 320, 0.5
SECTION_WORDS = (150, 860)  # clip of the target; the last sentence (< 40 words) keeps a section under 900


class SynthOptions(BaseModel):
    """Knobs of the generator (all have defaults; unknown names are an error)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    citations_per_paper: float = Field(6.0, ge=0, description="in-corpus citations per paper (graph edges / papers)")
    same_topic: float = Field(0.8, ge=0, le=1, description="share of citations inside the citing paper's topic")
    external_references: int = Field(4, ge=0, description="at most this many references outside the corpus")
    inherit: float = Field(0.5, ge=0, le=1, description="chance to inherit a key concept from each cited paper")
    max_inherited: int = Field(3, ge=0, description="at most this many inherited key concepts per paper")
    missing_venue: float = Field(0.03, ge=0, le=1, description="share of papers without a venue")
    missing_field: float = Field(0.02, ge=0, le=1, description="share without domain / fields of study")
    no_body: float = Field(0.02, ge=0, le=1, description="share without any sections")
    empty_abstract: float = Field(0.02, ge=0, le=1, description="share with an empty abstract")
    acknowledgements: float = Field(0.7, ge=0, le=1, description="share with an Acknowledgements section")
    appendix: float = Field(0.3, ge=0, le=1, description="share with an Appendix A after the references")


# ---------------------------------------------------------------------------------------------
# Headings. Top-level headings get their role from `role_of`, so they agree with the readers.

INTRO_HEADS = ("Introduction",) * 5 + ("Introduction and Motivation",)
RELATED_HEADS = ("Related Work", "Related Work", "Background", "Background and Related Work", "Prior Work",
                 "Literature Review")
METHOD_HEADS = ("Method", "Methods", "Approach", "Methodology", "Proposed Method", "Model and Methods")
METHOD_HEADS_BY_DOMAIN = {"Biology": ("Materials and Methods", "Materials and Methods", "Methods"),
                          "Medicine": ("Materials and Methods", "Methods", "Patients and Methods"),
                          "Chemistry": ("Materials and Methods", "Methods", "Methodology"),
                          "Materials Science": ("Materials and Methods", "Methods", "Methodology"),
                          "Mathematics": ("Framework", "Approach", "Methodology"),
                          "Economics": ("Model", "Methodology", "Theoretical Framework")}
EXPERIMENT_HEADS = ("Experiments", "Experimental Setup", "Evaluation", "Experimental Design", "Empirical Evaluation",
                    "Evaluation Protocol")
RESULT_HEADS = ("Results", "Results", "Results and Discussion", "Findings", "Main Results", "Analysis")
EXTRA_HEADS = ("Discussion", "Ablation Study", "Limitations", "Case Study", "Sensitivity Analysis", "Robustness Checks")
CONCLUSION_HEADS = ("Conclusion", "Conclusion", "Conclusions", "Concluding Remarks", "Summary and Outlook",
                    "Conclusion and Future Work")
SUBSECTION_HEADS = ("Problem Formulation", "Model Architecture", "Training Objective", "Data Collection",
                    "Study Design", "Statistical Analysis", "Implementation Details", "Theoretical Properties",
                    "Estimation Procedure")
ACK_HEADS = ("Acknowledgements", "Acknowledgments")
APPENDIX_HEADS = ("Appendix A: Additional Results", "Appendix A Proofs", "Appendix A. Implementation Details",
                  "Appendix A Supplementary Analyses")
MIN_SECTIONS, MAX_SECTIONS = 5, 10
NAMED_BASELINES = 2  # cited papers whose method name the body mentions
REFERENCE_CACHE = 1 << 18  # cited papers whose Reference is kept (popular papers are cited again and again)
_role_of = lru_cache(maxsize=4096)(role_of)  # headings repeat; the regexes need not


@dataclass(frozen=True, slots=True)
class _TopicWords:
    """Per-topic word lists the filler draws from (built once per topic)."""

    name: str
    domain: str
    modifiers: tuple[str, ...]
    sibling_terms: tuple[str, ...]


def _topic_words() -> tuple[_TopicWords, ...]:
    out = []
    for topic, d in zip(TOPICS, TOPIC_DOMAIN, strict=True):
        domain = DOMAINS[d]
        siblings = tuple(term for other in TOPICS if other.domain == topic.domain and other is not topic
                         for term in other.terms)
        out.append(_TopicWords(topic.name, domain.name, MODIFIERS + domain.modifiers, siblings))
    return tuple(out)


TOPIC_WORDS = _topic_words()
# Topics of the same domain (including itself), per topic: where outside-corpus references come from.
SIBLING_TOPICS = tuple(tuple(k for k, d in enumerate(TOPIC_DOMAIN) if d == TOPIC_DOMAIN[t]) for t in range(len(TOPICS)))
NUMBERS = tuple(f"{x:.2f}" if x < 10 else f"{x:.1f}" for x in np.random.default_rng(7).lognormal(0.5, 1.2, 997))
PERCENTS = tuple(f"{x:.1f}%" for x in np.random.default_rng(8).uniform(0.3, 38.0, 997))


class SyntheticCorpus:
    """The plan of a synthetic corpus: graph plus per-paper identity; papers are rendered on demand."""

    def __init__(self, n_papers: int, seed: int = 0, options: SynthOptions | None = None) -> None:
        if n_papers < 1:
            raise ValueError(f"n_papers must be >= 1, got {n_papers}")
        self.n_papers = n_papers
        self.seed = seed
        self.options = options or SynthOptions()
        n_edges = round(n_papers * self.options.citations_per_paper) if n_papers > 1 else 0
        self.graph: SyntheticGraph = synthetic_graph(n_papers, n_edges, seed=seed, same_topic=self.options.same_topic)
        rng = np.random.default_rng(np.random.SeedSequence([seed, 0x7E47]))
        n = n_papers
        n_mod = np.array([len(w.modifiers) for w in TOPIC_WORDS])[self.graph.topic]
        n_terms = np.array([len(t.terms) for t in TOPICS])[self.graph.topic]
        n_methods = np.array([len(t.methods) for t in TOPICS])[self.graph.topic]
        n_data = np.array([len(t.data) for t in TOPICS])[self.graph.topic]

        def scaled(size: np.ndarray, k: int) -> list[int]:
            """Uniform indices below size[j], k per paper, flat (paper j's at j*k ... j*k+k-1)."""
            return (rng.random((n, k)) * size[:, None]).astype(np.int32).ravel().tolist()

        # Plain lists, not numpy arrays: rendering reads single items, where lists are several times faster.
        self.topic: list[int] = self.graph.topic.tolist()
        self.year: list[int] = self.graph.year.tolist()
        self._concept_modifier = scaled(n_mod, N_OWN_CONCEPTS)
        self._concept_term = scaled(n_terms, N_OWN_CONCEPTS)
        self._body_modifier = scaled(n_mod, N_BODY_CONCEPTS)
        self._body_method = scaled(n_methods, N_BODY_CONCEPTS)
        self._name = rng.integers(0, len(NAME_SYLLABLES), size=(n, 3)).ravel().tolist()
        self._title_template = rng.integers(0, len(TITLES), size=n).tolist()
        self._title_words = np.stack(  # T, M, D of the title
            [np.asarray(scaled(size, 1)) for size in (n_terms, n_methods, n_data)], axis=1
        ).ravel().tolist()
        self._venue_kind = rng.integers(0, 3, size=n).tolist()
        o = self.options
        self.missing_venue: list[bool] = (rng.random(n) < o.missing_venue).tolist()
        self.missing_field: list[bool] = (rng.random(n) < o.missing_field).tolist()
        self.no_body: list[bool] = (rng.random(n) < o.no_body).tolist()
        self.empty_abstract: list[bool] = (rng.random(n) < o.empty_abstract).tolist()
        self._references: dict[int, tuple[Reference, str]] = {}

    # --- identity of paper j (also used by the papers that cite j) ------------------------------
    def concept(self, j: int, k: int) -> str:
        t = self.topic[j]
        at = j * N_OWN_CONCEPTS + k
        return f"{TOPIC_WORDS[t].modifiers[self._concept_modifier[at]]} {TOPICS[t].terms[self._concept_term[at]]}"

    def concepts(self, j: int) -> list[str]:
        """Paper j's own key concepts, most prominent first (duplicates removed)."""
        return list(dict.fromkeys(self.concept(j, k) for k in range(N_OWN_CONCEPTS)))

    def body_concepts(self, j: int) -> list[str]:
        """Paper j's method-side concepts, written only in its body."""
        t = self.topic[j]
        mods, methods = TOPIC_WORDS[t].modifiers, TOPICS[t].methods
        at = j * N_BODY_CONCEPTS
        return [f"{mods[self._body_modifier[at + k]]} {methods[self._body_method[at + k]]}"
                for k in range(N_BODY_CONCEPTS)]

    def method_name(self, j: int) -> str:
        """Paper j's invented method name (body only; citing papers name it as a baseline)."""
        a, b, c = self._name[3 * j : 3 * j + 3]
        return (NAME_SYLLABLES[a] + NAME_SYLLABLES[b] + NAME_SYLLABLES[c]).capitalize()

    def title(self, j: int) -> str:
        topic = TOPICS[self.topic[j]]
        term, method, data = self._title_words[3 * j : 3 * j + 3]
        values = {"C": self.concept(j, 0), "T": topic.terms[term], "M": topic.methods[method],
                  "D": topic.data[data], "X": topic.name.lower()}
        return render_title(TITLES[self._title_template[j]], values)

    def reference_to(self, j: int) -> tuple[Reference, str]:
        """How citing papers list paper j: an unresolved Reference and its line in "References" (cached)."""
        cached = self._references.get(j)
        if cached is None:
            if len(self._references) >= REFERENCE_CACHE:
                self._references.clear()
            title, venue, year = self.title(j), self.venue(j), self.year[j]
            ref = Reference(title=title, year=year, external_ids=ExternalIds(s2=paper_id(j)))
            cached = self._references[j] = (ref, f"{title}. {venue}, {year}." if venue else f"{title}. {year}.")
        return cached

    def venue(self, j: int) -> str | None:
        if self.missing_venue[j]:
            return None
        topic = TOPICS[self.topic[j]]
        kind = self._venue_kind[j]
        if kind == 0:
            return f"Synthetic Journal of {topic.name}"
        if kind == 1:
            return f"Proceedings of the Synthetic Conference on {topic.name}"
        return f"Synthetic {topic.domain} Letters"

    # --- rendering --------------------------------------------------------------------------------
    def __len__(self) -> int:
        return self.n_papers

    def __iter__(self) -> Iterator[Paper]:
        for i in range(self.n_papers):
            yield self.paper(i)

    def paper(self, i: int) -> Paper:
        """Render paper i (deterministic in seed, options and i)."""
        return _PaperWriter(self, i).paper()


class _PaperWriter:
    """Renders one paper; holds its random stream and its slot sources."""

    def __init__(self, corpus: SyntheticCorpus, i: int) -> None:
        self.c = corpus
        self.i = i
        self.rnd = rnd = random.Random(f"sciembed-synth:{corpus.seed}:{i}")
        self.t = t = corpus.topic[i]
        self.topic = topic = TOPICS[t]
        self.words = words = TOPIC_WORDS[t]
        self.domain = DOMAINS[TOPIC_DOMAIN[t]]

        cited = corpus.graph.references_of(i).tolist()
        # (reference, text of its line in the References section)
        refs: list[tuple[Reference, str]] = [corpus.reference_to(j) for j in cited]
        for _ in range(rnd.randint(0, corpus.options.external_references)):
            title = self._outside_title()
            refs.append((Reference(title=title), f"{title}."))
        order = list(range(len(refs)))
        rnd.shuffle(order)
        self.references = tuple(refs[k][0] for k in order)
        self.reference_lines = [f"[{n}] {refs[k][1]}" for n, k in enumerate(order, start=1)]
        marker_of = {}  # cited paper index -> " [n]"
        for n, k in enumerate(order, start=1):
            if k < len(cited):
                marker_of.setdefault(cited[k], f" [{n}]")
        self.markers = [f" [{n}]" for n in range(1, len(refs) + 1)] or [""]

        self.own = corpus.concepts(i)
        self.body = corpus.body_concepts(i)
        self.name = corpus.method_name(i)
        inherited: list[tuple[str, str]] = []
        for j in dict.fromkeys(cited):
            if len(inherited) >= corpus.options.max_inherited:
                break
            if rnd.random() < corpus.options.inherit:
                concept = corpus.concept(j, rnd.randrange(N_OWN_CONCEPTS))
                if concept not in self.own:
                    inherited.append((concept, marker_of[j]))
        self.inherited = inherited
        # A few cited papers are named as baselines in the body (not all: body retrieval should not be trivial).
        distinct = list(dict.fromkeys(cited))
        named = rnd.sample(distinct, min(len(distinct), NAMED_BASELINES))
        cited_names = [f"{corpus.method_name(j)}{marker_of[j]}" for j in named]

        marker = pick(rnd, self.markers)
        own_weighted = [self.own[0], *self.own]  # the title concept is the most frequent
        rand = rnd.random

        def inherited_source() -> str:
            if inherited:
                concept, m = inherited[int(rand() * len(inherited))]
            else:
                concept, m = f"{words.modifiers[int(rand() * len(words.modifiers))]} {pick_term()}", marker()
            self.filler.set_marker(m)  # the next {J} cites the paper this concept came from
            return concept

        pick_term = pick(rnd, topic.terms)
        pick_method = pick(rnd, topic.methods)
        sources = {
            "T": pick_term,
            "M": pick_method,
            "D": pick(rnd, topic.data),
            "Q": pick(rnd, topic.measures),
            "X": lambda: topic.name.lower(),
            "G": pick(rnd, self.domain.general),
            "O": pick(rnd, words.sibling_terms),
            "C": pick(rnd, own_weighted),
            "H": pick(rnd, [c for c, _ in inherited] or own_weighted),
            "I": inherited_source,
            "B": pick(rnd, self.body),
            "N": lambda: self.name,
            "K": pick(rnd, cited_names) if cited_names else (lambda: f"a standard {pick_method()} baseline{marker()}"),
            "R": marker,
            "V": pick(rnd, NUMBERS),
            "P": pick(rnd, PERCENTS),
        }
        self.filler = Filler(rnd, sources)

    def _outside_title(self) -> str:
        """Title of a paper outside the corpus, from a random topic of the same domain."""
        rand = self.rnd.random

        def one(items: Sequence[str]) -> str:
            return items[int(rand() * len(items))]

        siblings = SIBLING_TOPICS[self.t]
        t = siblings[int(rand() * len(siblings))]
        topic, words = TOPICS[t], TOPIC_WORDS[t]
        values = {"C": f"{one(words.modifiers)} {one(topic.terms)}", "T": one(topic.terms), "M": one(topic.methods),
                  "D": one(topic.data), "X": topic.name.lower()}
        return render_title(one(TITLES), values)

    def abstract(self) -> str:
        f, rnd = self.filler, self.rnd
        low, high = ABSTRACT_WORDS
        target = rnd.randint(low, high)
        head = [f.fill(rnd.choice(CONTEXT)) for _ in range(rnd.randint(1, 2))]
        head += [f.fill(rnd.choice(GAP)), f.fill(rnd.choice(PROPOSAL))]
        tail = [f.fill(rnd.choice(RESULT)) for _ in range(rnd.randint(1, 2))] + [f.fill(rnd.choice(CLOSING))]
        count = sum(s.count(" ") + 1 for s in head + tail)
        middle = []
        while count < target:
            sentence = f.fill(rnd.choice(DETAIL))
            middle.append(sentence)
            count += sentence.count(" ") + 1
        return " ".join(head + middle + tail)

    def _words(self) -> int:
        n = int(self.rnd.lognormvariate(np.log(SECTION_WORDS_MEDIAN), SECTION_WORDS_SIGMA))
        return min(max(n, SECTION_WORDS[0]), SECTION_WORDS[1])

    def _plan(self) -> list[tuple[str, str, list[str]]]:
        """Top-level sections as (part, heading, subsection headings), 5-10 sections in all."""
        rnd = self.rnd
        domain = self.domain.name
        method_heads = METHOD_HEADS_BY_DOMAIN.get(domain, METHOD_HEADS)
        sub_pool = [*SUBSECTION_HEADS, *(title_case(m) for m in self.topic.methods[:4]), title_case(self.body[0])]
        subsections = rnd.sample(sub_pool, rnd.choice((0, 0, 2, 2, 3)))
        plan = [("introduction", rnd.choice(INTRO_HEADS), [])]
        if rnd.random() < 0.85:
            plan.append(("related", rnd.choice(RELATED_HEADS), []))
        plan.append(("method", rnd.choice(method_heads), subsections))
        if rnd.random() < (0.4 if domain == "Mathematics" else 0.8):
            plan.append(("experiments", rnd.choice(EXPERIMENT_HEADS), []))
        plan.append(("results", rnd.choice(RESULT_HEADS), []))
        extras = rnd.sample(EXTRA_HEADS, rnd.choice((0, 0, 1, 1, 2)))
        plan.extend(("extra", head, []) for head in extras)
        plan.append(("conclusion", rnd.choice(CONCLUSION_HEADS), []))
        while sum(1 + len(s) for _, _, s in plan) < MIN_SECTIONS:
            head = rnd.choice([h for h in EXTRA_HEADS if h not in {p[1] for p in plan}])
            plan.insert(len(plan) - 1, ("extra", head, []))
        while sum(1 + len(s) for _, _, s in plan) > MAX_SECTIONS:
            if subsections:
                subsections.pop()
            else:
                plan.pop(-2)  # an extra section (never the conclusion)
        return plan

    def sections(self) -> tuple[Section, ...]:
        f, rnd = self.filler, self.rnd
        out: list[Section] = []
        for number, (part, heading, subsections) in enumerate(self._plan(), start=1):
            role = _role_of(heading)
            templates = PART_TEMPLATES[part]
            out.append(Section(f"{number} {heading}", f.paragraphs(templates, self._words()), role, str(number)))
            for k, sub in enumerate(subsections, start=1):
                num = f"{number}.{k}"
                out.append(Section(f"{num} {sub}", f.paragraphs(templates, self._words()), role, num))
        # Back matter: present in the raw paper, to be cut by ingest.
        if rnd.random() < self.c.options.acknowledgements:
            text = (f"We thank colleagues at the Synthetic Institute of {self.topic.name} for discussions on "
                    f"{rnd.choice(self.topic.terms)}. This work was supported by the Synthetic Research Council "
                    f"under grant SRC-{self.i:07d}. This paper is synthetic and was generated by sciembed-synth.")
            out.append(Section(rnd.choice(ACK_HEADS), text, SectionRole.OTHER))
        if self.reference_lines:
            out.append(Section("References", "\n".join(self.reference_lines), SectionRole.OTHER))
        if rnd.random() < self.c.options.appendix:
            text = f.paragraphs(PART_TEMPLATES["appendix"], rnd.randint(150, 400))
            out.append(Section(rnd.choice(APPENDIX_HEADS), text, SectionRole.OTHER, "A"))
        return tuple(out)

    def paper(self) -> Paper:
        c, i = self.c, self.i
        title = c.title(i)
        abstract = self.abstract()
        sections = self.sections()
        flags = []
        if c.empty_abstract[i]:
            abstract = ""
            flags.append("empty_abstract")
        if c.no_body[i]:
            sections = ()
            flags.append("no_body")
        fields: tuple[str, ...] = ()
        domain = None
        if not c.missing_field[i]:
            domain = self.topic.domain
            fields = (domain, *self.topic.also[: self.rnd.randint(0, 1)])
        return Paper(id=paper_id(i), title=title, abstract=abstract, sections=sections, references=self.references,
                     venue=c.venue(i), year=c.year[i], domain=domain, fields_of_study=fields,
                     external_ids=ExternalIds(s2=paper_id(i)), flags=tuple(flags), source=SOURCE)


def generate_papers(n_papers: int, seed: int = 0, **options: object) -> Iterator[Paper]:
    """Stream `n_papers` synthetic papers; same seed and options, same papers.

    Options are `SynthOptions` fields, checked at the call (not at the first
    paper); the citation graph is built at the call too, papers one by one.
    """
    return iter(SyntheticCorpus(n_papers, seed, SynthOptions(**options)))

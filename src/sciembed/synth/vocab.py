"""Hand-written vocabularies for the synthetic corpus: domains, topics and their terms.

Every topic owns terms, methods, data and measures; a paper's "key concepts" are modifier + term pairs
inside its topic. The word lists live in `data/vocabulary.json` (package data, read once at import).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class Topic:
    """One research topic: its domain, name, and the words its papers are written with."""

    name: str
    domain: str
    terms: tuple[str, ...]
    methods: tuple[str, ...]
    data: tuple[str, ...]
    measures: tuple[str, ...]
    also: tuple[str, ...] = ()  # secondary fields of study


@dataclass(frozen=True)
class Domain:
    """A field of study: general words and modifiers shared by its topics."""

    name: str
    general: tuple[str, ...]
    modifiers: tuple[str, ...]


def _tuples(record: dict[str, str | list[str]]) -> dict[str, str | tuple[str, ...]]:
    return {key: tuple(value) if isinstance(value, list) else value for key, value in record.items()}


_RAW = json.loads(resources.files("sciembed.synth").joinpath("data/vocabulary.json").read_text(encoding="utf-8"))

DOMAINS: tuple[Domain, ...] = tuple(Domain(**_tuples(d)) for d in _RAW["domains"])
DOMAIN_NAMES: tuple[str, ...] = tuple(d.name for d in DOMAINS)
MODIFIERS: tuple[str, ...] = tuple(_RAW["modifiers"])  # any topic may use these (the domain adds its own)
NAME_SYLLABLES: tuple[str, ...] = tuple(_RAW["name_syllables"])  # invented method / model names, one per paper
TOPICS: tuple[Topic, ...] = tuple(Topic(**_tuples(t)) for t in _RAW["topics"])

DOMAIN_INDEX: dict[str, int] = {name: i for i, name in enumerate(DOMAIN_NAMES)}
TOPIC_DOMAIN: tuple[int, ...] = tuple(DOMAIN_INDEX[t.domain] for t in TOPICS)

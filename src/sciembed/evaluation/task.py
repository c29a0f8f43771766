"""Scenarios of the built benchmarks: one `RetrievalTask` per scenario, before it becomes a contract task.

Citation scenarios, section retrieval, BEIR folders and re-ranking pools are cut into texts for one model
here (query texts, candidate texts, qrels, ids a query must never retrieve, optionally a candidate list per
query); `RetrievalTask.ranking_task` hands each to the executor as a `contract.RankingTask`.
`whole_text_task` builds one from id -> text maps; `FingerprintOnce` computes a benchmark's fingerprint once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sciembed.evaluation.contract import RankingTask
from sciembed.evaluation.issues import IssueLog

ScenarioKey = tuple[str, str | None]  # (scenario, body_mode); body_mode None where the scenario has no body side

SCENARIOS = ("ta_ta", "body_ta", "body_body")
BODY_MODES = ("windowed", "full")
SCENARIO_LABELS = {
    "ta_ta": "TA→TA",
    "body_ta": "Body→TA",
    "body_body": "Body→Body",
    "beir": "Query→Doc",
    "pools": "Pool re-rank",
    "section": "Section→same paper",
}
BODY_SCENARIOS = frozenset({"body_ta", "body_body"})


def has_body_mode(scenario: str) -> bool:
    return scenario in BODY_SCENARIOS


def normalize_key(key: ScenarioKey | str) -> ScenarioKey:
    """Canonical key: "body_ta/windowed" or ("body_ta", "windowed"); a body mode on TA→TA is dropped."""
    if isinstance(key, str):
        scenario, _, mode = key.partition("/")
        key = (scenario, mode or None)
    scenario, mode = key
    return (scenario, mode if has_body_mode(scenario) else None)


def key_str(key: ScenarioKey) -> str:
    scenario, mode = key
    return f"{scenario}/{mode}" if mode else scenario


def key_label(key: ScenarioKey) -> str:
    scenario, mode = key
    label = SCENARIO_LABELS.get(scenario, scenario)
    return f"{label} ({mode})" if mode else label


def scenario_keys(scenarios: Any, body_modes: Any) -> list[ScenarioKey]:
    """Keys in table order; TA→TA appears once whatever the body modes."""
    keys: list[ScenarioKey] = []
    for scenario in scenarios:
        if scenario not in SCENARIOS:
            raise ValueError(f"unknown scenario {scenario!r}; expected one of {', '.join(SCENARIOS)}")
        if has_body_mode(scenario):
            for mode in body_modes:
                if mode not in BODY_MODES:
                    raise ValueError(f"unknown body mode {mode!r}; expected one of {', '.join(BODY_MODES)}")
                keys.append((scenario, mode))
        else:
            keys.append((scenario, None))
    return list(dict.fromkeys(keys))


@dataclass
class RetrievalTask:
    """One scenario ready to run. Query and candidate texts are already cut for the model's budget."""

    key: ScenarioKey
    query_ids: list[str]
    query_texts: list[str]
    doc_ids: list[str]
    doc_texts: list[str]
    qrels: dict[str, dict[str, int]]
    exclude: dict[str, list[str]] = field(default_factory=dict)  # query id -> ids it must never retrieve
    pools: dict[str, list[str]] | None = None  # query id -> its own candidate list (re-ranking)
    domains: dict[str, str] = field(default_factory=dict)
    candidates: str = "docs"  # name of the candidate collection ("ta", "body_windowed", …): one index each
    notes: IssueLog = field(default_factory=IssueLog)  # queries / candidates this scenario could not use
    metrics: tuple[str, ...] = ()  # ranx metrics beyond `contract.RANKING_METRICS` (section retrieval: hit_rate@k)

    def __post_init__(self) -> None:
        if len(self.query_ids) != len(self.query_texts) or len(self.doc_ids) != len(self.doc_texts):
            raise ValueError(f"{key_str(self.key)}: ids and texts differ in length")

    def ranking_task(self, relevant_min: int = 1, primary: str = "ndcg@10", group: str = "") -> RankingTask:
        """The contract's `RankingTask` of this scenario (texts, qrels, pools, exclusions and notes unchanged)."""
        if any(ids not in ([], [q]) for q, ids in self.exclude.items()):
            raise ValueError(f"{key_str(self.key)}: only the query's own id can be excluded")
        return RankingTask(name=key_str(self.key), queries=dict(zip(self.query_ids, self.query_texts, strict=True)),
                           docs=dict(zip(self.doc_ids, self.doc_texts, strict=True)), qrels=self.qrels,
                           pools=self.pools, relevant_min=relevant_min, primary=primary,
                           exclude_self=any(self.exclude.values()), extra_metrics=tuple(self.metrics), group=group,
                           notes=[n["message"] for n in self.notes.to_list()])

    def counts(self) -> dict[str, int]:
        return {
            "queries": len(self.query_ids),
            "candidates": len(self.doc_ids),
            "relevant_pairs": sum(sum(1 for r in rel.values() if r > 0) for rel in self.qrels.values()),
        }


def whole_text_task(
    key: ScenarioKey,
    queries: Mapping[str, str],
    docs: Mapping[str, str],
    qrels: Mapping[str, dict[str, int]],
    *,
    exclude: Mapping[str, list[str]],
    domains: Mapping[str, str],
    pools: Mapping[str, list[str]] | None = None,
    candidates: str = "docs",
) -> RetrievalTask:
    """A task over texts held whole (id -> text, as BEIR folders and pool files give them).

    Queries and candidates are listed in id order; `qrels`, `domains` and `pools` name every query,
    `exclude` the queries that have ids to leave out.
    """
    qids = sorted(queries)
    dids = sorted(docs)
    return RetrievalTask(
        key=key,
        query_ids=qids,
        query_texts=[queries[q] for q in qids],
        doc_ids=dids,
        doc_texts=[docs[d] for d in dids],
        qrels={q: qrels[q] for q in qids},
        exclude={q: exclude[q] for q in qids if q in exclude},
        pools=None if pools is None else {q: pools[q] for q in qids},
        candidates=candidates,
        domains={q: domains[q] for q in qids},
    )


class FingerprintOnce:
    """`fingerprint()` is the subclass's `_digest()`, computed on the first call and kept:
    a loaded benchmark does not change."""

    def _digest(self) -> str:
        raise NotImplementedError

    def fingerprint(self) -> str:
        cached = self.__dict__.get("_fingerprint")
        if cached is None:
            cached = self.__dict__["_fingerprint"] = self._digest()
        return cached

    def identity(self) -> dict[str, Any]:
        """The first keys of `describe()`: kind, name, source and fingerprint (the subclass has the first three)."""
        return {"kind": self.kind, "name": self.name, "source": self.source, "fingerprint": self.fingerprint()}


def json_digest(*parts: Any) -> str:
    """A fingerprint: the first 16 hex digits of SHA-256 over the JSON of each part, one after another."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(json.dumps(part).encode())
    return digest.hexdigest()[:16]

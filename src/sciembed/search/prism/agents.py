"""PRISM's LLM aspect agents over the shared LLM layer (`sciembed.llm`): cached, retried, replayable.

Multi-agent (PRISM's default): one chat call per aspect, the aspect's instruction as system, the whole paper as
user. The v2 prompts are PRISM's own, verbatim (provenance: docs/fidelity.md, item 7); v1 is sciembed's earlier
paraphrase, kept for replaying old caches. Single agent: one call answering JSON with the three queries
(``structured=True`` asks for a JSON schema), parsed tolerantly; an unusable reply is a
`SingleAgentParseError` naming the paper. Every query records ``llm:<model>`` or ``cache:<model>``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sciembed.llm import LLMClient, LLMRequest, LLMResponseError, Sampling, load_prompt
from sciembed.papers.model import Paper
from sciembed.search.prism.aspects import AGENT_ASPECTS, Aspect, QuerySet

AGENT_PROMPTS = {Aspect.RESEARCH_QUESTION: "prism_research_question", Aspect.METHOD: "prism_method",
                 Aspect.EXPERIMENT: "prism_experiment"}
SINGLE_AGENT_PROMPT = "prism_single_agent"
JSON_FIELDS = {"research_question_query": Aspect.RESEARCH_QUESTION, "method_query": Aspect.METHOD,
               "experiment_query": Aspect.EXPERIMENT}
# PRISM's decoding (its released `Inference/inference_QoA.py`: temperature 0, max_tokens 2,000, repetition penalty
# 1.2, sent to vLLM; configs/decoding-prism-paper.yaml holds the same): the default for one query set per paper.
PAPER_SAMPLING = Sampling(temperature=0.0, max_tokens=2000, extra={"repetition_penalty": 1.2})
# Repeated samples (--samples N > 1, mean ± std) need sampling: greedy decoding would repeat one answer N times.
SAMPLED_DECODING = Sampling(temperature=0.7, max_tokens=512, extra={"seed": 0})  # sample i sends seed i


def default_sampling(samples: int) -> Sampling:
    """The agents' decoding when none is given: PRISM's for one sample, seeded sampling for repeated samples."""
    return PAPER_SAMPLING if samples <= 1 else SAMPLED_DECODING


def load_sampling(path: str | Path) -> Sampling:
    """The agents' decoding settings from a YAML file with a ``sampling`` mapping (configs/decoding-prism-paper.yaml);
    a bad file is a ValueError naming it."""
    from sciembed.ioutil.yaml_config import read_yaml_mapping, validate_model

    data = read_yaml_mapping(path, ValueError, "decoding config")
    if set(data) != {"sampling"} or not isinstance(data["sampling"], dict):
        raise ValueError(f"{path}: expected one mapping 'sampling' (temperature, max_tokens, extra), "
                         f"got {sorted(data)}")
    return validate_model(Sampling, data["sampling"], str(path), ValueError)


# PRISM's agents read the whole paper (`QueryOptimizer/agents.py` formats the full .mmd into the prompt; its LLMs
# have 128k-token contexts): no cut by default. A number cuts papers to that many words (a small-context server).
MAX_PAPER_WORDS: int | None = None
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


class SingleAgentParseError(LLMResponseError):
    """The single agent's reply holds no usable JSON object."""


def paper_text(paper: Paper, max_words: int | None = MAX_PAPER_WORDS) -> str:
    """The cleaned paper as the agents read it: title, abstract, then every section with its heading; whole unless
    `max_words` cuts it."""
    parts = [paper.title.strip(), f"Abstract\n{paper.abstract.strip()}" if paper.abstract.strip() else ""]
    parts += [f"{s.heading}\n{s.text}".strip() for s in paper.sections]
    text = "\n\n".join(p for p in parts if p)
    return text if max_words is None else " ".join(text.split(" ")[:max_words])


def json_schema() -> dict[str, Any]:
    """The structured-output request for the single agent (OpenAI / vLLM ``response_format``)."""
    properties = {name: {"type": "string"} for name in JSON_FIELDS}
    return {"type": "json_schema", "json_schema": {"name": "prism_queries", "strict": True, "schema": {
        "type": "object", "properties": properties, "required": list(JSON_FIELDS), "additionalProperties": False}}}


def parse_single_agent(text: str, where: str = "reply") -> dict[str, str]:
    """aspect -> query from the single agent's reply; tolerant of fences and prose, strict about fields."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        start, end = candidate.find("{"), candidate.rfind("}")
        if start < 0 or end <= start:
            continue
        try:
            data = json.loads(candidate[start:end + 1])
        except json.JSONDecodeError:
            continue
        if not isinstance(data, dict):
            continue
        missing = [f for f in JSON_FIELDS if not isinstance(data.get(f), str) or not data[f].strip()]
        if missing:
            raise SingleAgentParseError(f"{where}: the single agent's JSON lacks {', '.join(missing)} "
                                        f"(got keys {sorted(data)})")
        return {JSON_FIELDS[f].value: data[f].strip() for f in JSON_FIELDS}
    raise SingleAgentParseError(f"{where}: the single agent's reply is not parseable JSON: {text[:200]!r}")


def llm_query_sets(papers: Sequence[Paper], client: LLMClient, *,
                   aspects: Sequence[str] = tuple(a.value for a in AGENT_ASPECTS), samples: int = 1,
                   single_agent: bool = False, structured: bool = False, sampling: Sampling | None = None,
                   texts: Mapping[str, str] | None = None) -> list[QuerySet]:
    """One `QuerySet` per (paper, sample), abstract query included; all calls of one aspect in one batch.
    `texts`: paper id -> the text the agents read (default `paper_text`)."""
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    sampling = sampling if sampling is not None else default_sampling(samples)
    model = client.config.model or "?"
    with_body = [p for p in papers if p.has_body]
    sets = {(p.id, s): QuerySet(p.id, {}, {}, p.title, s) for p in papers for s in range(samples)}
    for p in papers:
        if not p.has_body:
            for s in range(samples):
                sets[(p.id, s)].notes.append("paper has no body: only the abstract query is possible")
    texts = texts or {}
    requests = [LLMRequest({"paper": texts.get(p.id) or paper_text(p)}, s) for p in with_body for s in range(samples)]
    keys = [(p.id, s) for p in with_body for s in range(samples)]
    if requests and single_agent:
        if structured:
            sampling = sampling.model_copy(update={"extra": {**sampling.extra, "response_format": json_schema()}})
        replies = client.chat(load_prompt(SINGLE_AGENT_PROMPT), requests, sampling, "PRISM single agent")
        for key, reply in zip(keys, replies, strict=True):
            source = f"{'cache' if reply.cached else 'llm'}:{model}"
            for aspect, text in parse_single_agent(reply.text, f"paper {key[0]} sample {key[1]}").items():
                if aspect in aspects:
                    sets[key].queries[aspect] = text
                    sets[key].sources[aspect] = source + ":single-agent"
    elif requests:
        for aspect in aspects:
            template = load_prompt(AGENT_PROMPTS[Aspect(aspect)])
            replies = client.chat(template, requests, sampling, f"PRISM {aspect} agent")
            for key, reply in zip(keys, replies, strict=True):
                if reply.text.strip():
                    sets[key].queries[aspect] = reply.text.strip()
                    sets[key].sources[aspect] = f"{'cache' if reply.cached else 'llm'}:{model}"
                else:
                    sets[key].notes.append(f"empty reply from the {aspect} agent: aspect left out")
    by_id = {p.id: p for p in papers}
    return [qs.with_abstract(by_id[pid]) for (pid, _), qs in sets.items()]

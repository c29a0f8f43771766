"""Turn a suite's model entry into a scorer: a path, hub id, ``minilm``, ``bm25`` or a recipe run directory.

A directory holding ``recipe.json`` (any recipe's `RunDir`) resolves to its ``model/``; the model card
(``sciembed_model.json``) supplies the distance and input format.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from sciembed.evaluation.bench.suite import ModelEntry, SuiteError


def resolve_model(spec: str) -> str:
    """The path or name `load_encoder` should load (`models.loading.resolve_model_source`; run directories
    become their saved model), ``bm25`` and ``minilm`` as they are."""
    from sciembed.models.adapters import KNOWN_MODELS
    from sciembed.models.loading import ModelLoadError, resolve_model_source

    if spec.lower() in ("bm25", "minilm") or (spec.lower() in KNOWN_MODELS and not Path(spec).exists()):
        return spec.lower()  # an alias (specter2, scincl, ...): load_encoder expands it
    try:
        return resolve_model_source(spec)
    except ModelLoadError as exc:
        raise SuiteError(f"model {spec!r}: {exc}") from None


def model_key(entry: ModelEntry) -> str:
    """Identity of a model entry without loading it: spec, options and the weights' content hash."""
    from sciembed.models.adapters import KNOWN_MODELS
    from sciembed.models.loading import resolve_model_source, weights_identity

    target = resolve_model(entry.model)
    if target == "bm25":
        weights = "bm25"
    elif entry.options.get("backend") == "openai":  # served elsewhere: the endpoint and name are the identity
        weights = f"openai:{entry.options.get('base_url')}:{entry.model}"
    elif target in KNOWN_MODELS and not Path(target).exists():  # an alias: its base's weights and its adapter
        known = KNOWN_MODELS[target]
        weights = f"{weights_identity(resolve_model_source(known.base))}+{known.adapter}"
    else:
        source = resolve_model_source(None if target == "minilm" else target)
        weights = weights_identity(source)
        card = Path(source) / "sciembed_model.json"
        if card.is_file():
            weights += hashlib.sha256(card.read_bytes()).hexdigest()[:8]
    payload = {"target": target, "weights": weights, "distance": entry.distance or paper_distance(entry),
               "max_seq_length": entry.max_seq_length, "options": entry.options,
               "pool_statistics": entry.bm25_pool_statistics}
    if entry.window_tokens is not None:  # only when set: the keys of earlier cells stay valid
        payload["window_tokens"] = entry.window_tokens
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]


def paper_distance(entry: ModelEntry) -> str | None:
    """The distance the papers rank a known model with (SPECTER, SciNCL, SPECTER2: "l2" on raw vectors) when the
    entry names it by alias or hub id and sets no `distance`; None otherwise."""
    from sciembed.models.adapters import paper_metric

    return None if entry.options.get("backend") == "openai" else paper_metric(entry.model)


def entry_distance(entry: ModelEntry, card: Any = None) -> str:
    """An entry's ranking distance: its own `distance`, else the model card's metric, else the papers' for a
    known model, else cosine."""
    return entry.distance or (card.metric if card is not None else None) or paper_distance(entry) or "cosine"


def make_scorer(entry: ModelEntry, cache_dir: Path, batch_size: int | None = None) -> Any:
    from pydantic import ValidationError

    from sciembed.evaluation.scorers import BM25Scorer, DenseScorer
    from sciembed.models.card import read_model_card
    from sciembed.models.spec import EncoderSpec

    target = entry.model if entry.options.get("backend") == "openai" else resolve_model(entry.model)
    if target == "bm25":
        return BM25Scorer(pool_statistics=entry.bm25_pool_statistics, name=entry.name)
    name = None if target == "minilm" else target
    card = read_model_card(target) if Path(target).is_dir() else None
    distance = entry_distance(entry, card)
    options = {k: v for k, v in entry.options.items() if k != "device"}  # the device is the run's, not the spec's
    try:
        spec = EncoderSpec.model_validate({"model": name or "minilm", "max_seq_length": entry.max_seq_length,
                                           "metric": "cosine" if distance == "cosine" else "l2", **options})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise SuiteError(f"model {entry.name}: options {sorted(entry.options)} are not an encoder spec "
                         f"({problems})") from None
    encoder = spec.load(cache_dir=cache_dir, device=entry.options.get("device"))
    scorer = DenseScorer(encoder, distance=distance, batch_size=batch_size, window_tokens=entry.window_tokens)
    scorer.name = entry.name
    return scorer

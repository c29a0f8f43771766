"""Adapter checkpoints (the `adapters` package) on top of a base encoder; SPECTER2 as the paper evaluates it.

SPECTER2 is ``allenai/specter2_base`` with the proximity adapter ``allenai/specter2``, CLS pooling and
``title [SEP] abstract`` input. `attach_adapter` turns the model's transformer into an adapter model in
place and activates the adapter (hub id or ``save_adapter`` directory). `adapters` is an optional extra
(``pip install sciembed[specter2]``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciembed.errors import SciembedInputError

EXTRA = "specter2"


@dataclass(frozen=True)
class KnownModel:
    """What an alias (`--model specter2`) expands to.

    `metric`: the distance the model's authors and the papers that report it rank with. SPECTER, SciNCL and
    SPECTER2 are compared by Euclidean distance on raw vectors — SciRepEval's evaluator (negative Euclidean
    distance over each query's candidates) and PRISM's ``faiss.IndexFlatL2`` — so they default to "l2";
    an explicit metric (``--metric``, a suite entry's ``distance``) still wins."""

    base: str
    adapter: str | None
    pooling: str
    ta_join: str  # ". " or "sep" (the tokenizer's separator token)
    metric: str = "cosine"


KNOWN_MODELS = {"specter2": KnownModel("allenai/specter2_base", "allenai/specter2", "cls", "sep", "l2"),
                "specter2_base": KnownModel("allenai/specter2_base", None, "cls", "sep", "l2"),
                "specter": KnownModel("allenai/specter", None, "cls", "sep", "l2"),
                "scincl": KnownModel("malteos/scincl", None, "cls", "sep", "l2")}


# Hub models the papers rank by L2 without an alias here: PRISM's Jina row (`jina-embeddings-v2-base-en` among its
# retrievers, psw0021/PRISM `Inference/inference_QoA.py`; every index `faiss.IndexFlatL2`)
PAPER_METRICS = {"jinaai/jina-embeddings-v2-base-en": "l2"}


def paper_metric(name: str | None) -> str | None:
    """The distance the papers rank `name` with: a known alias's or its base hub id's `metric` (SPECTER, SciNCL,
    SPECTER2: "l2"), `PAPER_METRICS` (PRISM's Jina v2: "l2"), else None (the model card's, else cosine)."""
    key = (name or "").strip().lower()
    if not key or Path(key).expanduser().exists():
        return None
    known = KNOWN_MODELS.get(key) or next((m for m in KNOWN_MODELS.values() if m.base.lower() == key), None)
    return known.metric if known is not None else PAPER_METRICS.get(key)


class AdapterLoadError(SciembedInputError, RuntimeError):
    """The adapter could not be attached; the message names what was tried."""


def attach_adapter(model: Any, adapter: str, *, local_files_only: bool = False) -> str:
    """Load `adapter` (hub id or directory) into the transformer of `model` and activate it; returns its name."""
    try:
        import adapters
    except ImportError as exc:
        raise AdapterLoadError(
            f"adapter {adapter!r} needs the `adapters` package: pip install 'sciembed[{EXTRA}]' ({exc})"
        ) from exc
    transformer = model[0]
    auto_model = transformer.auto_model
    local = Path(adapter).expanduser()
    target = str(local.resolve()) if local.is_dir() else adapter
    where = "local directory" if local.is_dir() else "hub"
    try:
        if not hasattr(auto_model, "adapters_config"):  # transformers' own load_adapter is PEFT's, not this
            adapters.init(auto_model)
        name = auto_model.load_adapter(target, load_as="adapter", set_active=True,
                                       **({} if local.is_dir() else {"local_files_only": local_files_only}))
    except Exception as exc:  # every failure becomes one message naming the attempt
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        hint = " (offline mode and not in the local cache)" if local_files_only and not local.is_dir() else ""
        raise AdapterLoadError(
            f"could not load adapter {adapter!r}; tried:\n  - {where} {target}: {type(exc).__name__}: {first}{hint}"
        ) from exc
    auto_model.set_active_adapters(name)
    auto_model.eval()
    return name


def adapter_identity(adapter: str) -> str:
    """Content hash of a local adapter directory; the id itself (plus the hub commit, when known) otherwise."""
    from sciembed.models.fingerprint import directory_fingerprint, hub_fingerprint

    local = Path(adapter).expanduser()
    if local.is_dir():
        return directory_fingerprint(local)
    try:
        return hub_fingerprint(adapter, local_files_only=True)
    except Exception:
        return f"hub:{adapter}"

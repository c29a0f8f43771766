"""The README a trained model carries: sentence-transformers' model card, filled with what sciembed knows.

A model assembled from modules has no base model or dataset in its card data: `fill_card_data` sets the base's
hub id, a name, tags and the training data, and `card_section` adds a "Trained with sciembed" section (recipe,
configuration, token budgets, similarity, last validation) to the same README.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sciembed.ioutil.atomic import write_text_atomic
from sciembed.training.model import BASE_ATTR, token_budgets

RECIPE_TITLES = {
    "window": "S2Full: citation pairs of title+abstract and random body windows, plus self-alignment (CachedMNRL)",
    "cosaemb": "CoSAEmb: local, global and inter-document triplets with a graded triplet loss",
    "jepa": "SciJEPA: section pairs (title+abstract to method, method to conclusion), EMA target, SIGReg",
    "infonce": "SciJEPA's InfoNCE baseline over the same section pairs",
    "semcse": "SemCSE: summaries of one abstract pulled together (triplet or InfoNCE over in-batch negatives)",
}
RECIPE_COLUMNS = {"window": ["anchor", "positive"], "cosaemb": ["anchor", "positive", "negative"],
                  "jepa": ["context", "target"], "infonce": ["context", "target"], "semcse": ["anchor", "positive"]}
SECTION_TITLE = "## Trained with sciembed"


def base_model_id(base: str | None) -> str | None:
    """The base's hub id for the card: the offline MiniLM is its hub id; a local directory has none."""
    from sciembed.models.loading import DEFAULT_HUB_ID

    if base in (None, "minilm"):
        return DEFAULT_HUB_ID
    return None if Path(base).expanduser().exists() else base


def base_label(base: str | None) -> str:
    """How the card names the base: its hub id, or a local directory's name (never the machine's path)."""
    return base_model_id(base) or f"a local model directory ({Path(str(base)).name})"


def data_description(record: dict[str, Any]) -> str:
    """One line on the training data from the run's ``recipe.json``: the corpus folder and its counts."""
    corpus = Path(str(record.get("corpus") or "corpus")).name
    data = record.get("data") or {}
    counts = ", ".join(f"{value:,} {key.replace('_', ' ')}" for key, value in data.items()
                       if isinstance(value, int) and not isinstance(value, bool))
    split = data.get("split")
    where = f"{split} split of corpus `{corpus}`" if split else f"corpus `{corpus}`"
    return f"{where} ({counts})" if counts else where


def fill_card_data(model: Any, recipe: str, record: dict[str, Any], loss: Any, examples: int | None) -> None:
    """Set the base model, name, tags and training data of `model`'s card data (no hub call when offline)."""
    from sentence_transformers.util import fullname

    from sciembed.models.loading import hub_offline

    data = model.model_card_data
    base = getattr(model, BASE_ATTR, None)
    hub_id = base_model_id(base)
    if hub_id is not None:
        found = not hub_offline() and data.set_base_model(hub_id)  # online: the hub also gives its revision
        if not found:
            data.base_model = hub_id  # the offline MiniLM, an offline run: named without asking the hub
    data.model_name = f"sciembed {recipe} model trained from {base_label(base)}"
    data.add_tags(["sciembed", f"sciembed-{recipe}"])
    columns = [f"<code>{name}</code>" for name in RECIPE_COLUMNS.get(recipe, ["anchor", "positive"])]
    data.train_datasets = [{"name": data_description(record), "size": examples, "columns": columns,
                            "loss": {"fullname": fullname(loss)}}]


def _validation_table(evaluations: list[dict[str, Any]]) -> str:
    if not evaluations:
        return ("No validation ran during training (`validation.every_steps` 0). Evaluate the model with "
                "`sciembed eval run --model MODEL …`.")
    last = evaluations[-1]
    rows = [f"| {key.removeprefix('eval_')} | {value:.4f} |" for key, value in sorted(last.items())
            if key.startswith("eval_") and isinstance(value, int | float)
            and not key.endswith(("_runtime", "_per_second"))]
    return "\n".join([f"Validation at step {last.get('step')} (the last one):", "", "| metric | value |",
                      "| --- | ---: |", *rows])


def card_section(model: Any, recipe: str, record: dict[str, Any], evaluations: list[dict[str, Any]]) -> str:
    """The "Trained with sciembed" section: recipe, base, data, budgets, similarity, config, validation."""
    import yaml

    budgets = token_budgets(model)
    config = yaml.safe_dump(record.get("config") or {}, sort_keys=False, allow_unicode=True).rstrip()
    return "\n".join([
        SECTION_TITLE, "",
        f"- **Recipe:** `{recipe}`: {RECIPE_TITLES.get(recipe, recipe)}",
        f"- **Base model:** {base_label(getattr(model, BASE_ATTR, None))}; every module of the base is kept",
        f"- **Training data:** the {data_description(record)}",
        f"- **Token budget:** trained on {budgets['training']} tokens, reads {budgets['inference']}",
        f"- **Similarity:** {model.similarity_fn_name or 'cosine'}",
        "", "### Recipe configuration (every hyper-parameter of the run)", "", "```yaml", config, "```",
        "", "### Validation", "", _validation_table(evaluations), "",
    ])


def add_card_section(model_dir: Path, section: str) -> None:
    """Put `section` into the model's README.md before its "Training Details" (at the end when it has none)."""
    readme = Path(model_dir) / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.is_file() else ""
    anchor = "\n## Training Details"
    if anchor in text:
        head, tail = text.split(anchor, 1)
        text = f"{head.rstrip()}\n\n{section}{anchor}{tail}"
    else:
        text = f"{text.rstrip()}\n\n{section}" if text else section
    write_text_atomic(readme, text)

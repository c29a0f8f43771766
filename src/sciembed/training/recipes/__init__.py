"""Training recipes by name. Each recipe module provides ``NAME``, ``CONFIG`` (a `TrainConfig`
subclass), ``prepare(config, corpus)`` (reads and plans the data, no torch) and
``build(config, prepared, corpus) -> RecipeParts``; modules are imported only when used."""

from __future__ import annotations

import importlib
from types import ModuleType

from sciembed.errors import SciembedInputError
from sciembed.training.config import InfoNCEConfig, JepaConfig, StaticConfig, TrainConfig, WindowConfig
from sciembed.training.recipes.cosaemb_config import CosaembConfig
from sciembed.training.recipes.semcse_config import SemCSEConfig

RECIPES: dict[str, tuple[str, type[TrainConfig]]] = {
    "window": ("sciembed.training.recipes.window", WindowConfig),
    "cosaemb": ("sciembed.training.recipes.cosaemb", CosaembConfig),
    "jepa": ("sciembed.training.recipes.jepa", JepaConfig),
    "infonce": ("sciembed.training.recipes.infonce", InfoNCEConfig),
    "semcse": ("sciembed.training.recipes.semcse", SemCSEConfig),
    "static": ("sciembed.training.recipes.static", StaticConfig),
}


class UnknownRecipeError(SciembedInputError, ValueError):
    pass


def recipe_config(name: str) -> type[TrainConfig]:
    return _entry(name)[1]


def recipe_module(name: str) -> ModuleType:
    return importlib.import_module(_entry(name)[0])


def _entry(name: str) -> tuple[str, type[TrainConfig]]:
    if name not in RECIPES:
        raise UnknownRecipeError(f"unknown recipe {name!r}; known: {', '.join(sorted(RECIPES))}")
    return RECIPES[name]

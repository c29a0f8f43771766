"""SciJEPA: the online encoder's title+abstract (or method) embedding, through a residual predictor,
predicts the EMA target encoder's embedding of the method (or conclusion) section; λ·SIGReg keeps
the online embeddings from collapsing. Section pairs need no citation graph.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

from sciembed.corpus.layout import CorpusDir
from sciembed.training.config import JepaConfig
from sciembed.training.recipes import section_pairs
from sciembed.training.recipes.section_pairs import Prepared, data_parts, section_training_args
from sciembed.training.trainer import RecipeParts

NAME = "jepa"
CONFIG = JepaConfig
BRANCHES = ("online", "predictor", "target")
PREDICTOR_PARAMETERS = r"^predictor\."  # the loss's parameter names: model.*, predictor.*, target.*


prepare = section_pairs.prepare


def identity(config: JepaConfig) -> dict[str, Any]:
    """What a checkpoint's JEPA state must share with the run that resumes it."""
    return {"recipe": NAME, "sigreg_lambda": config.sigreg.weight, "predictor_hidden": config.predictor.hidden}


def export_branches(root: Path, model, predictor, target) -> dict[str, Any]:
    """``<root>/branches/{online,predictor,target}``: sentence-transformers directories. ``online`` links to
    ``<root>/model`` (already saved); ``predictor`` is the online encoder + the predictor; ``target`` the EMA one."""
    from sentence_transformers import SentenceTransformer

    branches = root / "branches"
    branches.mkdir(parents=True, exist_ok=True)
    online = branches / "online"
    if online.is_symlink() or online.exists():
        online.unlink()
    os.symlink(os.path.relpath(root / "model", branches), online)
    SentenceTransformer(modules=[*model, predictor], device=str(model.device)).save(str(branches / "predictor"))
    target.save(str(branches / "target"))
    return {"branches": {name: str(branches / name) for name in BRANCHES}}


def build(config: JepaConfig, prepared: Prepared, corpus: str | Path | CorpusDir) -> RecipeParts:
    from sciembed.training.ema import EMACallback, JepaCheckpointCallback, PredictorGrads
    from sciembed.training.losses import PredictiveLoss, SIGReg
    from sciembed.training.model import build_model
    from sciembed.training.predictor import ResidualPredictor
    from sciembed.training.schedules import StepCallback

    model = build_model(config.model)
    target = copy.deepcopy(model)
    target.requires_grad_(False)
    predictor = ResidualPredictor(model.get_embedding_dimension(), config.predictor.hidden)
    s = config.sigreg
    sigreg = SIGReg(s.slices, s.knots, s.t_max, seed=config.seed, trapezoid=s.trapezoid)
    loss = PredictiveLoss(model, predictor, target, s.weight, sigreg)
    ema = EMACallback(model, target, config.ema.momentum_start, config.ema.momentum_end)
    training_args = section_training_args(config) | {
        "learning_rate_mapping": {PREDICTOR_PARAMETERS: config.predictor.learning_rate}}
    return RecipeParts(
        model=model, loss=loss, **data_parts(model, prepared), summary=prepared.summary(), training_args=training_args,
        callbacks=[StepCallback([loss]), PredictorGrads(predictor), ema,
                   JepaCheckpointCallback(predictor, target, ema, identity(config))],
        export=lambda root: export_branches(root, model, predictor, target),
    )

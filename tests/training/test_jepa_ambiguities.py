"""Issue 32, item 8: SciJEPA's two implicit choices are config options, the paper's reading by default — SIGReg's
trapezoid weights as LeJEPA's code (the plain rule halves the statistic, an ablation) and the InfoNCE baseline's
same-view denominator as the paper's Eq. 7 prints it (cross-view, the usual InfoNCE, an ablation)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from sciembed.training.config import InfoNCEConfig, InfoNCELossConfig, JepaConfig, SIGRegConfig, load_config
from sciembed.training.losses import SIGReg
from sciembed.training.losses.infonce import SectionInfoNCELoss

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def test_plain_trapezoid_is_half_of_lejepas_so_lambda_doubles():
    x = torch.randn(64, 32, generator=torch.Generator().manual_seed(0))
    lejepa = SIGReg(slices=16)(x, step=2).item()
    plain = SIGReg(slices=16, trapezoid="plain")(x, step=2).item()
    assert plain == pytest.approx(lejepa / 2, rel=1e-5)
    assert 0.0025 * lejepa == pytest.approx(0.005 * plain, rel=1e-5)
    assert SIGReg(trapezoid="plain").get_config_dict()["trapezoid_scale"] == 1.0
    with pytest.raises(ValueError, match="trapezoid"):
        SIGReg(trapezoid="simpson")


def test_the_papers_readings_are_the_defaults():
    assert SIGRegConfig().trapezoid == "lejepa"
    assert load_config(JepaConfig, CONFIGS / "jepa-scibert.yaml").sigreg.trapezoid == "lejepa"
    assert load_config(JepaConfig, CONFIGS / "jepa-scibert.yaml", {"sigreg.trapezoid": "plain"}).sigreg.trapezoid \
        == "plain"
    assert InfoNCELossConfig().denominator == "same_view"
    assert load_config(InfoNCEConfig, CONFIGS / "infonce-scibert.yaml").infonce.denominator == "same_view"


@pytest.fixture(scope="module")
def tiny_pair(tiny_bert):
    """A tiny BERT with mean pooling (eval mode: no dropout) and two tokenized batches (context, target)."""
    from sciembed.training.config import ModelConfig
    from sciembed.training.model import build_model

    model = build_model(ModelConfig(base=str(tiny_bert), max_seq_length=32), device="cpu").eval()
    context = model.preprocess(["t1w1 t1w2 c3 t1w4", "t2w5 c1 t2w7", "t3w1 t3w2", "t4w3 c9 c8"])
    target = model.preprocess(["method t1w3 t1w5", "method t2w1", "method t3w9 c2", "method t4w4"])
    return model, context, target


def test_the_same_view_default_scores_contexts_against_contexts(tiny_pair):
    model, context, target = tiny_pair
    default = SectionInfoNCELoss(model, total_steps=10)
    same = SectionInfoNCELoss(model, total_steps=10, denominator="same_view")
    cross = SectionInfoNCELoss(model, total_steps=10, denominator="cross_view")
    assert default.denominator == "same_view"
    with torch.no_grad():
        d, s, c = (loss([dict(context), dict(target)]).item() for loss in (default, same, cross))
    assert d == pytest.approx(s) and d != pytest.approx(c)

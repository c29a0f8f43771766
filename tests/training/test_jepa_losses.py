"""SIGReg, the predictive loss, the predictor, the EMA update and the schedules, on plain tensors and a
tiny random-init BERT (no training run)."""

from __future__ import annotations

import copy

import pytest
import torch

from sciembed.training.ema import EMACallback, ema_update
from sciembed.training.losses import PredictiveLoss, SectionInfoNCELoss, SIGReg
from sciembed.training.losses.sigreg import TRAPEZOID_SCALE, epps_pulley_weights, slice_directions
from sciembed.training.predictor import ResidualPredictor
from sciembed.training.schedules import momentum_at, temperature_at


def gaussian(n: int = 512, d: int = 64, seed: int = 0) -> torch.Tensor:
    return torch.randn(n, d, generator=torch.Generator().manual_seed(seed))


def test_sigreg_is_small_on_gaussian_and_large_on_collapsed_and_anisotropic_samples():
    sigreg = SIGReg(slices=256)
    g = gaussian()
    near_zero = sigreg(g, step=0).item()
    collapsed = sigreg(torch.ones(512, 64) * 3.0, step=0).item()
    low_rank = sigreg(gaussian(512, 2) @ gaussian(2, 64, seed=1) + 1e-3 * gaussian(seed=2), step=0).item()
    one_factor = sigreg(gaussian() + 5 * gaussian(512, 1, seed=3), step=0).item()  # strongly correlated dims
    assert near_zero < 1.0
    assert collapsed > 50 * near_zero and low_rank > 20 * near_zero and one_factor > 10 * near_zero
    # axis-aligned scale differences alone are removed by the per-dimension standardisation
    assert sigreg(gaussian() * torch.logspace(0, 1, 64), step=0).item() < 2.0


def test_sigreg_collapsed_value_matches_the_closed_form():
    """All rows equal: every projection is 0, so the statistic is N Σ w (1 − e^{−t²/2})²."""
    t, w = epps_pulley_weights()
    expected = 100 * float((w * (1 - torch.exp(-0.5 * t**2)) ** 2).sum())
    assert SIGReg(slices=8)(torch.ones(100, 16), step=3).item() == pytest.approx(expected, rel=1e-5)


def test_trapezoid_convention_is_lejepas_and_documented():
    t, w = epps_pulley_weights(knots=17, t_max=3.0)
    dt = 3.0 / 16
    assert TRAPEZOID_SCALE == 2.0
    assert t[0] == 0 and t[-1] == pytest.approx(3.0)
    assert w[0].item() == pytest.approx(dt)  # endpoints Δt, interior 2Δt (× exp(−t²/2))
    assert w[1].item() == pytest.approx(2 * dt * float(torch.exp(-0.5 * t[1] ** 2)))


def test_sigreg_gradient_is_finite_also_for_collapsed_input():
    for x in (gaussian(64, 32), torch.ones(64, 32)):
        x = x.clone().requires_grad_(True)
        SIGReg(slices=32)(x, step=1).backward()
        assert x.grad is not None and torch.isfinite(x.grad).all()


def test_sigreg_gradient_is_finite_with_a_dimension_constant_over_the_batch():
    """A dimension that is exactly 0 in every row (MiniLM's embeddings of ACL section pairs had two) has zero
    variance: its square root's derivative is infinite, and the gradient was NaN for every weight of the
    encoder from the first step, so a `jepa` run trained into NaN vectors."""
    x = gaussian(64, 32)
    x[:, 5] = 0.0
    x = x.clone().requires_grad_(True)
    value = SIGReg(slices=32)(x, step=1)
    value.backward()
    assert torch.isfinite(value) and torch.isfinite(x.grad).all()


def test_sigreg_slices_are_reproducible_from_the_step():
    a, b = slice_directions(32, 16, step=7), slice_directions(32, 16, step=7)
    assert torch.equal(a, b)
    assert not torch.allclose(a, slice_directions(32, 16, step=8))
    assert torch.allclose(a.norm(dim=0), torch.ones(16))
    sigreg = SIGReg(slices=16)
    x = gaussian(128, 32)
    sigreg.step = 7
    assert sigreg(x).item() == sigreg(x, step=7).item() != sigreg(x, step=8).item()


def test_sigreg_runs_in_float32_under_autocast():
    x = gaussian(64, 32).to(torch.bfloat16)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        value = SIGReg(slices=16)(x, step=0)
    assert value.dtype == torch.float32


def test_predictor_is_the_identity_at_initialisation():
    predictor = ResidualPredictor(32, hidden=64)
    h = gaussian(8, 32)
    assert torch.equal(predictor({"sentence_embedding": h.clone()})["sentence_embedding"], h)
    assert predictor.net[-1].weight.abs().sum() == 0
    with pytest.raises(ValueError, match="must be > 0"):
        ResidualPredictor(32, hidden=0)


def test_ema_update_matches_the_formula():
    online, target = torch.nn.Linear(4, 3), torch.nn.Linear(4, 3)
    before = [p.detach().clone() for p in target.parameters()]
    ema_update(target, online, 0.9)
    for t, b, o in zip(target.parameters(), before, online.parameters(), strict=True):
        torch.testing.assert_close(t, 0.9 * b + 0.1 * o.detach())


def test_momentum_schedule_hits_its_ends():
    assert momentum_at(0, 100) == pytest.approx(0.996)
    assert momentum_at(100, 100) == pytest.approx(0.999)
    assert 0.996 < momentum_at(50, 100) < 0.999
    ema = EMACallback(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2))
    assert ema.momentum(1, 40) == pytest.approx(0.996)  # the update after the first step
    assert ema.momentum(40, 40) == pytest.approx(0.999)  # the update after the last step
    values = [ema.momentum(s, 40) for s in range(1, 41)]
    assert values == sorted(values)


def test_infonce_temperature_follows_its_ramp():
    assert temperature_at(0, 100, 10) == temperature_at(10, 100, 10) == 0.05
    assert temperature_at(55, 100, 10) == pytest.approx(0.075)
    assert temperature_at(100, 100, 10) == pytest.approx(0.1)
    values = [temperature_at(s, 100, 10) for s in range(101)]
    assert values == sorted(values)


@pytest.fixture(scope="module")
def tiny_pair(tiny_bert):
    """A tiny BERT with mean pooling and two tokenized batches (context, target)."""
    from sciembed.training.config import ModelConfig
    from sciembed.training.model import build_model

    model = build_model(ModelConfig(base=str(tiny_bert), max_seq_length=32), device="cpu")
    context = model.preprocess(["t1w1 t1w2 c3 t1w4", "t2w5 c1 t2w7", "t3w1 t3w2", "t4w3 c9 c8"])
    target = model.preprocess(["method t1w3 t1w5", "method t2w1", "method t3w9 c2", "method t4w4"])
    return model, context, target


def test_target_never_receives_gradients(tiny_pair):
    model, context, target_batch = tiny_pair
    target = copy.deepcopy(model)
    predictor = ResidualPredictor(32, hidden=16)
    loss = PredictiveLoss(model, predictor, target, sigreg_lambda=0.01, sigreg=SIGReg(slices=8))
    terms = loss([dict(context), dict(target_batch)])
    assert set(terms) == {"prediction", "sigreg"}
    sum(terms.values()).backward()
    assert all(p.grad is None and not p.requires_grad for p in target.parameters())
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())
    assert any(p.grad is not None for p in predictor.parameters())
    model.zero_grad()
    # plain JEPA: no SIGReg term at all
    assert set(PredictiveLoss(model, predictor, target, 0.0)([dict(context), dict(target_batch)])) == {"prediction"}
    with pytest.raises(ValueError, match="≥ 0"):
        PredictiveLoss(model, predictor, target, -0.1)


def test_infonce_denominators(tiny_pair):
    model, context, target = tiny_pair
    cross = SectionInfoNCELoss(model, total_steps=10, denominator="cross_view")
    same = SectionInfoNCELoss(model, total_steps=10, denominator="same_view")
    a, b = cross([dict(context), dict(target)]), same([dict(context), dict(target)])
    assert torch.isfinite(a) and torch.isfinite(b) and a.item() != pytest.approx(b.item())
    cross.set_step(10)
    assert cross.temperature == pytest.approx(0.1)

"""Weight-space interpolation of a fine-tuned encoder with its base (WiSE-FT).

θ = (1 − α) · θ_base + α · θ_trained over the transformer's weights, the rest (pooling, a head) from the
trained model. Wortsman et al. (CVPR 2022) show α ≈ 0.5 keeps most of the fine-tuning gain while recovering
the base's robustness elsewhere (here: general scientific semantics, SciTLDR). No dependency does this for
sentence-transformers models.
"""

from __future__ import annotations

from pathlib import Path

from sciembed.errors import SciembedInputError


class InterpolationError(SciembedInputError, ValueError):
    """Two models whose shared weights do not line up; the message names the first mismatch."""


def interpolate_with_base(trained: str | Path, base: str | None, alpha: float, out: str | Path) -> Path:
    """Save ``(1 − alpha) · base + alpha · trained`` as a sentence-transformers model at `out`."""
    import torch
    from sentence_transformers import SentenceTransformer

    from sciembed.models.loading import load_sentence_transformer
    from sciembed.training.trainer import save_model_atomically

    if not 0.0 <= alpha <= 1.0:
        raise InterpolationError(f"alpha must be within [0, 1], got {alpha}")
    model = SentenceTransformer(str(trained), device="cpu")
    reference, source = load_sentence_transformer(base, device="cpu")
    base_weights = reference[0].auto_model.state_dict()
    own = model[0].auto_model.state_dict()
    if set(own) != set(base_weights):
        missing = sorted(set(own) ^ set(base_weights))[:3]
        raise InterpolationError(f"{trained} and {source} have different transformer weights (e.g. {missing})")
    mixed = {}
    for name, tensor in own.items():
        other = base_weights[name]
        if tensor.shape != other.shape:
            raise InterpolationError(f"{name}: shape {tuple(tensor.shape)} in {trained}, {tuple(other.shape)} "
                                     f"in {source}")
        mixed[name] = torch.lerp(other.to(tensor.dtype), tensor, alpha) if tensor.is_floating_point() else tensor
    model[0].auto_model.load_state_dict(mixed)
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    save_model_atomically(model, target)
    return target

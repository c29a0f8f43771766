"""Activation bytes autograd keeps for a BERT-style encoder (the memory estimate's activation rows).

Counted per tensor after Korthikanti et al. 2022 (the tensors are listed in docs/scale.md); a·s² attention
tensors only where attention is materialised. Gradient checkpointing keeps each layer's fp32 input and
recomputes one layer in the backward pass.
"""

from __future__ import annotations

from sciembed.training.model_architecture import Architecture

FP32 = 4
MASK = 1  # a dropout mask is a bool tensor


def _act_bytes(precision: str) -> int:
    return 2 if precision in ("bf16", "fp16") else FP32


def materialised_attention(arch: Architecture, target: str) -> bool:
    """Whether a·s² attention tensors are kept: DeBERTa always; on CPU when attention dropout is on (PyTorch's
    CPU flash kernel takes no dropout, so SDPA falls back to the math path); never with CUDA's fused kernels."""
    if arch.always_materialises_attention:
        return True
    return target == "cpu" and arch.attention_dropout > 0


def layer_bytes(arch: Architecture, seq: int, texts: int, precision: str, target: str) -> int:
    """Bytes autograd keeps for one transformer layer over `texts` sequences of `seq` tokens."""
    e = _act_bytes(precision)
    mixed = e != FP32
    h, i, a = arch.hidden, arch.intermediate, arch.heads
    mask = MASK if arch.hidden_dropout > 0 else 0
    qkv_input = (1 if arch.fused_qkv or not mixed else 3) * e  # autocast casts the fp32 input once per projection
    rotary = 2 * e if arch.model_type == "modernbert" else 0  # rotated Q and K beside the projections
    attention = qkv_input + 3 * e + rotary + e + mask + FP32  # + Q, K, V, context, dropout mask, LayerNorm input
    mlp = e + mask + FP32  # MLP input, dropout mask, LayerNorm input
    per_token = h * (attention + mlp) + i * e * (4 if arch.glu else 2)
    scores = 0
    if materialised_attention(arch, target):
        keep = e + (MASK + e if arch.attention_dropout > 0 else 0)  # softmax output (+ dropout mask and output)
        scores = a * seq * seq * keep
    return texts * (seq * per_token + scores)


def encoder_activation_bytes(arch: Architecture, seq: int, texts: int, precision: str, target: str,
                             checkpointing: bool) -> tuple[int, int]:
    """(kept by autograd over the forward, backward work space) for one grad-enabled encoder pass."""
    layer = layer_bytes(arch, seq, texts, precision, target)
    h = arch.hidden
    embeddings = texts * seq * h * (FP32 + (MASK if arch.hidden_dropout > 0 else 0))
    output = texts * seq * h * FP32  # the last hidden states the pooling keeps
    mask = texts * seq * seq * FP32 * (2 if arch.model_type == "modernbert" else 1)  # 4-D attention mask(s)
    if checkpointing:
        kept = embeddings + arch.layers * texts * seq * h * FP32 + output + mask
        return kept, layer  # the recomputed layer (its gradients replace its tensors as they are freed)
    return embeddings + arch.layers * layer + output + mask, layer // 2  # gradients of the layer in flight


def inference_bytes(arch: Architecture, seq: int, texts: int, precision: str, target: str) -> int:
    """Peak of a no-grad forward pass: about one layer's tensors alive at once."""
    return layer_bytes(arch, seq, texts, precision, target)

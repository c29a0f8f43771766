"""The encode batch size: chosen from the free GPU memory on CUDA, a fixed 32 on CPU.

Per text, inference keeps about one layer's tensors: tokens × (5 × hidden + 2 × intermediate) × 2 bytes
(bf16), × 2 headroom (mask, pooling, allocator slack). A batch takes at most half the free memory, so
training's own memory keeps its room.
"""

from __future__ import annotations

from typing import Any

CPU_BATCH = 32
MAX_BATCH = 1024
SHARE_OF_FREE = 0.5
HEADROOM = 2


def per_text_bytes(config: Any, seq: int, element: int = 2) -> int:
    """Bytes one text of `seq` tokens needs at inference (see the module docstring)."""
    hidden = int(getattr(config, "hidden_size", 768))
    intermediate = int(getattr(config, "intermediate_size", 4 * hidden))
    return HEADROOM * seq * (5 * hidden + 2 * intermediate) * element


def batch_for(free_bytes: int, per_text: int) -> int:
    """The largest power of two ≤ MAX_BATCH whose batch fits `SHARE_OF_FREE` of `free_bytes` (at least 1)."""
    fits = max(1, int(free_bytes * SHARE_OF_FREE) // max(per_text, 1))
    size = 1
    while size * 2 <= min(fits, MAX_BATCH):
        size *= 2
    return size


def auto_batch_size(model: Any, seq: int) -> int:
    """`CPU_BATCH` unless `model` (a SentenceTransformer) sits on a CUDA device; then from its free memory."""
    device = getattr(model, "device", None)
    if getattr(device, "type", "cpu") != "cuda":
        return CPU_BATCH
    import torch

    free, _total = torch.cuda.mem_get_info(device)
    first = model[0] if len(model) else None
    config = getattr(getattr(first, "auto_model", None), "config", None)
    return batch_for(free, per_text_bytes(config, seq))

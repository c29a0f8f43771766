"""ONNX Runtime backend: export once per weights identity, optionally int8-quantize, reuse.

The export lives in ``<cache_root>/onnx/<weights hash>/`` as a complete
sentence-transformers directory (tokenizer, pooling, ``onnx/model.onnx``), so
later loads skip the export. Quantization is dynamic (no calibration data),
via sentence-transformers' `export_dynamic_quantized_onnx_model`; the int8
file sits next to the float one. Exports are written to a temporary directory
and renamed into place, so a crashed or concurrent export never leaves a half
directory that looks complete.
"""

from __future__ import annotations

import hashlib
import logging
import os
import platform
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

FLOAT_FILE = "onnx/model.onnx"


def default_cache_root() -> Path:
    """``$SCIEMBED_CACHE`` or ``~/.cache/sciembed``: where exports go when no cache dir is given."""
    return Path(os.environ.get("SCIEMBED_CACHE", Path.home() / ".cache" / "sciembed")).expanduser()


def cpu_quantization_config() -> str:
    """The int8 config suited to this CPU: arm64, avx512_vnni when the CPU has VNNI, else avx2."""
    if platform.machine().lower() in {"arm64", "aarch64"}:
        return "arm64"
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "avx2"
    return "avx512_vnni" if "avx512_vnni" in flags else "avx2"


def quantized_file(config: str) -> str:
    """The file sentence-transformers writes for `config`: its weight type is part of the name
    (``qint8`` for avx512_vnni and arm64, ``quint8`` for avx2)."""
    from optimum.onnxruntime import AutoQuantizationConfig

    weights = getattr(AutoQuantizationConfig, config)(is_static=False).weights_dtype.name.lower()
    return f"onnx/model_{weights}_{config}.onnx"


def export_dir_for(weights_id: str, cache_root: Path) -> Path:
    return cache_root / "onnx" / hashlib.sha256(weights_id.encode()).hexdigest()[:24]


def _session_options() -> Any:
    """ONNX Runtime threads follow torch's setting, so one knob (`torch.set_num_threads`) governs both backends."""
    import onnxruntime as ort
    import torch

    options = ort.SessionOptions()
    options.intra_op_num_threads = torch.get_num_threads()
    return options


@contextmanager
def _quiet_export_advice() -> Iterator[None]:
    """sentence-transformers advises saving an export we are about to save; keep that off the console."""
    logger = logging.getLogger("sentence_transformers.backend")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _export_float(source: str, target: Path, *, local_files_only: bool) -> None:
    from sentence_transformers import SentenceTransformer

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".export-", dir=target.parent))
    try:
        with _quiet_export_advice():
            model = SentenceTransformer(source, backend="onnx", device="cpu", local_files_only=local_files_only)
        model.save_pretrained(str(tmp))
        if not (tmp / FLOAT_FILE).is_file():
            raise RuntimeError(f"ONNX export of {source} wrote no {FLOAT_FILE} in {tmp}")
        try:
            tmp.rename(target)
        except OSError:
            if not (target / FLOAT_FILE).is_file():  # lost a race only if the winner finished
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _export_quantized(export_dir: Path, config: str) -> None:
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.backend import export_dynamic_quantized_onnx_model

    model = SentenceTransformer(
        str(export_dir), backend="onnx", device="cpu", local_files_only=True, model_kwargs={"file_name": FLOAT_FILE}
    )
    export_dynamic_quantized_onnx_model(model, config, str(export_dir))


def load_onnx_model(
    source: str,
    weights_id: str,
    *,
    quantize: bool = False,
    cache_root: Path | None = None,
    device: str | None = None,
    local_files_only: bool = True,
) -> tuple[SentenceTransformer, str | None]:
    """The ONNX model for `source` (exported on first use) and its quantization config (None for float)."""
    from sentence_transformers import SentenceTransformer

    export_dir = export_dir_for(weights_id, cache_root or default_cache_root())
    if not (export_dir / FLOAT_FILE).is_file():
        _export_float(source, export_dir, local_files_only=local_files_only)
    config = cpu_quantization_config() if quantize else None
    file_name = quantized_file(config) if config else FLOAT_FILE
    if config and not (export_dir / file_name).is_file():
        _export_quantized(export_dir, config)
    model = SentenceTransformer(
        str(export_dir),
        backend="onnx",
        device=device,
        local_files_only=True,
        model_kwargs={"file_name": file_name, "session_options": _session_options()},
    )
    return model, config

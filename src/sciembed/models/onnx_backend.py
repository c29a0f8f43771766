"""ONNX Runtime backend: export once per weights identity to ``<cache_root>/onnx/<weights hash>/``, reuse.

Exports are complete sentence-transformers directories, written under a temporary name and renamed into
place (a crashed or concurrent export never leaves a half file). A quantization is named by the label the
index manifest stores: ``o2-<cpu>`` (what ``--quantize`` means: Optimum's O2 fusions, then int8 per channel
with ONNX Runtime's `quantize_dynamic`, reduced range on avx2) or ``<cpu>`` (sentence-transformers'
`export_dynamic_quantized_onnx_model`, indexes before 2026-11-29). Measurements: docs/models.md.
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


OPTIMIZED = "o2-"  # label prefix of the fused-then-quantized files
CPU_CONFIGS = ("avx2", "avx512", "avx512_vnni", "arm64")


def default_quantization() -> str:
    """The label `quantize=True` means on this machine: the fused graph, int8 for this CPU."""
    return OPTIMIZED + cpu_quantization_config()


def check_quantization(label: str) -> str:
    """`label` if it names a quantization this module writes, else a ValueError listing them."""
    if label.removeprefix(OPTIMIZED) not in CPU_CONFIGS:
        known = ", ".join(f"{OPTIMIZED}{c}" for c in CPU_CONFIGS) + ", " + ", ".join(CPU_CONFIGS)
        raise ValueError(f"unknown quantization {label!r}; expected one of {known}")
    return label


def _int8_config(cpu: str) -> Any:
    from optimum.onnxruntime import AutoQuantizationConfig

    return getattr(AutoQuantizationConfig, cpu)(is_static=False)


def quantized_file(label: str) -> str:
    """The int8 file of quantization `label`: its weight type is part of the name (``qint8`` for avx512_vnni
    and arm64, ``quint8`` for avx2), e.g. ``onnx/model_quint8_o2-avx2.onnx`` or (sentence-transformers'
    name) ``onnx/model_quint8_avx2.onnx``."""
    weights = _int8_config(check_quantization(label).removeprefix(OPTIMIZED)).weights_dtype.name.lower()
    return f"onnx/model_{weights}_{label}.onnx"


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
    """sentence-transformers advises saving an export we are about to save, and ONNX Runtime's quantizer to
    pre-process first (through the root logger, which it would also configure); keep both off the console."""
    loggers = [logging.getLogger("sentence_transformers.backend"), logging.getLogger()]
    levels = [logger.level for logger in loggers]
    placeholder = logging.NullHandler()  # a root handler, so `logging.warning` does not call basicConfig
    logging.getLogger().addHandler(placeholder)
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logging.getLogger().removeHandler(placeholder)
        for logger, level in zip(loggers, levels, strict=True):
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


def _export_quantized(export_dir: Path, label: str) -> None:
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.backend import export_dynamic_quantized_onnx_model

    model = SentenceTransformer(str(export_dir), backend="onnx", device="cpu", local_files_only=True,
                                model_kwargs={"file_name": FLOAT_FILE})
    if not label.startswith(OPTIMIZED):
        export_dynamic_quantized_onnx_model(model, label, str(export_dir))
        return
    _export_fused_int8(model, export_dir, label)


def _export_fused_int8(model: SentenceTransformer, export_dir: Path, label: str) -> None:
    """O2-fuse the float graph (in a scratch directory), quantize it to int8 per channel, rename into place."""
    import onnx
    from onnxruntime.quantization import quantize_dynamic
    from sentence_transformers.backend import export_optimized_onnx_model

    cpu = label.removeprefix(OPTIMIZED)
    config = _int8_config(cpu)
    target = export_dir / quantized_file(label)
    scratch = Path(tempfile.mkdtemp(prefix=".fuse-", dir=export_dir))
    try:
        with _quiet_export_advice():
            export_optimized_onnx_model(model, "O2", str(scratch))
            partial = scratch / target.name
            quantize_dynamic(
                scratch / "onnx" / "model_O2.onnx",
                partial,
                weight_type=config.weights_dtype,  # Optimum's config holds ONNX Runtime's QuantType
                per_channel=True,
                reduce_range=cpu in ("avx2", "avx512"),  # no VNNI: u8 x s8 products can saturate at full range
                op_types_to_quantize=list(config.operators_to_quantize),
                extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},  # fused ops have no inferred type
            )
        partial.replace(target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def load_onnx_model(source: str, weights_id: str, *, quantize: bool | str = False, cache_root: Path | None = None,
                    device: str | None = None, local_files_only: bool = True) -> tuple[SentenceTransformer, str | None]:
    """The ONNX model for `source` (exported on first use) and its quantization label (None for float).

    `quantize`: False (float), True (`default_quantization`) or a label (an index's stored quantization)."""
    from sentence_transformers import SentenceTransformer

    export_dir = export_dir_for(weights_id, cache_root or default_cache_root())
    if not (export_dir / FLOAT_FILE).is_file():
        _export_float(source, export_dir, local_files_only=local_files_only)
    config = (check_quantization(quantize) if isinstance(quantize, str) else
              default_quantization() if quantize else None)
    file_name = quantized_file(config) if config else FLOAT_FILE
    if config and not (export_dir / file_name).is_file():
        try:
            _export_quantized(export_dir, config)
        except (KeyError, NotImplementedError, ValueError) as exc:
            if quantize is not True:
                raise
            # Optimum's fusions know common architectures only; others get the plain int8 file
            logging.getLogger(__name__).warning("no O2 fusions for %s (%s); int8 without them", source, exc)
            config = config.removeprefix(OPTIMIZED)
            file_name = quantized_file(config)
            if not (export_dir / file_name).is_file():
                _export_quantized(export_dir, config)
    model = SentenceTransformer(str(export_dir), backend="onnx", device=device, local_files_only=True,
                                model_kwargs={"file_name": file_name, "session_options": _session_options()})
    return model, config

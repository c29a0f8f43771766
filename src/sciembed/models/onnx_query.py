"""Query vectors for an index built with the ONNX backend, from ONNX Runtime and `tokenizers` alone.

A new `index search --query TEXT` process would spend most of its time importing sentence-transformers to
encode one short text. `onnx_query_encoder` reads the index's ONNX export (tokenizer, model file, pooling)
and encodes as sentence-transformers does (truncation, mean pooling, L2 normalisation); for any other
shape (CLS pooling, a prompt, an unknown module) it returns None and the caller loads the full encoder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

KNOWN_MODULES = ("Transformer", "Pooling", "Normalize")
QUERY_BATCH = 32  # texts per ONNX Runtime call: a file of many long queries is never one padded batch


class OnnxQueryEncoder:
    """`encode(texts)` like the index's encoder; `fingerprint`, `dim`, `metric` from the index manifest."""

    def __init__(self, export_dir: Path, model_file: Path, settings: dict[str, Any], normalize: bool) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # one short query: threads cost more than they give
        self.session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(export_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=int(settings["max_seq_length"]))
        self.tokenizer.enable_padding()
        self.prefix = settings.get("prefix") or ""
        self.normalize = normalize or settings.get("metric") == "cosine"
        self.name, self.fingerprint = settings.get("name", "onnx"), settings["fingerprint"]
        self.dim, self.metric = int(settings["dim"]), settings["metric"]
        self.max_seq_length = int(settings["max_seq_length"])

    def encode(self, texts: list[str], *, batch_size: int | None = None, show_progress: bool = False) -> np.ndarray:
        """Vectors of `texts`, `batch_size` (default `QUERY_BATCH`) per call, in input order."""
        size = batch_size or QUERY_BATCH
        if len(texts) > size:
            return np.concatenate([self.encode(texts[i : i + size], batch_size=size)
                                   for i in range(0, len(texts), size)])
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        batch = self.tokenizer.encode_batch([self.prefix + t for t in texts])
        ids = np.asarray([e.ids for e in batch], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in batch], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.asarray([e.type_ids for e in batch], dtype=np.int64)
        tokens = self.session.run(None, feed)[0]  # (batch, length, dim)
        weights = mask[:, :, None].astype(np.float32)
        vectors = (tokens * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        if self.normalize:
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors.astype(np.float32)


def onnx_query_encoder(settings: dict[str, Any], cache_dir: Path | None) -> OnnxQueryEncoder | None:
    """The light encoder for an index's encoder `settings` (its manifest's), or None where it does not apply."""
    if (settings.get("backend") != "onnx" or settings.get("adapter") or settings.get("trust_remote_code")
            or settings.get("pooling") not in (None, "mean")):
        return None
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401

        from sciembed.models.loading import weights_identity
        from sciembed.models.onnx_backend import FLOAT_FILE, default_cache_root, export_dir_for

        export = export_dir_for(weights_identity(settings["source"]), cache_dir or default_cache_root())
        modules = json.loads((export / "modules.json").read_text())
        kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
        pooling = json.loads((export / "1_Pooling" / "config.json").read_text())
    except (ImportError, OSError, ValueError, KeyError, IndexError):
        return None
    mean = pooling.get("pooling_mode") == "mean" or pooling.get("pooling_mode_mean_tokens") is True
    if kinds[:2] != ["Transformer", "Pooling"] or any(k not in KNOWN_MODULES for k in kinds) or not mean:
        return None
    if pooling.get("include_prompt") is False:
        return None
    quantization = settings.get("quantization")
    if settings.get("quantize"):
        found = sorted((export / "onnx").glob(f"model_*_{quantization}.onnx")) if quantization else []
        if len(found) != 1:
            return None
        model_file = found[0]
    else:
        model_file = export / FLOAT_FILE
    if not model_file.is_file() or not (export / "tokenizer.json").is_file():
        return None
    return OnnxQueryEncoder(export, model_file, settings, normalize="Normalize" in kinds)

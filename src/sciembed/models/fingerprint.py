"""Stable identities of model weights, used as keys for embedding caches and indexes.

Local models are identified by the content of the files that determine their output (size and mtime
would miss a same-sized overwrite), memoised per path while each file's inode, size, mtime and ctime stay
the same (ctime cannot be set back, so any rewrite forces a re-hash).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

# Files that do not change what the torch model computes: docs, git metadata,
# derived exports (ONNX / OpenVINO) and weights of other frameworks.
_IGNORED_DIRS = {"onnx", "openvino", ".git", ".cache", "__pycache__"}
_IGNORED_SUFFIXES = {".md", ".onnx", ".onnx_data", ".xml", ".h5", ".msgpack", ".ot", ".lock", ".metadata"}
_IGNORED_NAMES = {".gitattributes", "training_args.bin", "optimizer.pt", "scheduler.pt", "rng_state.pth"}

_MEMO: dict[tuple[str, tuple[tuple[str, int, int, int, int], ...]], str] = {}


def _relevant_files(root: Path) -> list[Path]:
    files = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if not path.is_file() or any(part in _IGNORED_DIRS for part in rel.parts[:-1]):
            continue
        if path.suffix in _IGNORED_SUFFIXES or path.name in _IGNORED_NAMES:
            continue
        files.append(path)
    return files


def _file_digest(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def directory_fingerprint(root: str | Path) -> str:
    """Content hash of a model directory's weight and config files (memoised per file state)."""
    root = Path(root).resolve()
    files = _relevant_files(root)
    if not files:
        raise FileNotFoundError(f"{root}: no model files to fingerprint")
    stats = [(p, p.stat()) for p in files]
    state = tuple((str(p.relative_to(root)), s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns) for p, s in stats)
    key = (str(root), state)
    if key not in _MEMO:
        digest = hashlib.blake2b(digest_size=16)
        for path in files:
            digest.update(f"{path.relative_to(root)}\0{_file_digest(path)}\n".encode())
        _MEMO[key] = "dir:" + digest.hexdigest()
    return _MEMO[key]


def hub_fingerprint(repo_id: str, *, local_files_only: bool) -> str:
    """Hub id + commit: the snapshot directory that `config.json` resolves to is named by the commit hash."""
    from huggingface_hub import hf_hub_download

    config = hf_hub_download(repo_id, "config.json", local_files_only=local_files_only)
    return f"hub:{repo_id}@{Path(config).parent.name}"


def module_fingerprint(model: Any) -> str:
    """Content hash of an in-memory model's tensors and module configuration (recomputed on every call)."""
    import torch

    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr(model).encode())
    for name, tensor in sorted(model.state_dict().items()):
        array = tensor.detach().cpu().contiguous()
        digest.update(f"{name}:{tuple(array.shape)}:{array.dtype}\n".encode())
        digest.update(array.view(-1).view(dtype=torch.uint8).numpy().tobytes())
    onnx_path = getattr(getattr(model[0], "auto_model", None), "model_path", None)
    if onnx_path is not None and Path(onnx_path).is_file():
        digest.update(_file_digest(Path(onnx_path)).encode())
    return "mem:" + digest.hexdigest()


def combine(parts: dict[str, Any]) -> str:
    """One short stable hash of named parts (order-independent)."""
    payload = json.dumps(parts, sort_keys=True, default=str).encode()
    return hashlib.sha256(payload).hexdigest()[:32]

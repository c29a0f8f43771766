"""Joining a Ray cluster (the optional `ray` extra) for ingest and encode; Ray is imported only with ``--ray``."""

from __future__ import annotations

import os
from typing import Any

from sciembed.errors import SciembedInputError

PASSED_ENV = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "TOKENIZERS_PARALLELISM", "HF_HOME")
INSTALL_HINT = 'Ray is not installed: pip install "sciembed[ray]" (or pip install "ray[data]>=2.9")'


class RayUnavailable(SciembedInputError, RuntimeError):
    """Ray is not installed, or no cluster answers at the address given (a usage error: exit 2)."""


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise RayUnavailable(INSTALL_HINT) from exc
    return ray


def connect(address: str) -> bool:
    """Join the Ray cluster at `address` ("auto": the running one; "local": start one in this process), unless one
    is joined already; whether this call connected (and should `ray.shutdown`). Workers get the HF offline env."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    env = {name: os.environ[name] for name in PASSED_ENV if name in os.environ}
    kwargs: dict[str, Any] = {"runtime_env": {"env_vars": env}, "log_to_driver": False}
    try:
        if address == "local":
            ray.init(**kwargs)
        else:
            ray.init(address=address, **kwargs)
    except ConnectionError as exc:
        raise RayUnavailable(f"--ray {address}: no Ray cluster to join ({exc}); start one with `ray start --head`, "
                              "or pass --ray local to start one in this process") from exc
    return True


def cluster_cpus() -> int:
    ray = import_ray()
    return max(1, int(ray.cluster_resources().get("CPU", 1)))

"""Shared test settings: never touch the network; point at the shared sample data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# CI checks the repository out with shared/ beside it; SCIEMBED_SHARED_DATA points elsewhere.
SHARED_DATA = Path(os.environ.get("SCIEMBED_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.exists():
        pytest.fail(f"shared sample data not found at {SHARED_DATA}")
    return SHARED_DATA

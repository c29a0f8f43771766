"""A fake OpenAI-compatible server on 127.0.0.1 (free port) per test; no test touches the network."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fakes.llm_server import FakeLLMServer


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(timeout_delay_s=1.0).running() as server:
        yield server

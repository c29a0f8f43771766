from __future__ import annotations

from collections.abc import Iterator

import pytest

from fakes.llm_server import FakeLLMServer


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(timeout_delay_s=1.0).running() as server:
        yield server

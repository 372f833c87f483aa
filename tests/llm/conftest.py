from collections.abc import AsyncIterator

import pytest

from fault_server import FaultServer


@pytest.fixture
async def fault_server() -> AsyncIterator[FaultServer]:
    """A scripted OpenAI/Anthropic-compatible HTTP server on 127.0.0.1, in the test's loop."""
    async with FaultServer() as server:
        yield server

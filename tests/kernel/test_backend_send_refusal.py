"""A backend may refuse a turn's input as ``send`` is called (``AgentBackend.send`` is a plain
call returning the turn's events), before it yields anything. The turn must end as a backend
failure does — its error and ``failed`` on the log, the stream ended, the header back to
``active`` — not stay running with its session busy for good."""

from __future__ import annotations

import asyncio
from typing import Any

from maka_runtime.kernel.core import BackendRegistry
from maka_runtime.kernel.store import MemorySessionStore
from tests.kernel.harness import build_harness, kinds


class RefusingBackend:
    """Refuses every input at the call itself."""

    kind = "refusing"

    def __init__(self, header: Any) -> None:
        self.header = header

    def send(self, send_input: Any) -> Any:
        raise RuntimeError("the backend refused the input")

    async def stop(self, reason: Any, mode: Any = None) -> None:
        return None

    async def respond_to_sandbox_boundary(self, response: Any) -> None:
        return None

    async def respond_to_user_question(self, response: Any) -> None:
        return None

    async def dispose(self) -> None:
        return None


async def test_a_send_refused_at_the_call_ends_the_turn_failed() -> None:
    store = MemorySessionStore()
    backends = BackendRegistry()
    backends.register("refusing", RefusingBackend)
    harness = build_harness(store, backends)
    try:
        session = await harness.session(backend="refusing")

        async def turn(turn_id: str) -> list[str]:
            stream = harness.kernel.start_turn(session.id, turn_id, text="hello")
            return [event.type async for event in stream]

        streamed = await asyncio.wait_for(turn("t1"), timeout=10)
        assert streamed == ["error", "turn_state"]
        log = kinds(await store.read_messages(session.id))
        assert log[-3:] == ["turn_state:running", "error", "turn_state:failed"]
        assert (await harness.kernel.get_session(session.id)).status == "active"
        # The session is free for the next turn, which ends the same way.
        assert await asyncio.wait_for(turn("t2"), timeout=10) == ["error", "turn_state"]
    finally:
        await harness.close()

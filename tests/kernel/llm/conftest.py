"""Fixtures of the LLM backend tests: the local chat server and a kernel with the llm backend."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from maka_runtime.kernel.backends.agent import SessionApprovals
from maka_runtime.kernel.backends.llm import KIND, LlmConnection, llm_factory
from maka_runtime.kernel.core import (
    BackendRegistry,
    SessionHeader,
    SessionStore,
    TurnStream,
)
from maka_runtime.kernel.core.log.events import SessionEvent, StoredMessage
from maka_runtime.kernel.core.tools import ToolHost
from maka_runtime.kernel.store import MemorySessionStore
from tests.kernel.harness import WORKSPACE, Harness, build_harness

from .server import MODEL, ChatServer

KEY_ENV = "MAKA_TEST_LLM_KEY"


@pytest.fixture
async def chat() -> AsyncIterator[ChatServer]:
    server = ChatServer()
    await server.start()
    yield server
    await server.close()


@dataclass
class LlmHarness(Harness):
    connections: dict[str, LlmConnection] | None = None

    async def llm_session(self, **fields: Any) -> SessionHeader:
        fields.setdefault("workspace_root", WORKSPACE)
        fields.setdefault("backend", KIND)
        return await self.session(**fields)

    async def log(self, session_id: str) -> list[StoredMessage]:
        return await self.store.read_messages(session_id)  # type: ignore[no-any-return]


def connection(server: ChatServer, **fields: Any) -> LlmConnection:
    fields.setdefault("slug", "local")
    fields.setdefault("model", MODEL)
    return LlmConnection(base_url=server.base_url, **fields)


def make_llm_harness(
    store: SessionStore,
    connections: Mapping[str, LlmConnection],
    *,
    host: ToolHost | None = None,
    answer_timeout: float | None = None,
    protected: tuple[str, ...] = (),
) -> LlmHarness:
    backends = BackendRegistry()
    backends.register(KIND, llm_factory(connections, host, SessionApprovals(protected)))
    base = build_harness(store, backends, answer_timeout=answer_timeout, tool_host=host)
    return LlmHarness(
        base.kernel, store, base.interactions, base.messages, base.timers, dict(connections)
    )


@pytest.fixture
async def llm(chat: ChatServer) -> AsyncIterator[LlmHarness]:
    """A kernel (memory store) whose llm backend has one connection, to the chat server."""
    h = make_llm_harness(MemorySessionStore(), {"local": connection(chat)})
    yield h
    await h.close()


async def events_until(stream: TurnStream, event_type: str) -> list[SessionEvent]:
    seen = []
    async for event in stream:
        seen.append(event)
        if event.type == event_type:
            return seen
    pytest.fail(f"stream ended before a {event_type} event: {[e.type for e in seen]}")

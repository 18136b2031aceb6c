"""A consumer that goes away while its turn is still starting (a cancelled StartTurn call)."""

from __future__ import annotations

import asyncio
from typing import Any

from maka_runtime.kernel.core import BackendRegistry, RuntimeKernel

from .fakes import SESSION_ID, BlockingBackend, Ids, spec_store, wait_for


async def test_a_consumer_cancelled_during_reservation_leaves_nothing_behind() -> None:
    store = await spec_store()
    backend = BlockingBackend(SESSION_ID)
    backends = BackendRegistry()
    backends.register("fake", lambda header: backend)
    reserved = asyncio.Event()
    release = asyncio.Event()

    async def held(operation: Any) -> Any:
        result = await operation()
        reserved.set()
        await release.wait()
        return result

    ids = Ids("abandon-id")
    kernel = RuntimeKernel(
        store=store, backends=backends, new_id=ids.new_id, now=ids.now, run_backend_activation=held
    )
    before = await store.last_seq(SESSION_ID)
    stream = kernel.start_turn(SESSION_ID, "t1", text="start")
    consumer = asyncio.ensure_future(anext(aiter(stream)))
    await reserved.wait()
    consumer.cancel()
    stopping = stream.abandon()
    release.set()
    assert stopping is not None
    outcome = await stopping
    assert outcome.turn_id == ""
    assert backend.send_calls == 0 and backend.stop_calls == []
    assert await store.last_seq(SESSION_ID) == before
    assert kernel.active_turn(SESSION_ID) is None
    await kernel.close()


async def test_a_consumer_cancelled_while_the_turn_begins_gets_it_stopped_on_the_record() -> None:
    store = await spec_store()
    backend = BlockingBackend(SESSION_ID)
    backends = BackendRegistry()
    backends.register("fake", lambda header: backend)
    marking = asyncio.Event()
    release = asyncio.Event()
    update_header = store.update_header

    async def slow_mark_running(session_id: str, patch: Any) -> Any:
        if patch.get("status") == "running":
            marking.set()
            await release.wait()
        return await update_header(session_id, patch)

    store.update_header = slow_mark_running  # type: ignore[method-assign]
    ids = Ids("abandon-begin-id")
    kernel = RuntimeKernel(store=store, backends=backends, new_id=ids.new_id, now=ids.now)
    stream = kernel.start_turn(SESSION_ID, "t1", text="start")
    consumer = asyncio.ensure_future(anext(aiter(stream)))
    await marking.wait()
    consumer.cancel()
    stopping = stream.abandon()
    assert stopping is not None
    release.set()
    outcome = await stopping
    assert (outcome.turn_id, outcome.source) == ("t1", "stream_abandoned")
    assert backend.send_calls == 0
    assert len(backend.stop_calls) == 1
    messages = await store.read_messages(SESSION_ID)
    aborted = [m for m in messages if m.type == "turn_state" and m.status == "aborted"]
    assert [m.abort_source for m in aborted] == ["stream_abandoned"]
    await wait_for(lambda: kernel.active_turn(SESSION_ID) is None)
    await kernel.close()

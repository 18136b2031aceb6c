"""A stop whose end of the turn the store refuses (a full disk): the turn's end is recorded
later, once the store takes writes again (``turns/turn_ends.py``), and whoever reads the turn's
stream is told it ended unrecorded, as when a turn's own end is refused — the stream must not
end as if the turn's end were on the log."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from maka_runtime.kernel.core.errors import PersistenceFailedError
from maka_runtime.kernel.core.log.events import StoredMessage
from maka_runtime.kernel.core.session import HeaderPatch
from maka_runtime.kernel.store import MemorySessionStore
from tests.kernel.harness import kinds, make_harness
from tests.kernel.test_kernel_turns import events_until


class RefusingTheAbort(MemorySessionStore):
    """Refuses to append a turn's ``aborted`` state while :attr:`full`."""

    def __init__(self) -> None:
        super().__init__()
        self.full = True
        #: The header patch each append of an ``aborted`` state carried, once taken.
        self.abort_headers: list[HeaderPatch | None] = []

    async def append_messages(
        self,
        session_id: str,
        messages: Sequence[StoredMessage],
        *,
        header: HeaderPatch | None = None,
    ) -> list[StoredMessage]:
        aborted = any(getattr(m, "status", "") == "aborted" for m in messages)
        if self.full and aborted:
            raise PersistenceFailedError("the disk is full")
        stamped = await super().append_messages(session_id, messages, header=header)
        if aborted:
            self.abort_headers.append(header)
        return stamped


async def test_a_refused_stop_end_ends_the_stream_with_that_error_and_lands_later() -> None:
    store = RefusingTheAbort()
    harness = make_harness(store)
    try:
        session = await harness.session()
        stream = harness.kernel.start_turn(session.id, "t1", text="/script say hi; hang")
        await events_until(stream, "text_delta")
        stopping = harness.kernel.stop_session(session.id, mode="immediate")
        with pytest.raises(PersistenceFailedError, match="the disk is full"):
            async for _ in stream:
                pass
        with pytest.raises(PersistenceFailedError):
            await stopping
        assert "turn_state:aborted" not in kinds(await store.read_messages(session.id))
        assert (await store.read_header(session.id)).status == "running"
        # Recorded late, once the store takes writes: its entries and header in one commit.
        watch = await harness.kernel.watch_session(session.id)
        store.full = False  # the retry (its first pause is 50 ms) now goes through

        async def until_aborted() -> None:
            async for entry in watch:
                if entry.type == "turn_state" and entry.status == "aborted":
                    return

        await asyncio.wait_for(until_aborted(), 30)
        [header] = store.abort_headers
        assert header is not None and header["status"] == "aborted"
        assert (await store.read_header(session.id)).status == "aborted"
    finally:
        await harness.close()

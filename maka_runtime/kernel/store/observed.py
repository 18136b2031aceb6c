"""The session store, observed: turns by state for the metrics, without touching the core.

Every turn's state change is a ``turn_state`` entry appended to its session's log (the store
is the one place all of them pass, the start-up sweep's included), so the store is where the
kernel's figures are read off: live turns and turns that reached a final state (how long a
stop takes is the ``StopSession`` call's own latency: an immediate stop answers once the turn
has ended). The figures go to a
:class:`TurnRecorder` (the server passes one over its Prometheus metrics); this module knows
nothing of Prometheus.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from maka_runtime.common.logs import log_context
from maka_runtime.common.sqlite import Synchronous
from maka_runtime.common.storage_root import RootLease
from maka_runtime.kernel.core.log.events import StoredMessage, TurnState
from maka_runtime.kernel.core.session import HeaderPatch
from maka_runtime.kernel.store.sqlite import SqliteSessionStore

__all__ = ["ObservedSessionStore", "TurnRecorder"]

log = logging.getLogger("maka.kernel.turns")


class TurnRecorder(Protocol):
    def turn_final(self, state: str) -> None:
        """A turn reached final *state*."""


class ObservedSessionStore(SqliteSessionStore):
    """:class:`SqliteSessionStore` that reports committed turn states to :attr:`recorder`."""

    recorder: TurnRecorder | None = None
    #: Turns whose last committed state is ``running`` (by id; read by the metrics).
    running: set[str]

    @classmethod
    async def open_observed(
        cls, lease: RootLease, *, synchronous: Synchronous = "NORMAL", header_cache_size: int = 1024
    ) -> ObservedSessionStore:
        store = await cls.open(lease, synchronous=synchronous, header_cache_size=header_cache_size)
        assert isinstance(store, ObservedSessionStore)
        return store

    async def append_messages(
        self,
        session_id: str,
        messages: Sequence[StoredMessage],
        *,
        header: HeaderPatch | None = None,
    ) -> list[StoredMessage]:
        stored = await super().append_messages(session_id, messages, header=header)
        for message in stored:
            if isinstance(message, TurnState):
                with log_context(session_id=session_id, turn_id=message.turn_id):
                    self._observe(message)
        return stored

    def _observe(self, state: TurnState) -> None:
        log.debug("turn %s %s", state.turn_id, state.status)
        running = self.__dict__.setdefault("running", set())
        if state.status == "running":
            running.add(state.turn_id)
            return
        running.discard(state.turn_id)
        if self.recorder is not None:
            self.recorder.turn_final(state.status)

    def live_turns(self) -> dict[tuple[str, str], int]:
        return {("turn", "running"): len(self.__dict__.get("running", ()))}

"""An in-memory session store: the reference implementation of the store contract.

Used by tests, demos and as a base for fault-injecting test stores (replace a method on an
instance). It never suspends: every method completes within the ``await`` that calls it (an
append with a header patch awaits ``update_header``, which only a test's replacement suspends).
"""

from __future__ import annotations

import builtins
import dataclasses
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from maka_runtime.kernel.core.errors import (
    AlreadyExistsError,
    NotFoundError,
    OperationConflictError,
)
from maka_runtime.kernel.core.log.events import StoredMessage, with_seq
from maka_runtime.kernel.core.session import (
    HeaderPatch,
    SessionHeader,
    SessionPage,
    SessionQuery,
    SessionStatus,
    TurnRecord,
    decode_page_token,
    encode_page_token,
)
from maka_runtime.kernel.core.sizes import fitting
from maka_runtime.kernel.core.store import InteractionRecord, Resolution
from maka_runtime.kernel.store._shared import (
    HeaderShortcuts,
    apply_to_turn,
    boundary_patch,
    resolved,
    settled,
)


@dataclass
class _Session:
    header: SessionHeader
    messages: list[StoredMessage] = field(default_factory=list)
    turns: dict[str, TurnRecord] = field(default_factory=dict)


class MemorySessionStore(HeaderShortcuts):
    def __init__(self) -> None:
        self._sessions: dict[str, _Session] = {}
        self._interactions: dict[tuple[str, str], InteractionRecord] = {}
        #: Moves on every change of a session header (the store contract's listing version).
        self.listing_version = 0

    def _session(self, session_id: str) -> _Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise NotFoundError("session", session_id)
        return session

    async def create(self, header: SessionHeader) -> SessionHeader:
        if header.id in self._sessions:
            raise AlreadyExistsError("session", header.id)
        self._sessions[header.id] = _Session(header)
        self.listing_version += 1
        return header

    async def list_sessions(self, query: SessionQuery) -> SessionPage:
        headers = sorted(
            (s.header for s in self._sessions.values()),
            key=lambda h: (h.created_at, h.id),
            reverse=True,
        )
        if query.page_token:
            cursor = decode_page_token(query.page_token)
            headers = [h for h in headers if (h.created_at, h.id) < cursor]
        if query.archived is not None:
            headers = [h for h in headers if h.is_archived == query.archived]
        if query.label is not None:
            headers = [h for h in headers if query.label in h.labels]
        if query.owners is not None:
            headers = [h for h in headers if h.owner in query.owners]
        page = fitting(headers[: query.page_size], query.max_bytes)
        more = len(headers) > len(page)
        token = encode_page_token(page[-1].created_at, page[-1].id) if more and page else ""
        return SessionPage(sessions=tuple(page), next_page_token=token)

    async def read_header(self, session_id: str) -> SessionHeader:
        return self._session(session_id).header

    def held_header(self, session_id: str) -> SessionHeader | None:
        session = self._sessions.get(session_id)
        return None if session is None else session.header

    async def update_header(self, session_id: str, patch: HeaderPatch) -> SessionHeader:
        session = self._session(session_id)
        session.header = dataclasses.replace(session.header, **patch)
        self.listing_version += 1
        return session.header

    async def widen_boundary(
        self, session_id: str, granted: tuple[str, ...]
    ) -> tuple[SessionHeader, bool]:
        session = self._session(session_id)
        patch = boundary_patch(session.header, granted)
        if patch is None:
            return session.header, False
        session.header = dataclasses.replace(session.header, **patch)
        self.listing_version += 1
        return session.header, True

    async def remove(self, session_id: str) -> None:
        self._session(session_id)
        del self._sessions[session_id]
        self.listing_version += 1
        for key in [key for key in self._interactions if key[0] == session_id]:
            del self._interactions[key]

    async def append_message(self, session_id: str, message: StoredMessage) -> StoredMessage:
        return (await self.append_messages(session_id, [message]))[0]

    async def append_messages(
        self,
        session_id: str,
        messages: Sequence[StoredMessage],
        *,
        header: HeaderPatch | None = None,
    ) -> builtins.list[StoredMessage]:
        if header is not None:
            # The header first, through update_header (so a test that patches it still sees
            # the call): a refused patch leaves nothing written, and the entries follow with
            # no suspension in between, so nothing committed meanwhile is ever taken back.
            self._session(session_id)
            await self.update_header(session_id, header)
        session = self._session(session_id)
        seq = len(session.messages)
        stamped = [with_seq(m, seq + i) for i, m in enumerate(messages, 1)]
        session.messages.extend(stamped)
        for message in stamped:
            turn = apply_to_turn(session.turns.get(message.turn_id), message)
            if turn is not None:
                session.turns[turn.turn_id] = turn
        return stamped

    async def read_messages(
        self, session_id: str, *, after_seq: int = 0, limit: int | None = None
    ) -> builtins.list[StoredMessage]:
        messages = self._session(session_id).messages[max(after_seq, 0) :]
        return messages[:limit] if limit is not None else list(messages)

    async def last_seq(self, session_id: str) -> int:
        return len(self._session(session_id).messages)

    async def list_turns(self, session_id: str) -> builtins.list[TurnRecord]:
        return list(self._session(session_id).turns.values())

    async def get_turn(self, session_id: str, turn_id: str) -> TurnRecord | None:
        return self._session(session_id).turns.get(turn_id)

    async def running_turns(self) -> builtins.list[tuple[str, str]]:
        return [
            (session_id, turn.turn_id)
            for session_id, session in sorted(self._sessions.items())
            for turn in sorted(session.turns.values(), key=lambda t: t.first_seq)
            if turn.status == "running"
        ]

    async def sessions_in_status(self, statuses: Collection[SessionStatus]) -> builtins.list[str]:
        return sorted(
            session_id
            for session_id, session in self._sessions.items()
            if session.header.status in statuses
        )

    # -- interactions --------------------------------------------------------------------------

    async def put_interaction(self, record: InteractionRecord) -> None:
        self._session(record.session_id)
        key = (record.session_id, record.request_id)
        if key in self._interactions:
            raise OperationConflictError(f"interaction request {record.request_id!r} exists")
        self._interactions[key] = record

    async def get_interaction(self, session_id: str, request_id: str) -> InteractionRecord | None:
        return self._interactions.get((session_id, request_id))

    async def resolve_interaction(
        self, session_id: str, request_id: str, resolution: Resolution, now: int
    ) -> InteractionRecord:
        key = (session_id, request_id)
        record = resolved(self._interactions.get(key), request_id, resolution, now)
        if resolution.widen:  # the answer and its widening: one step
            session = self._session(session_id)
            record, patch = settled(session.header, record, resolution.widen)
            if patch is not None:
                session.header = dataclasses.replace(session.header, **patch)
                self.listing_version += 1
        self._interactions[key] = record
        return record

    async def close_interactions(
        self, session_id: str, run_id: str, reason: str, now: int
    ) -> builtins.list[InteractionRecord]:
        closed = []
        for key, record in self._interactions.items():
            if key[0] == session_id and record.run_id == run_id and record.status == "pending":
                self._interactions[key] = _close(record, reason, now)
                closed.append(self._interactions[key])
        return closed

    async def pending_interactions(self) -> builtins.list[InteractionRecord]:
        pending = [record for record in self._interactions.values() if record.status == "pending"]
        return sorted(pending, key=lambda r: (r.session_id, r.created_at))

    async def list_interactions(
        self, session_id: str, *, pending_only: bool = False
    ) -> builtins.list[InteractionRecord]:
        return [
            record
            for key, record in self._interactions.items()
            if key[0] == session_id and (record.status == "pending" or not pending_only)
        ]


def _close(record: InteractionRecord, reason: str, now: int) -> InteractionRecord:
    return dataclasses.replace(
        record, status="closed", decision="deny", reason=reason, resolved_at=now
    )

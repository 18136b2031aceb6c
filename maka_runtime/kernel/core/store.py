"""The persistence the kernel depends on: :class:`SessionStore` and :class:`InteractionStore`.

Contract shared by every implementation (and checked by one test suite against each):

* ``append_messages`` commits all entries atomically, assigns consecutive ``seq`` numbers
  (``last_seq + 1`` …) and returns the stamped entries; appending ``turn_state`` entries keeps
  the derived :class:`TurnRecord` of their turn up to date (``user`` entries give its text).
  Given a ``header`` patch it applies that patch in the same transaction (a turn's opening
  entries and the header's ``running`` are one commit): both are on record, or neither.
* Unknown sessions raise :class:`~maka_runtime.kernel.core.errors.NotFoundError`; storage failures
  raise :class:`~maka_runtime.kernel.core.errors.PersistenceFailedError`.
* ``resolve_interaction`` is a compare-and-set from ``pending``: exactly one caller wins, every
  other gets :class:`~maka_runtime.kernel.core.errors.InteractionAlreadyResolvedError`. A
  resolution that carries ``widen`` (an ``allow_session`` answer) widens the session's boundary
  in the same transaction, so no answer is ever on record without its widening.
* The start-up sweep's policy is :mod:`maka_runtime.kernel.core.recovery`; stores offer only the
  primitives it needs: ``running_turns``, ``sessions_in_status`` and ``pending_interactions``
  (plus ``append_messages``, ``update_header`` and ``resolve_interaction``). Each primitive is
  one query or one transaction, so a PostgreSQL store implements them as directly as SQLite.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from maka_runtime.kernel.core.log.events import (
    InteractionKind,
    SandboxBoundaryRequest,
    StoredMessage,
    UserQuestionRequest,
)
from maka_runtime.kernel.core.session import (
    HeaderPatch,
    SessionHeader,
    SessionPage,
    SessionQuery,
    SessionStatus,
    TurnRecord,
)

InteractionStatus = Literal["pending", "answered", "timed_out", "closed"]


@dataclass(frozen=True, kw_only=True, slots=True)
class InteractionRecord:
    """A sandbox-boundary request or user question and what became of it.

    ``decision``/``answers`` hold the resolution (a timeout records ``deny``); ``reason`` says
    why it was denied or closed (``timed_out``, ``turn_stopped``, ``host_restarted`` …).
    """

    session_id: str
    request_id: str
    turn_id: str
    run_id: str
    kind: InteractionKind
    request: SandboxBoundaryRequest | UserQuestionRequest
    status: InteractionStatus = "pending"
    decision: str = ""
    answers: tuple[str, ...] = ()
    reason: str = ""
    created_at: int = 0
    resolved_at: int = 0
    #: What an ``allow_session`` answer did to the session's boundary, in the answer's own
    #: transaction: ``widened`` (to :attr:`widened_revision`), ``covered`` (nothing to add), or
    #: why it was refused; empty when the store did not settle it (no expansion asked for).
    settlement: str = ""
    #: The revision the answer's widening made (``settlement == "widened"``), else 0.
    widened_revision: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class InteractionPage:
    """A page of a session's interaction requests, oldest first."""

    interactions: tuple[InteractionRecord, ...]
    #: Pass back as ``page_token`` for the next page; empty on the last page.
    next_page_token: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class Resolution:
    """How :meth:`InteractionStore.resolve_interaction` settles a pending request."""

    status: Literal["answered", "timed_out", "closed"]
    decision: str = ""
    answers: tuple[str, ...] = ()
    reason: str = ""
    #: An ``allow_session`` answer's expansion: added to the session's boundary in the same
    #: transaction that records the answer (the record's ``settlement`` says what it did).
    widen: tuple[str, ...] = ()


class SessionStore(Protocol):
    """Session headers and their append-only logs."""

    async def create(self, header: SessionHeader) -> SessionHeader: ...

    async def list_sessions(self, query: SessionQuery) -> SessionPage: ...

    @property
    def listing_version(self) -> int:
        """A number that moves with every committed write that may change what
        :meth:`list_sessions` returns (a session created, a header updated, a session removed;
        appending to a log need not move it), moved before that write's call returns, so a
        page read when it had a value stays right while it has that value (the kernel keeps
        pages by it: :mod:`~maka_runtime.kernel.core.session_pages`). A store shared by several
        kernels (the scale-out of DESIGN.md, on PostgreSQL) must move it for the writes of every
        replica: a counter bumped in the writing transaction and followed with LISTEN/NOTIFY,
        say, or a value that moves on every read, which keeps no page."""
        ...

    async def read_header(self, session_id: str) -> SessionHeader: ...

    def held_header(self, session_id: str) -> SessionHeader | None:
        """What :meth:`read_header` would return now, when the store holds the header in memory
        and can answer without awaiting; ``None``: ask :meth:`read_header` (which also raises
        what is wrong). A store that holds nothing always returns ``None``."""
        ...

    async def update_header(self, session_id: str, patch: HeaderPatch) -> SessionHeader: ...

    async def widen_boundary(
        self, session_id: str, granted: tuple[str, ...]
    ) -> tuple[SessionHeader, bool]:
        """Add *granted* to the session's execution boundary in one transaction
        (:func:`~maka_runtime.kernel.core.boundary.widened`: the next revision, or nothing when the
        boundary already covers it); the header after, and whether it changed."""
        ...

    async def archive(self, session_id: str) -> None: ...

    async def unarchive(self, session_id: str) -> None: ...

    async def set_flagged(self, session_id: str, flagged: bool) -> None: ...

    async def rename(self, session_id: str, name: str) -> None: ...

    async def remove(self, session_id: str) -> None: ...

    async def append_message(self, session_id: str, message: StoredMessage) -> StoredMessage: ...

    async def append_messages(
        self,
        session_id: str,
        messages: Sequence[StoredMessage],
        *,
        header: HeaderPatch | None = None,
    ) -> list[StoredMessage]: ...

    async def read_messages(
        self, session_id: str, *, after_seq: int = 0, limit: int | None = None
    ) -> list[StoredMessage]: ...

    async def last_seq(self, session_id: str) -> int: ...

    async def list_turns(self, session_id: str) -> list[TurnRecord]: ...

    async def get_turn(self, session_id: str, turn_id: str) -> TurnRecord | None: ...

    async def running_turns(self) -> list[tuple[str, str]]:
        """Every turn recorded ``running``, as ``(session_id, turn_id)``, by session id and
        then in log order."""
        ...

    async def sessions_in_status(self, statuses: Collection[SessionStatus]) -> list[str]:
        """The ids of the sessions whose header status is one of *statuses*, in id order."""
        ...


class InteractionStore(Protocol):
    """Durable interaction requests (the hosted interaction authority's memory)."""

    async def put_interaction(self, record: InteractionRecord) -> None: ...

    async def get_interaction(
        self, session_id: str, request_id: str
    ) -> InteractionRecord | None: ...

    async def resolve_interaction(
        self, session_id: str, request_id: str, resolution: Resolution, now: int
    ) -> InteractionRecord: ...

    async def close_interactions(
        self, session_id: str, run_id: str, reason: str, now: int
    ) -> list[InteractionRecord]: ...

    async def list_interactions(
        self, session_id: str, *, pending_only: bool = False
    ) -> list[InteractionRecord]: ...

    async def pending_interactions(self) -> list[InteractionRecord]:
        """Every ``pending`` request of every session, by session id and then creation."""
        ...


def interaction_to_record(record: InteractionRecord) -> dict[str, object]:
    from maka_runtime.kernel.core.log.events import to_record

    return {
        "session_id": record.session_id,
        "request_id": record.request_id,
        "turn_id": record.turn_id,
        "run_id": record.run_id,
        "kind": record.kind,
        "request": to_record(record.request),
        "status": record.status,
        "decision": record.decision,
        "answers": list(record.answers),
        "reason": record.reason,
        "created_at": record.created_at,
        "resolved_at": record.resolved_at,
        "settlement": record.settlement,
        "widened_revision": record.widened_revision,
    }


def interaction_from_record(data: Mapping[str, object]) -> InteractionRecord:
    from maka_runtime.kernel.core.log.events import from_record

    request = from_record(data["request"])  # type: ignore[arg-type]
    assert isinstance(request, SandboxBoundaryRequest | UserQuestionRequest)
    answers = data.get("answers") or ()
    return InteractionRecord(
        session_id=str(data["session_id"]),
        request_id=str(data["request_id"]),
        turn_id=str(data["turn_id"]),
        run_id=str(data["run_id"]),
        kind=request.type.removesuffix("_request"),  # type: ignore[arg-type]
        request=request,
        status=data["status"],  # type: ignore[arg-type]
        decision=str(data.get("decision") or ""),
        answers=tuple(str(answer) for answer in answers),  # type: ignore[attr-defined]
        reason=str(data.get("reason") or ""),
        created_at=int(data.get("created_at") or 0),  # type: ignore[call-overload]
        resolved_at=int(data.get("resolved_at") or 0),  # type: ignore[call-overload]
        settlement=str(data.get("settlement") or ""),
        widened_revision=int(data.get("widened_revision") or 0),  # type: ignore[call-overload]
    )

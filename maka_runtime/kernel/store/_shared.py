"""Rules every store applies the same way: turn records derived from the log, JSON shapes."""

from __future__ import annotations

import dataclasses
import json

from maka_runtime.kernel.core.boundary import BoundaryError, widened
from maka_runtime.kernel.core.errors import InteractionAlreadyResolvedError, NotFoundError
from maka_runtime.kernel.core.log.events import StoredMessage, TurnState, UserMessage
from maka_runtime.kernel.core.session import HeaderPatch, SessionHeader, TurnRecord
from maka_runtime.kernel.core.store import InteractionRecord, Resolution


def apply_to_turn(turn: TurnRecord | None, message: StoredMessage) -> TurnRecord | None:
    """The turn record after *message* (``None``: the message does not concern a turn record).

    A turn's prompt (a non-queued ``user`` message) opens its record; ``turn_state`` entries move
    its status; the first terminal state wins over ``running`` (a sweep never resurrects).
    """
    if isinstance(message, UserMessage) and not message.queued:
        if turn is not None:
            return None
        return TurnRecord(
            turn_id=message.turn_id,
            status="running",
            text=message.text,
            started_at=message.ts,
            first_seq=message.seq,
        )
    if not isinstance(message, TurnState):
        return None
    if turn is None:
        turn = TurnRecord(
            turn_id=message.turn_id,
            status="running",
            text="",
            started_at=message.ts,
            first_seq=message.seq,
        )
    if message.status == "running":
        return turn
    if turn.status != "running":
        return None
    return dataclasses.replace(
        turn,
        status=message.status,
        ended_at=message.ts,
        abort_source=message.abort_source,
        aborted_at=message.aborted_at,
    )


_HEADER_FIELDS = tuple(field.name for field in dataclasses.fields(SessionHeader))
_HEADER_NAMES = frozenset(_HEADER_FIELDS)


def header_to_json(header: SessionHeader) -> str:
    data = {name: getattr(header, name) for name in _HEADER_FIELDS}
    data["labels"] = list(header.labels)
    data["backend_options"] = dict(header.backend_options)
    return json.dumps(data, separators=(",", ":"))


def header_from_json(text: str) -> SessionHeader:
    data = json.loads(text)
    values = {key: value for key, value in data.items() if key in _HEADER_NAMES}
    values["labels"] = tuple(values.get("labels", ()))
    values["backend_options"] = dict(values.get("backend_options", {}))
    values["expansions"] = tuple(tuple(grant) for grant in values.get("expansions", ()))
    return SessionHeader(**values)


def boundary_patch(header: SessionHeader, granted: tuple[str, ...]) -> HeaderPatch | None:
    """The header change that adds *granted* to *header*'s boundary (``None``: covered)."""
    after = widened(header.boundary, granted)
    if after == header.boundary:
        return None
    return {"expansions": after.expansions, "boundary_revision": after.revision}


def resolved(
    record: InteractionRecord | None, request_id: str, resolution: Resolution, now: int
) -> InteractionRecord:
    """*record* settled by *resolution* (the compare-and-set from ``pending``)."""
    if record is None:
        raise NotFoundError("interaction request", request_id)
    if record.status != "pending":
        raise InteractionAlreadyResolvedError(request_id, record.status, record.reason)
    return dataclasses.replace(
        record,
        status=resolution.status,
        decision=resolution.decision,
        answers=resolution.answers,
        reason=resolution.reason,
        resolved_at=now,
    )


def settled(
    header: SessionHeader, record: InteractionRecord, granted: tuple[str, ...]
) -> tuple[InteractionRecord, HeaderPatch | None]:
    """*record* (an ``allow_session`` answer) saying what widening *header*'s boundary by
    *granted* did, and the header change to make with it (``None``: none)."""
    try:
        patch = boundary_patch(header, granted)
    except BoundaryError as error:
        return dataclasses.replace(record, settlement=str(error)), None
    if patch is None:
        return dataclasses.replace(record, settlement="covered"), None
    revision = patch["boundary_revision"]
    return dataclasses.replace(record, settlement="widened", widened_revision=revision), patch


_TURN_FIELDS = tuple(field.name for field in dataclasses.fields(TurnRecord))


def turn_to_json(turn: TurnRecord) -> str:
    # Every field is a scalar: the dict ``dataclasses.asdict`` builds, without its deep copy.
    return json.dumps({name: getattr(turn, name) for name in _TURN_FIELDS}, separators=(",", ":"))


def turn_from_json(text: str) -> TurnRecord:
    return TurnRecord(**json.loads(text))


class HeaderShortcuts:
    """The store protocol's header shortcuts, each one :meth:`update_header` patch (the one
    primitive a store implements for them)."""

    async def update_header(self, session_id: str, patch: HeaderPatch) -> SessionHeader:
        raise NotImplementedError

    async def archive(self, session_id: str) -> None:
        await self.update_header(session_id, {"is_archived": True})

    async def unarchive(self, session_id: str) -> None:
        await self.update_header(session_id, {"is_archived": False})

    async def set_flagged(self, session_id: str, flagged: bool) -> None:
        await self.update_header(session_id, {"is_flagged": flagged})

    async def rename(self, session_id: str, name: str) -> None:
        await self.update_header(session_id, {"name": name, "title_is_manual": True})

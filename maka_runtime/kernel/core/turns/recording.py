"""Putting a running turn on the record: backend events, interaction requests and their
resolutions, queued messages the backend takes.

Every backend event is committed before anyone can read it (see
:mod:`maka_runtime.kernel.core.log.session_log`); text deltas of one assistant message are also
gathered into one ``assistant`` entry, written before whatever follows them. An interaction
request is stored durably by its owner before it is recorded; if the owner fails, the turn
fails closed (the request is denied, the failure is reported at settlement).

Every append of a turn's records goes through one gate (:meth:`TurnRecorder.admit`): once the
turn's terminal state is written (``run.sealed``), whatever the turn still produces — a backend
that goes on after its stop, a late resolution — is discarded and logged, never appended. The
check and the log's submission are not separated by an await, so nothing slips past the seal.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Sequence

from maka_runtime.kernel.core.backend import (
    QueuedMessage,
    SandboxBoundaryResponse,
    UserQuestionResponse,
)
from maka_runtime.kernel.core.boundary import Boundary
from maka_runtime.kernel.core.deps import KernelDeps
from maka_runtime.kernel.core.errors import RuntimeInteractionFailStopError
from maka_runtime.kernel.core.log.events import (
    AssistantMessage,
    BackendEvent,
    Complete,
    InteractionKind,
    InteractionOutcome,
    InteractionResolved,
    SandboxBoundaryRequest,
    StoredMessage,
    SystemNote,
    TextDelta,
    UserMessage,
    UserQuestionRequest,
)
from maka_runtime.kernel.core.sessions import SessionTable
from maka_runtime.kernel.core.store import InteractionRecord
from maka_runtime.kernel.core.turns.run import Run
from maka_runtime.kernel.core.turns.widening import settle_boundary

UNCOMMITTED_WINDOW = 64
log = logging.getLogger("maka_runtime.kernel.core")


def take_open_message(run: Run, deps: KernelDeps) -> list[StoredMessage]:
    """The run's open assistant text as one entry (taken: the next delta opens anew)."""
    if run.open_message is None:
        return []
    message_id, parts = run.open_message
    run.open_message = None
    return [
        AssistantMessage(
            turn_id=run.turn_id,
            message_id=message_id,
            text="".join(parts),
            id=deps.new_id(),
            ts=deps.now(),
        )
    ]


class TurnRecorder:
    def __init__(self, deps: KernelDeps, sessions: SessionTable) -> None:
        self._deps = deps
        self._sessions = sessions

    def now(self) -> int:
        return self._deps.now()

    def responder(self, run: Run) -> Responder:
        return Responder(self, run)

    def inbox(self, run: Run) -> Inbox:
        return Inbox(self, run)

    @staticmethod
    def admit(run: Run, entries: Sequence[StoredMessage]) -> bool:
        """Whether *entries* of *run* may still be appended (not after its terminal state)."""
        if not run.sealed:
            return True
        if entries:
            kinds = ", ".join(entry.type for entry in entries)
            log.warning(
                "turn %s of session %s has ended: discarded late record(s): %s",
                run.turn_id,
                run.session_id,
                kinds,
            )
        return False

    async def append(self, run: Run, entries: Sequence[StoredMessage]) -> None:
        if self.admit(run, entries):
            await self._sessions.append(run.session_id, entries)

    # -- backend events ------------------------------------------------------------------------

    async def record(self, run: Run, event: BackendEvent) -> None:
        deps = self._deps
        event = dataclasses.replace(
            event, turn_id=run.turn_id, id=event.id or deps.new_id(), ts=deps.now(), seq=0
        )
        entries: list[StoredMessage] = []
        if isinstance(event, TextDelta):
            if run.open_message is not None and run.open_message[0] != event.message_id:
                entries.extend(self.flush(run))
            if run.open_message is None:
                run.open_message = (event.message_id, [])
            run.open_message[1].append(event.text)
        else:
            entries.extend(self.flush(run))
        entries.append(event)
        if isinstance(event, Complete) and event.stop_reason == "denied":
            entries.append(self._denial_note(run))
        if not self.admit(run, entries):
            return
        if isinstance(event, SandboxBoundaryRequest | UserQuestionRequest):
            await self._accept_request(run, event, entries)
            return
        # The run does not wait for each commit (the log groups them); it keeps at most
        # UNCOMMITTED_WINDOW submissions in flight, so a fast backend is held back by the store.
        run.uncommitted.append(self._sessions.session(run.session_id).log.submit(entries))
        if len(run.uncommitted) > UNCOMMITTED_WINDOW:
            await run.uncommitted.popleft()

    def flush(self, run: Run) -> list[StoredMessage]:
        """The run's open assistant text as one entry (taken: the next delta opens anew)."""
        return take_open_message(run, self._deps)

    async def append_quietly(self, run: Run, entries: Sequence[StoredMessage]) -> None:
        """Append *entries*; a failure is kept on the run (reported when it settles)."""
        if not entries or not self.admit(run, entries):
            return
        try:
            await self._sessions.append(run.session_id, entries)
        except asyncio.CancelledError:
            raise
        except Exception as failure:
            run.authority_failures.append(failure)

    async def await_uncommitted(self, run: Run) -> None:
        while run.uncommitted:
            await run.uncommitted.popleft()

    async def settle_uncommitted(self, run: Run) -> None:
        try:
            await self.await_uncommitted(run)
        except asyncio.CancelledError:
            raise
        except Exception as failure:
            run.authority_failures.append(failure)
            run.uncommitted.clear()

    def _denial_note(self, run: Run) -> SystemNote:
        denied = run.denied_request
        if denied is None:
            text = "turn ended: the backend reports a denied sandbox-boundary request"
        else:
            why = f" ({denied.reason})" if denied.reason else ""
            text = f"turn ended: running {denied.command!r} was denied{why}; nothing was run"
        return SystemNote(
            kind="denied",
            text=text,
            turn_id=run.turn_id,
            id=self._deps.new_id(),
            ts=self._deps.now(),
        )

    def rejection_note(self, run: Run, message: QueuedMessage, reason: str) -> SystemNote:
        return SystemNote(
            kind="message_rejected",
            text=f"message {message.message_id} not delivered ({reason}): {message.text}",
            turn_id=run.turn_id,
            id=self._deps.new_id(),
            ts=self._deps.now(),
        )

    # -- interactions --------------------------------------------------------------------------

    async def _accept_request(
        self,
        run: Run,
        request: SandboxBoundaryRequest | UserQuestionRequest,
        entries: list[StoredMessage],
    ) -> None:
        """Store the request durably, then record it; if the authority fails, fail closed."""
        kind: InteractionKind = (
            "sandbox_boundary" if isinstance(request, SandboxBoundaryRequest) else "user_question"
        )
        run.pending_requests[request.request_id] = kind
        failure = await self._store_request(run, request)
        if not self.admit(run, entries):
            return
        if failure is None and not run.stopped:
            # The header says "waiting" before anyone can see the request.
            await self._deps.store.update_header(
                run.session_id,
                {"status": "waiting_for_user", "status_updated_at": self._deps.now()},
            )
        await self.append(run, entries)
        if failure is None:
            return
        reason = "turn_stopped" if run.stopped else f"interaction authority failed: {failure}"
        if not run.stopped:
            run.authority_failures.append(RuntimeInteractionFailStopError(failure))
        record = InteractionRecord(
            session_id=run.session_id,
            request_id=request.request_id,
            turn_id=run.turn_id,
            run_id=run.run_id,
            kind=kind,
            request=request,
            status="closed",
            decision="deny",
            reason=reason,
        )
        await self.deliver(run, record)

    @staticmethod
    async def _store_request(
        run: Run, request: SandboxBoundaryRequest | UserQuestionRequest
    ) -> Exception | None:
        if run.interaction is None:
            return None
        try:
            if isinstance(request, SandboxBoundaryRequest):
                await run.interaction.owner.accept_sandbox_boundary_request(request)
            else:
                await run.interaction.owner.accept_user_question_request(request)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            return error
        return None

    async def deliver(self, run: Run, record: InteractionRecord) -> None:
        """Record a resolution and hand it to the backend (a denial unless answered)."""
        run.pending_requests.pop(record.request_id, None)
        if record.kind == "sandbox_boundary" and (
            record.status != "answered" or record.decision == "deny"
        ):
            request = record.request
            if isinstance(request, SandboxBoundaryRequest):
                run.denied_request = _Denial(request.command, record.reason)
        outcome: InteractionOutcome
        if record.status == "answered":
            outcome = "answered" if record.kind == "user_question" else record.decision  # type: ignore[assignment]
        else:
            outcome = record.status  # type: ignore[assignment]
        now = self._deps.now()
        resolved = InteractionResolved(
            turn_id=run.turn_id,
            request_id=record.request_id,
            kind=record.kind,
            outcome=outcome,
            answers=record.answers,
            reason=record.reason,
            id=self._deps.new_id(),
            ts=now,
        )
        notes, boundary = await settle_boundary(self._deps, run, record)
        await self.append(run, [resolved, *notes])
        if run.settled.is_set() or run.generation is None or run.sealed:
            return
        if not run.stopped and not run.pending_requests:
            await self._deps.store.update_header(
                run.session_id, {"status": "running", "status_updated_at": now}
            )
        await _answer_backend(run, record, boundary)


async def _answer_backend(
    run: Run, record: InteractionRecord, boundary: Boundary | None = None
) -> None:
    assert run.generation is not None
    backend = run.generation.backend
    if record.kind == "sandbox_boundary":
        decision = record.decision if record.status == "answered" else "deny"
        await backend.respond_to_sandbox_boundary(
            SandboxBoundaryResponse(
                request_id=record.request_id,
                decision=decision,  # type: ignore[arg-type]
                reason=record.reason,
                boundary=boundary,
            )
        )
    else:
        await backend.respond_to_user_question(
            UserQuestionResponse(
                request_id=record.request_id,
                answers=record.answers,
                cancelled=record.status != "answered",
                reason=record.reason,
            )
        )


@dataclasses.dataclass(frozen=True, slots=True)
class _Denial:
    command: str
    reason: str


class Responder:
    """The run's side of the interaction authority: resolutions go to the log and the backend."""

    def __init__(self, recorder: TurnRecorder, run: Run) -> None:
        self._recorder = recorder
        self._run = run

    async def resolved(self, record: InteractionRecord) -> None:
        await self._recorder.deliver(self._run, record)


class Inbox:
    """What the backend sees of the message owner; delivered messages go on the record."""

    def __init__(self, recorder: TurnRecorder, run: Run) -> None:
        self._recorder = recorder
        self._run = run
        self._pulled: dict[str, QueuedMessage] = {}

    async def pull(self) -> Sequence[QueuedMessage]:
        owner = self._run.messages
        if owner is None or self._run.settled.is_set():
            return []
        messages = list(owner.owner.pull())
        self._pulled.update((m.message_id, m) for m in messages)
        return messages

    async def ack(self, message_ids: Sequence[str]) -> None:
        owner = self._run.messages
        assert owner is not None
        owner.owner.ack(message_ids)
        # The step's open assistant text goes on the record before the messages that follow it.
        entries: list[StoredMessage] = [*self._recorder.flush(self._run)]
        entries += [
            UserMessage(
                turn_id=self._run.turn_id,
                text=self._pulled.pop(message_id).text,
                queued=True,
                id=message_id,
                ts=self._recorder.now(),
            )
            for message_id in message_ids
            if message_id in self._pulled
        ]
        if entries:
            await self._recorder.append(self._run, entries)

    async def nack(self, message_ids: Sequence[str], reason: str) -> None:
        owner = self._run.messages
        assert owner is not None
        owner.owner.nack(message_ids, reason)
        entries: list[StoredMessage] = [
            self._recorder.rejection_note(self._run, self._pulled.pop(message_id), reason)
            for message_id in message_ids
            if message_id in self._pulled
        ]
        if entries:
            await self._recorder.append(self._run, entries)

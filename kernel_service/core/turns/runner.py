"""Driving a run: reserve, begin, bind owners, send, record, settle.

Every run is driven by one kernel-owned task, so nothing a consumer does (stop reading, cancel,
disappear) can interrupt a half-written start or a half-done cleanup. Ordering rules:

* reservation happens inside ``run_backend_activation``; afterwards the run re-checks that its
  generation is still the session's current, active one and that the session was not stopped
  meanwhile — a stale run ends quietly and never sends;
* the session is claimed (one active run per session) before anything is written;
* the user message and ``turn_state running`` are committed, then the header is marked
  ``running``, then owners are bound; a stop claimed in between is honoured before any send;
* every backend event is committed before anyone can read it (see :mod:`.log`);
* settlement waits for a stop's projection before releasing the claim, so a stopped turn's
  records never interleave with the next turn's.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Sequence

from kernel_service.core.backend import (
    BackendSendInput,
    QueuedMessage,
    SandboxBoundaryResponse,
    UserQuestionResponse,
)
from kernel_service.core.context import KernelContext, SessionRuntime
from kernel_service.core.errors import (
    PersistenceFailedError,
    RuntimeInteractionFailStopError,
    RuntimeInteractionInvariantError,
    SessionBusyError,
    combine_failures,
    describe,
)
from kernel_service.core.interactions.owners import InteractionOwnerHandle, MessageOwnerHandle
from kernel_service.core.log.events import (
    AssistantMessage,
    BackendEvent,
    Complete,
    ErrorEvent,
    InteractionKind,
    InteractionOutcome,
    InteractionResolved,
    SandboxBoundaryRequest,
    StoredMessage,
    SystemNote,
    TextDelta,
    TurnState,
    TurnStatus,
    UserMessage,
    UserQuestionRequest,
)
from kernel_service.core.session import HeaderPatch
from kernel_service.core.store import InteractionRecord
from kernel_service.core.turns.generation import Generation
from kernel_service.core.turns.run import Run, RunPhase, StartOutcome

log = logging.getLogger("kernel_service.core")

UNCOMMITTED_WINDOW = 64


class Runner:
    def __init__(self, ctx: KernelContext) -> None:
        self._ctx = ctx

    def launch(self, run: Run) -> None:
        self._ctx.tasks.spawn(self._drive(run), name=f"run-{run.turn_id}", log_failure=True)

    async def _drive(self, run: Run) -> None:
        runtime = self._ctx.session(run.session_id)
        try:
            try:
                outcome = await self._start(run, runtime)
            except asyncio.CancelledError:
                raise
            except Exception as failure:
                run.start_failed = True
                await self._record_start_failure(run, failure)
                await self._settle(run, runtime, terminal=None)
                run.start_outcome.set_exception(failure)
                return
            run.start_outcome.set_result(outcome)
            if outcome is StartOutcome.STALE:
                self._finish(run, runtime)
                return
            if outcome is StartOutcome.SENDING:
                await self._send(run, runtime)
            terminal: TurnStatus = "failed" if run.backend_failure is not None else "completed"
            await self._settle(run, runtime, terminal=terminal)
        except asyncio.CancelledError:
            if not run.start_outcome.done():
                run.start_outcome.cancel()
            self._finish(run, runtime)
            raise

    # -- start ---------------------------------------------------------------------------------

    async def _reserve(self, run: Run, runtime: SessionRuntime) -> Generation:
        generation = runtime.generation
        if generation is None or not generation.active:
            if generation is not None:
                runtime.note_generation(generation)
            assert run.header is not None
            backend = self._ctx.backends.build(run.header)
            runtime.generations_built += 1
            generation = Generation(
                run.session_id, runtime.generations_built, backend, self._ctx.tasks
            )
            runtime.generation = generation
        generation.reservations.add(run.run_id)
        run.generation = generation
        return generation

    async def _start(self, run: Run, runtime: SessionRuntime) -> StartOutcome:
        ctx = self._ctx
        generation = await ctx.run_backend_activation(lambda: self._reserve(run, runtime))
        generation.reservations.discard(run.run_id)
        if not runtime.is_current(generation):
            run.stale_reason = (
                f"backend generation {generation.number} was stopped or replaced while the "
                "turn was being reserved"
            )
            return StartOutcome.STALE
        if runtime.stop_epoch != run.epoch or run.stop_op is not None:
            run.stale_reason = "the session was stopped while the turn was being reserved"
            return StartOutcome.STALE
        refusal = ctx.admission_failure(runtime)
        if refusal is not None:
            raise refusal
        if runtime.active_run is not None:
            raise SessionBusyError(run.session_id, runtime.active_run.turn_id)
        runtime.active_run = run
        run.claimed = True
        run.phase = RunPhase.BEGINNING

        now = ctx.now()
        entries: list[StoredMessage] = []
        if generation.number == 1 and generation.runs_started == 0 and not runtime.resumed:
            runtime.resumed = True
            if await ctx.store.list_turns(run.session_id):
                entries.append(
                    SystemNote(
                        kind="session_resume",
                        text="session resumed by a new kernel process",
                        id=ctx.new_id(),
                        ts=now,
                    )
                )
        entries.append(UserMessage(turn_id=run.turn_id, text=run.text, id=ctx.new_id(), ts=now))
        entries.append(TurnState(turn_id=run.turn_id, status="running", id=ctx.new_id(), ts=now))
        stamped = await ctx.append(run.session_id, entries)
        run.begun = True
        run.first_seq = stamped[-2].seq
        await ctx.store.update_header(
            run.session_id, {"status": "running", "status_updated_at": now, "last_used_at": now}
        )
        run.marked_running = True

        run.phase = RunPhase.BINDING
        identity = run.identity
        if ctx.interaction_authority is not None:
            owner = ctx.interaction_authority.bind_run(identity, _Responder(self, run))
            run.interaction = InteractionOwnerHandle(owner, ctx.tasks)
        if ctx.message_authority is not None:
            run.messages = MessageOwnerHandle(ctx.message_authority.bind_run(identity))
        if run.stop_op is not None:
            return StartOutcome.STOPPED
        if not runtime.is_current(generation):
            raise RuntimeInteractionInvariantError(
                f"backend generation {generation.number} was replaced while turn "
                f"{run.turn_id!r} was starting"
            )
        run.phase = RunPhase.SENDING
        return StartOutcome.SENDING

    async def _record_start_failure(self, run: Run, failure: Exception) -> None:
        ctx = self._ctx
        now = ctx.now()
        if run.begun:
            entries: list[StoredMessage] = [
                TurnState(turn_id=run.turn_id, status="failed", id=ctx.new_id(), ts=now),
                SystemNote(
                    kind="error",
                    text=f"turn failed to start: {describe(failure)}",
                    turn_id=run.turn_id,
                    id=ctx.new_id(),
                    ts=now,
                ),
            ]
            patch: HeaderPatch = {"status": "active", "status_updated_at": now}
            written = await self._best_effort(failure, ctx.append(run.session_id, entries))
            if not written:
                ctx.turn_ends.add(
                    run.session_id, run.turn_id, entries=entries, patch=patch, cause=failure
                )
                return
        if run.marked_running:
            patch = {"status": "active", "status_updated_at": now}
            if not await self._best_effort(failure, ctx.store.update_header(run.session_id, patch)):
                ctx.turn_ends.add(
                    run.session_id, run.turn_id, entries=(), patch=patch, cause=failure
                )

    @staticmethod
    async def _best_effort(primary: Exception, work: object) -> bool:
        """Await *work*; a failure is noted on *primary*. Returns whether it succeeded."""
        try:
            await work  # type: ignore[misc]
        except asyncio.CancelledError:
            raise
        except Exception as secondary:
            primary.add_note(f"also failed while recording it: {describe(secondary)}")
            return False
        return True

    # -- send ----------------------------------------------------------------------------------

    async def _send(self, run: Run, runtime: SessionRuntime) -> None:
        generation = run.generation
        assert generation is not None and run.header is not None
        send_input = BackendSendInput(
            session_id=run.session_id,
            turn_id=run.turn_id,
            text=run.text,
            header=run.header,
            inbox=_Inbox(self, run) if run.messages is not None else None,
        )
        # A stale run never sends: this check and the send below are not separated by an await.
        if run.stop_op is not None or not runtime.is_current(generation):
            return
        generation.runs_started += 1
        events = generation.backend.send(send_input)
        try:
            async for event in events:
                await self._record(run, event)
            await self._await_uncommitted(run)
        except asyncio.CancelledError:
            raise
        except Exception as failure:
            run.backend_failure = failure
            await self._settle_uncommitted(run)
            if run.stopped:
                log.info("turn %s ended with %s after its stop", run.turn_id, describe(failure))
            else:
                await self._append_quietly(
                    run,
                    [
                        *self._flush(run),
                        ErrorEvent(
                            turn_id=run.turn_id,
                            message=str(failure) or type(failure).__name__,
                            code=getattr(failure, "error_code", "") or "backend_failed",
                            id=self._ctx.new_id(),
                            ts=self._ctx.now(),
                        ),
                    ],
                )
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                with contextlib.suppress(Exception):
                    await aclose()
        await self._append_quietly(run, self._flush(run))

    async def _settle_uncommitted(self, run: Run) -> None:
        try:
            await self._await_uncommitted(run)
        except asyncio.CancelledError:
            raise
        except Exception as failure:
            run.authority_failures.append(failure)
            run.uncommitted.clear()

    def _flush(self, run: Run) -> list[StoredMessage]:
        if run.open_message is None:
            return []
        message_id, parts = run.open_message
        run.open_message = None
        return [
            AssistantMessage(
                turn_id=run.turn_id,
                message_id=message_id,
                text="".join(parts),
                id=self._ctx.new_id(),
                ts=self._ctx.now(),
            )
        ]

    async def _append_quietly(self, run: Run, entries: Sequence[StoredMessage]) -> None:
        if not entries:
            return
        try:
            await self._ctx.append(run.session_id, entries)
        except asyncio.CancelledError:
            raise
        except Exception as failure:
            run.authority_failures.append(failure)

    async def _record(self, run: Run, event: BackendEvent) -> None:
        ctx = self._ctx
        event = dataclasses.replace(
            event, turn_id=run.turn_id, id=event.id or ctx.new_id(), ts=ctx.now(), seq=0
        )
        entries: list[StoredMessage] = []
        if isinstance(event, TextDelta):
            if run.open_message is not None and run.open_message[0] != event.message_id:
                entries.extend(self._flush(run))
            if run.open_message is None:
                run.open_message = (event.message_id, [])
            run.open_message[1].append(event.text)
        else:
            entries.extend(self._flush(run))
        entries.append(event)
        if isinstance(event, Complete) and event.stop_reason == "denied":
            entries.append(self._denial_note(run))
        if isinstance(event, SandboxBoundaryRequest | UserQuestionRequest):
            await self._accept_request(run, event, entries)
            return
        # The run does not wait for each commit (the log groups them); it keeps at most
        # UNCOMMITTED_WINDOW submissions in flight, so a fast backend is held back by the store.
        run.uncommitted.append(ctx.session(run.session_id).log.submit(entries))
        if len(run.uncommitted) > UNCOMMITTED_WINDOW:
            await run.uncommitted.popleft()

    def _denial_note(self, run: Run) -> SystemNote:
        denied = run.denied_request
        if denied is None:
            text = "turn ended: the backend reports a denied sandbox-boundary request"
        else:
            why = f" ({denied.reason})" if denied.reason else ""
            text = f"turn ended: running {denied.command!r} was denied{why}; nothing was run"
        return SystemNote(
            kind="denied", text=text, turn_id=run.turn_id, id=self._ctx.new_id(), ts=self._ctx.now()
        )

    async def _await_uncommitted(self, run: Run) -> None:
        while run.uncommitted:
            await run.uncommitted.popleft()

    async def _accept_request(
        self,
        run: Run,
        request: SandboxBoundaryRequest | UserQuestionRequest,
        entries: list[StoredMessage],
    ) -> None:
        """Store the request durably, then record it; if the authority fails, fail closed."""
        ctx = self._ctx
        kind: InteractionKind = (
            "sandbox_boundary" if isinstance(request, SandboxBoundaryRequest) else "user_question"
        )
        run.pending_requests[request.request_id] = kind
        failure: Exception | None = None
        if run.interaction is not None:
            try:
                if isinstance(request, SandboxBoundaryRequest):
                    await run.interaction.owner.accept_sandbox_boundary_request(request)
                else:
                    await run.interaction.owner.accept_user_question_request(request)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                failure = error
        if failure is None and not run.stopped:
            # The header says "waiting" before anyone can see the request.
            now = ctx.now()
            await ctx.store.update_header(
                run.session_id, {"status": "waiting_for_user", "status_updated_at": now}
            )
        await ctx.append(run.session_id, entries)
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

    async def deliver(self, run: Run, record: InteractionRecord) -> None:
        """Record a resolution and hand it to the backend (a denial unless answered)."""
        ctx = self._ctx
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
        now = ctx.now()
        await ctx.append(
            run.session_id,
            [
                InteractionResolved(
                    turn_id=run.turn_id,
                    request_id=record.request_id,
                    kind=record.kind,
                    outcome=outcome,
                    answers=record.answers,
                    reason=record.reason,
                    id=ctx.new_id(),
                    ts=now,
                )
            ],
        )
        if run.settled.is_set() or run.generation is None:
            return
        if not run.stopped and not run.pending_requests:
            await ctx.store.update_header(
                run.session_id, {"status": "running", "status_updated_at": now}
            )
        backend = run.generation.backend
        if record.kind == "sandbox_boundary":
            decision = record.decision if record.status == "answered" else "deny"
            await backend.respond_to_sandbox_boundary(
                SandboxBoundaryResponse(
                    request_id=record.request_id,
                    decision=decision,  # type: ignore[arg-type]
                    reason=record.reason,
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

    # -- settle --------------------------------------------------------------------------------

    async def _settle(self, run: Run, runtime: SessionRuntime, terminal: TurnStatus | None) -> None:
        ctx = self._ctx
        failures: list[Exception | None] = []
        if run.stop_op is not None and not run.start_failed:
            # The stop projects the turn; releasing the claim before that would let the next
            # turn's records interleave with this one's abort.
            await asyncio.wait([run.stop_op.outcome])
        elif terminal is not None and run.begun:
            run.ending = True
            if any(isinstance(f, PersistenceFailedError) for f in run.authority_failures):
                terminal = "failed"  # some of what the turn did is not on the record
            now = ctx.now()
            ending: list[StoredMessage] = [
                TurnState(turn_id=run.turn_id, status=terminal, id=ctx.new_id(), ts=now)
            ]
            patch: HeaderPatch = {"status": "active", "status_updated_at": now, "has_unread": True}
            try:
                await ctx.append(run.session_id, ending)
                ending = []
                await ctx.store.update_header(run.session_id, patch)
            except asyncio.CancelledError:
                raise
            except Exception as failure:
                failures.append(failure)
                # Never left running: recorded as soon as the store takes writes again.
                ctx.turn_ends.add(
                    run.session_id, run.turn_id, entries=ending, patch=patch, cause=failure
                )
        if run.interaction is not None:
            if run.interaction.closing:
                # Closed by the stop, which reports the outcome; wait for it, report nothing.
                with contextlib.suppress(RuntimeInteractionFailStopError):
                    await run.interaction.close("turn_stopped")
            else:
                try:
                    await run.interaction.close("turn_terminal")
                except RuntimeInteractionFailStopError as failure:
                    failures.append(failure)
            failures.append(run.interaction.release())
        if run.messages is not None:
            await self._reject_leftovers(run)
            failures.append(run.messages.release())
        failures.extend(run.authority_failures)
        generation = run.generation
        if generation is not None:
            runtime.note_generation(generation)
            if generation.retire_when_idle and generation.active and not generation.reservations:
                try:
                    await generation.dispose()
                except Exception as failure:
                    failures.append(failure)
                runtime.note_generation(generation)
        run.terminal_failure = combine_failures(failures)
        self._finish(run, runtime)
        if run.terminal_failure is not None:
            await ctx.record_failure(
                run.session_id, run.turn_id, "turn cleanup failed", run.terminal_failure
            )

    async def _reject_leftovers(self, run: Run) -> None:
        assert run.messages is not None
        try:
            leftovers = list(run.messages.owner.pull())
            if leftovers:
                run.messages.owner.nack([m.message_id for m in leftovers], "turn ended")
        except Exception as failure:
            run.authority_failures.append(failure)
            return
        await self._append_quietly(
            run, [self._rejection_note(run, m, "turn ended") for m in leftovers]
        )

    def _rejection_note(self, run: Run, message: QueuedMessage, reason: str) -> SystemNote:
        return SystemNote(
            kind="message_rejected",
            text=f"message {message.message_id} not delivered ({reason}): {message.text}",
            turn_id=run.turn_id,
            id=self._ctx.new_id(),
            ts=self._ctx.now(),
        )

    def _finish(self, run: Run, runtime: SessionRuntime) -> None:
        if run.generation is not None:
            run.generation.reservations.discard(run.run_id)
        if runtime.active_run is run:
            runtime.active_run = None
        run.phase = RunPhase.SETTLED
        run.settled.set()
        runtime.log.notify()


@dataclasses.dataclass(frozen=True, slots=True)
class _Denial:
    command: str
    reason: str


class _Responder:
    """The run's side of the interaction authority: resolutions go to the log and the backend."""

    def __init__(self, runner: Runner, run: Run) -> None:
        self._runner = runner
        self._run = run

    async def resolved(self, record: InteractionRecord) -> None:
        await self._runner.deliver(self._run, record)


class _Inbox:
    """What the backend sees of the message owner; delivered messages go on the record."""

    def __init__(self, runner: Runner, run: Run) -> None:
        self._runner = runner
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
        ctx = self._runner._ctx
        # The step's open assistant text goes on the record before the messages that follow it.
        entries: list[StoredMessage] = [*self._runner._flush(self._run)]
        entries += [
            UserMessage(
                turn_id=self._run.turn_id,
                text=self._pulled.pop(message_id).text,
                queued=True,
                id=message_id,
                ts=ctx.now(),
            )
            for message_id in message_ids
            if message_id in self._pulled
        ]
        if entries:
            await ctx.append(self._run.session_id, entries)

    async def nack(self, message_ids: Sequence[str], reason: str) -> None:
        owner = self._run.messages
        assert owner is not None
        owner.owner.nack(message_ids, reason)
        entries: list[StoredMessage] = [
            self._runner._rejection_note(self._run, self._pulled.pop(message_id), reason)
            for message_id in message_ids
            if message_id in self._pulled
        ]
        if entries:
            await self._runner._ctx.append(self._run.session_id, entries)

"""Driving a run: reserve, begin, bind owners, send, record, settle.

Every run is driven by one kernel-owned task, so nothing a consumer does (stop reading, cancel,
disappear) can interrupt a half-written start or a half-done cleanup. The run's state moves
only through :meth:`Run.advance` (see :mod:`.state`). Ordering rules:

* reservation happens inside ``run_backend_activation``; afterwards the run re-checks that its
  generation is still the session's current, active one and that the session was not stopped
  meanwhile — a stale run ends quietly and never sends;
* the session is claimed (one active run per session) before anything is written, after
  admission (:mod:`.admission`) has been asked again;
* a stop remembered for the turn before it was admitted (an early stop, :mod:`.admission`) is
  claimed as soon as the session is, so the turn is recorded and ends aborted without sending;
* the user message, ``turn_state running`` and the header's ``running`` are one commit, then
  owners are bound; a stop claimed meanwhile is honoured before any send;
* every backend event is committed before anyone can read it (see :mod:`.recording`);
* settlement waits for a stop's projection before releasing the claim, so a stopped turn's
  records never interleave with the next turn's; a turn that was not stopped records its own
  terminal state exactly once (``ENDING``), in one commit with the header's ``active`` (a
  refused end is retried by :mod:`.turn_ends`, in one commit too).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from maka_runtime.kernel.core.backend import BackendSendInput, StopMode
from maka_runtime.kernel.core.deps import KernelDeps
from maka_runtime.kernel.core.errors import (
    PersistenceFailedError,
    RuntimeInteractionFailStopError,
    RuntimeInteractionInvariantError,
    SessionBusyError,
    combine_failures,
    describe,
)
from maka_runtime.kernel.core.interactions.owners import InteractionOwnerHandle, MessageOwnerHandle
from maka_runtime.kernel.core.log.events import (
    ErrorEvent,
    StoredMessage,
    SystemNote,
    TurnState,
    TurnStatus,
    UserMessage,
)
from maka_runtime.kernel.core.session import HeaderPatch
from maka_runtime.kernel.core.sessions import SessionRuntime, SessionTable
from maka_runtime.kernel.core.turns.admission import TurnAdmission, take_early_stop
from maka_runtime.kernel.core.turns.generation import Generation
from maka_runtime.kernel.core.turns.recording import TurnRecorder
from maka_runtime.kernel.core.turns.run import Run, StartOutcome, StopOutcome
from maka_runtime.kernel.core.turns.state import EndWriter, RunState, end_writer
from maka_runtime.kernel.core.turns.turn_ends import PendingTurnEnds

log = logging.getLogger("maka_runtime.kernel.core")

#: Claims a stop against a run (the kernel's :class:`~.stop.StopCoordinator`).
StopClaim = Callable[[Run, str, StopMode], "asyncio.Future[StopOutcome]"]


def _retrieve(future: asyncio.Future[StopOutcome]) -> None:
    # An early stop's failure is recorded by the stop itself; nobody else awaits it.
    if not future.cancelled():
        future.exception()


class Runner:
    def __init__(
        self,
        deps: KernelDeps,
        sessions: SessionTable,
        admission: TurnAdmission,
        turn_ends: PendingTurnEnds,
        claim_stop: StopClaim,
    ) -> None:
        self._deps = deps
        self._claim_stop = claim_stop
        self._sessions = sessions
        self._admission = admission
        self._turn_ends = turn_ends
        self.recorder = TurnRecorder(deps, sessions)

    def launch(self, run: Run) -> None:
        self._deps.tasks.spawn(self._drive(run), name=f"run-{run.turn_id}", log_failure=True)

    async def _drive(self, run: Run) -> None:
        runtime = self._sessions.session(run.session_id)
        try:
            try:
                outcome = await self._start(run, runtime)
            except asyncio.CancelledError:
                raise
            except Exception as failure:
                await self._record_start_failure(run, failure)
                run.advance(RunState.START_FAILED)
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
            backend = self._deps.backends.build(run.header)
            runtime.generations_built += 1
            generation = Generation(
                run.session_id, runtime.generations_built, backend, self._deps.tasks
            )
            runtime.generation = generation
        generation.reservations.add(run.run_id)
        run.generation = generation
        return generation

    async def _start(self, run: Run, runtime: SessionRuntime) -> StartOutcome:
        generation = await self._deps.run_backend_activation(lambda: self._reserve(run, runtime))
        generation.reservations.discard(run.run_id)
        stale = _stale_reason(run, runtime, generation)
        if stale:
            run.stale_reason = stale
            run.advance(RunState.STALE)
            return StartOutcome.STALE
        refusal = self._admission.refusal(runtime)
        if refusal is not None:
            raise refusal
        if runtime.active_run is not None:
            raise SessionBusyError(run.session_id, runtime.active_run.turn_id)
        runtime.active_run = run
        run.advance(RunState.CLAIMED)
        early = take_early_stop(runtime, run.turn_id)
        if early is not None:
            # Stopped before it was admitted: recorded, then aborted; the backend never sends.
            self._claim_stop(run, *early).add_done_callback(_retrieve)
        await self._begin(run, runtime, generation)
        self._bind(run)
        if run.stop_op is not None:
            return StartOutcome.STOPPED
        if not runtime.is_current(generation):
            raise RuntimeInteractionInvariantError(
                f"backend generation {generation.number} was replaced while turn "
                f"{run.turn_id!r} was starting"
            )
        run.advance(RunState.SENDING)
        return StartOutcome.SENDING

    async def _begin(self, run: Run, runtime: SessionRuntime, generation: Generation) -> None:
        """Commit the turn's opening entries and the header's ``running`` in one transaction
        (the first event waits for one commit fewer; both are on record, or neither)."""
        deps = self._deps
        now = deps.now()
        entries: list[StoredMessage] = []
        if generation.number == 1 and generation.runs_started == 0 and not runtime.resumed:
            runtime.resumed = True
            if await deps.store.list_turns(run.session_id):
                entries.append(
                    SystemNote(
                        kind="session_resume",
                        text="session resumed by a new kernel process",
                        id=deps.new_id(),
                        ts=now,
                    )
                )
        entries.append(UserMessage(turn_id=run.turn_id, text=run.text, id=deps.new_id(), ts=now))
        entries.append(TurnState(turn_id=run.turn_id, status="running", id=deps.new_id(), ts=now))
        running: HeaderPatch = {"status": "running", "status_updated_at": now, "last_used_at": now}
        stamped = await self._sessions.append(run.session_id, entries, running)
        run.advance(RunState.BEGUN)
        run.first_seq = stamped[-2].seq
        run.advance(RunState.BINDING)

    def _bind(self, run: Run) -> None:
        deps = self._deps
        identity = run.identity
        if deps.interaction_authority is not None:
            owner = deps.interaction_authority.bind_run(identity, self.recorder.responder(run))
            run.interaction = InteractionOwnerHandle(owner, deps.tasks)
        if deps.message_authority is not None:
            run.messages = MessageOwnerHandle(deps.message_authority.bind_run(identity))

    async def _record_start_failure(self, run: Run, failure: Exception) -> None:
        deps = self._deps
        now = deps.now()
        if run.on_record:  # its opening entries and the header's "running" (one commit)
            patch: HeaderPatch = {"status": "active", "status_updated_at": now}
            entries: list[StoredMessage] = [
                TurnState(turn_id=run.turn_id, status="failed", id=deps.new_id(), ts=now),
                SystemNote(
                    kind="error",
                    text=f"turn failed to start: {describe(failure)}",
                    turn_id=run.turn_id,
                    id=deps.new_id(),
                    ts=now,
                ),
            ]
            written = await _best_effort(
                failure, self._sessions.append(run.session_id, entries, patch)
            )
            run.sealed = True  # the turn's end is on the record (or queued): nothing after it
            if not written:
                self._turn_ends.add(
                    run.session_id, run.turn_id, entries=entries, patch=patch, cause=failure
                )

    # -- send ----------------------------------------------------------------------------------

    async def _send(self, run: Run, runtime: SessionRuntime) -> None:
        generation = run.generation
        assert generation is not None and run.header is not None
        recorder = self.recorder
        send_input = BackendSendInput(
            session_id=run.session_id,
            turn_id=run.turn_id,
            text=run.text,
            header=run.header,
            inbox=recorder.inbox(run) if run.messages is not None else None,
        )
        # A stale run never sends: this check and the send below are not separated by an await.
        if run.stop_op is not None or not runtime.is_current(generation):
            return
        generation.runs_started += 1
        events = None
        try:
            # Inside: a backend may refuse its input as it is called, before any event.
            events = generation.backend.send(send_input)
            async for event in events:
                await recorder.record(run, event)
            await recorder.await_uncommitted(run)
        except asyncio.CancelledError:
            raise
        except Exception as failure:
            run.backend_failure = failure
            await recorder.settle_uncommitted(run)
            await self._record_backend_failure(run, failure)
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                with contextlib.suppress(Exception):
                    await aclose()
        await recorder.append_quietly(run, recorder.flush(run))

    async def _record_backend_failure(self, run: Run, failure: Exception) -> None:
        if run.stopped:
            log.info("turn %s ended with %s after its stop", run.turn_id, describe(failure))
            return
        error = ErrorEvent(
            turn_id=run.turn_id,
            message=str(failure) or type(failure).__name__,
            code=getattr(failure, "error_code", "") or "backend_failed",
            id=self._deps.new_id(),
            ts=self._deps.now(),
        )
        await self.recorder.append_quietly(run, [*self.recorder.flush(run), error])

    # -- settle --------------------------------------------------------------------------------

    async def _settle(self, run: Run, runtime: SessionRuntime, terminal: TurnStatus | None) -> None:
        writer = end_writer(run.state, stop_claimed=run.stop_op is not None)
        op = run.stop_op if writer is EndWriter.STOP else None
        ending = writer is EndWriter.RUN and terminal is not None
        if ending:
            run.advance(RunState.ENDING)  # from here no stop can claim the run
        if op is not None:
            # The stop's own close comes first (then the leftovers are the run's to reject).
            await op.cleaned.wait()
        # Closing the owners records resolutions and rejected messages: before the end.
        failures: list[Exception | None] = [*await self._release_owners(run)]
        failures.extend(run.authority_failures)
        own = combine_failures(failures)
        if op is not None:
            # The stop projects the turn after everything the run recorded; releasing the
            # claim before that would let the next turn's records interleave with its end.
            op.run_failure = own
            run.records_done.set()
            await op.finished.wait()
            failures.append(op.end_failure)  # its stream ends with it, not silently
        elif ending:
            assert terminal is not None
            failures.append(await self._record_end(run, terminal, own))
        run.records_done.set()
        run.sealed = True
        late = await self._retire(run, runtime)
        failures.append(late)
        run.terminal_failure = combine_failures(failures)
        self._finish(run, runtime)
        if late is not None:
            # After the turn's end: a note of the session, not of the turn.
            await self._sessions.record_failure(
                run.session_id, "", f"disposing the backend after turn {run.turn_id}", late
            )

    async def _retire(self, run: Run, runtime: SessionRuntime) -> Exception | None:
        generation = run.generation
        if generation is None:
            return None
        runtime.note_generation(generation)
        if generation.retire_when_idle and generation.active and not generation.reservations:
            try:
                await generation.dispose()
            except Exception as failure:
                return failure
            finally:
                runtime.note_generation(generation)
        return None

    async def _record_end(
        self, run: Run, terminal: TurnStatus, cleanup_failure: Exception | None
    ) -> Exception | None:
        """The run's own terminal state, exactly once (a stop can no longer claim the run);
        a failure of its cleanup goes on the record just before it."""
        if any(isinstance(f, PersistenceFailedError) for f in run.authority_failures):
            terminal = "failed"  # some of what the turn did is not on the record
        deps = self._deps
        now = deps.now()
        ending: list[StoredMessage] = []
        if cleanup_failure is not None:
            log.error(
                "turn cleanup failed (session %s, turn %s): %s",
                run.session_id,
                run.turn_id,
                describe(cleanup_failure),
            )
            ending.append(
                SystemNote(
                    kind="error",
                    text=f"turn cleanup failed: {cleanup_failure}",
                    turn_id=run.turn_id,
                    id=deps.new_id(),
                    ts=now,
                )
            )
        ending.append(TurnState(turn_id=run.turn_id, status=terminal, id=deps.new_id(), ts=now))
        patch: HeaderPatch = {"status": "active", "status_updated_at": now, "has_unread": True}
        run.sealed = True
        try:
            # The end and the header's "active" are one commit: no reader sees one alone.
            await self._sessions.append(run.session_id, ending, patch)
        except asyncio.CancelledError:
            raise
        except Exception as failure:
            # Never left running: recorded as soon as the store takes writes again.
            self._turn_ends.add(
                run.session_id, run.turn_id, entries=ending, patch=patch, cause=failure
            )
            return failure
        return None

    async def _release_owners(self, run: Run) -> list[Exception | None]:
        failures: list[Exception | None] = []
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
        return failures

    async def _reject_leftovers(self, run: Run) -> None:
        assert run.messages is not None
        try:
            leftovers = list(run.messages.owner.pull())
            if leftovers:
                run.messages.owner.nack([m.message_id for m in leftovers], "turn ended")
        except Exception as failure:
            run.authority_failures.append(failure)
            return
        recorder = self.recorder
        await recorder.append_quietly(
            run, [recorder.rejection_note(run, m, "turn ended") for m in leftovers]
        )

    def _finish(self, run: Run, runtime: SessionRuntime) -> None:
        run.records_done.set()
        if run.generation is not None:
            run.generation.reservations.discard(run.run_id)
        if runtime.active_run is run:
            runtime.active_run = None
        if run.state is not RunState.SETTLED:
            run.advance(RunState.SETTLED)
        runtime.log.notify()


def _stale_reason(run: Run, runtime: SessionRuntime, generation: Generation) -> str:
    """Why a run that has just reserved *generation* may not go on ("" if it may)."""
    if not runtime.is_current(generation):
        return (
            f"backend generation {generation.number} was stopped or replaced while the "
            "turn was being reserved"
        )
    if runtime.stop_epoch != run.epoch or run.stop_op is not None:
        return "the session was stopped while the turn was being reserved"
    return ""


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

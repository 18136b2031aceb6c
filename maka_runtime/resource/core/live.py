"""One run from admission to its terminal record: its process, its output, and the futures that
tell callers when it is running and when it has ended.

A :class:`LiveRun` alone drives its own lifecycle (launch → supervise → finish → retire) and
alone writes its record after ``starting``, from one supervision task, so revisions never race.
Termination records its reason before it sends a signal; the leader is reaped only after the
kill sequence is done with its process group (see ``process/termination.py``). Every state
change is committed before observers hear of it. When it retires, the run tells its supervisor
(the ``retire`` callback), which alone keeps the set of live runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from maka_runtime.resource.core.context import RunContext, transient
from maka_runtime.resource.core.errors import (
    InternalFailureError,
    InvalidRequestError,
    OperationConflictError,
    PersistenceFailedError,
    ResourceError,
    ShellRunPtyControlClosedError,
)
from maka_runtime.resource.core.live_output import RunOutput
from maka_runtime.resource.core.outcome import TerminationReason, final_record
from maka_runtime.resource.core.output import OutputChunk, OutputEvent
from maka_runtime.resource.core.process import (
    RUN_MARKER_VARIABLE,
    ExitStatus,
    LeaderEndedError,
    PipesProcess,
    ProcessHandle,
    PtyProcess,
    TerminationStep,
    terminate_group,
)
from maka_runtime.resource.core.process.gated import Gated, GatedStart, opened
from maka_runtime.resource.core.records import PtyOutput, ShellRunOutput, ShellRunRecord

if TYPE_CHECKING:
    from maka_runtime.resource.core.requests import BashInput
    from maka_runtime.resource.core.sandbox.bwrap import SandboxLayout

__all__ = ["NOT_PTY", "EndCallback", "LiveRun"]

NOT_PTY = "{ref} is a pipes run; input and resize need a PTY run (start one with pty=true)"

log = logging.getLogger(__name__)

#: Loop steps a record write takes to reach the store's thread (see :func:`_handed_to_store`).
_STORE_HAND_OFF_STEPS = 2

#: Called exactly once when a run ends, with its terminal record (``None`` if it was lost).
EndCallback = Callable[[ShellRunRecord | None], None]


class LiveRun:
    """One run between admission and its terminal record."""

    def __init__(
        self,
        record: ShellRunRecord,
        context: RunContext,
        *,
        emit_output: Callable[[OutputChunk], None] | None,
        on_end: EndCallback | None,
        retire: Callable[[LiveRun], None],
        shape: SandboxLayout | None = None,
    ) -> None:
        loop = asyncio.get_running_loop()
        self.record = record
        #: The sandbox layout admission computed for this run (``None``: none yet, or none).
        self._shape = shape
        self._ctx = context
        self._retire = retire
        self._on_end = on_end
        #: False until the ``starting`` record is committed; until then nobody may see the run.
        self.inserted = False
        self.process: ProcessHandle | None = None
        journals = context.journals
        self.output = RunOutput(
            record,
            context.config,
            journal=journals.writer(record.id),
            open_journal=lambda: journals.reader(record.id),
            emit_output=emit_output,
            respond=self._answer_terminal_query,
        )
        #: Why the host is ending the run, recorded before any signal is sent.
        self.termination_reason: TerminationReason | None = None
        self.termination_step: TerminationStep | None = None
        self._termination: asyncio.Task[TerminationStep] | None = None
        self._supervision: asyncio.Task[None] | None = None
        self._timeout: asyncio.TimerHandle | None = None
        self._retired = False
        #: Set once control is closed: termination began or the process exited.
        self.closing = asyncio.Event()
        self.running: asyncio.Future[ShellRunRecord] = loop.create_future()
        self.terminal: asyncio.Future[ShellRunRecord] = loop.create_future()
        # Callers that only observe these futures must not cause "exception never retrieved".
        self.running.add_done_callback(_consume)
        self.terminal.add_done_callback(_consume)

    @property
    def ref(self) -> str:
        return self.record.ref

    @property
    def pty(self) -> PtyProcess | None:
        return self.process if isinstance(self.process, PtyProcess) else None

    def snapshot(self) -> ShellRunRecord:
        """The current revision with its live output."""
        if not self.record.active:
            return self.record
        return self.record.with_output(self.output.snapshot())

    # -- output and control ----------------------------------------------------------------

    def follow(self, after_sequence: int, *, coalesce: int) -> AsyncIterator[OutputEvent]:
        """Output after *after_sequence* (not negative): replay from memory or the journal, then
        live, until the run ends."""
        return self.output.follow(after_sequence, coalesce=coalesce)

    def screen(self) -> PtyOutput:
        """The current screen (a PTY run)."""
        if self.output.screen is None:
            raise InvalidRequestError(f"{self.ref} is a pipes run and has no screen", field="ref")
        return self.output.screen.snapshot()

    def write(self, payload: bytes) -> None:
        """Queue input for the terminal."""
        self._require_control().write(payload)

    def resize(self, cols: int, rows: int) -> None:
        pty = self._require_control()
        screen = self.output.screen
        if screen is None:
            raise OperationConflictError(f"{self.ref} is still starting")
        pty.resize(cols, rows)
        screen.resize(cols, rows)

    def _require_control(self) -> PtyProcess:
        if self.record.mode != "pty":
            raise InvalidRequestError(NOT_PTY.format(ref=self.ref), field="ref")
        if self.closing.is_set():
            raise ShellRunPtyControlClosedError(
                f"the terminal of {self.ref} is closing; it no longer accepts input or resizes"
            )
        if self.pty is None:
            raise OperationConflictError(f"{self.ref} is still starting")
        return self.pty

    # -- lifecycle -------------------------------------------------------------------------

    async def launch(self, request: BashInput) -> ShellRunRecord:
        """Commit the ``starting`` record, spawn the process and start supervising it; returns
        the ``running`` record (or the terminal one, if it could not start).

        The record's write goes to the store first; a pipes run's process is spawned, gated,
        while it commits; nothing of the command runs until the record is durable and the gate
        opens. If the record is refused, or the run is stopped meanwhile, the gate closes and
        the process ends there; if the host dies, so does the gate's other end. A PTY run is
        spawned once the record is committed, gated as well, and its gate opened at once."""
        ctx = self._ctx
        inserting = ctx.spawn(
            ctx.store_call(ctx.store.insert(self.record), self.ref, write=True),
            f"record {self.ref}",
        )
        gated: Gated | None = None
        spawn_error: Exception | None = None
        try:
            if not request.pty:
                await _handed_to_store()
                gated, spawn_error = self._spawn_gated(request)
            record = await inserting
        except BaseException as error:
            try:
                await self._abandon_gated(gated)
            finally:
                self._retire_run(None, error)
            raise
        self.record = record
        self.inserted = True
        ctx.notify("changed", record)
        if self.termination_reason is not None:
            # Admitted before a drain or a stop, which reached it before it spawned.
            await self._abandon_gated(gated)
            return await self._finish(ExitStatus(130), reason="cancelled")
        try:
            if spawn_error is not None:
                raise spawn_error
            process = await opened(gated or self._spawn(request, gated=True))  # PTY: gated too
        except Exception as error:
            log.warning("could not start %s: %s", self.ref, error)
            return await self._finish(None, start_error=error)
        self.process = process
        if record.timeout_ms is not None:
            self._timeout = asyncio.get_running_loop().call_later(
                record.timeout_ms / 1000, self.begin_termination, "timed_out"
            )
        self._supervision = ctx.spawn(self._supervise(process), f"supervise {self.ref}")
        return await self.running

    def _spawn_gated(self, request: BashInput) -> tuple[Gated | None, Exception | None]:
        """A pipes run's process, gated (see :meth:`launch`), or why it could not start."""
        try:
            return self._spawn(request, gated=True), None
        except Exception as error:
            return None, error

    async def _abandon_gated(self, gated: Gated | None) -> None:
        """End a gated process at its gate (nothing of its command ran) and release it."""
        process = await gated.stopped() if isinstance(gated, GatedStart) else gated
        if process is None:
            return
        process.close_gate()
        try:
            await process.kill(self._ctx.config.kill_timeout)
        except Exception:
            # Its gate is closed, so it can never run the command: its leader ends there by
            # itself, and is reaped if it does in time; what is left (its cgroup) is the start-up
            # sweep's, never a reason to keep the run live.
            log.exception("could not end the gated process of %s", self.ref)
            with contextlib.suppress(Exception):
                await asyncio.shield(process.exit_watch.wait(self._ctx.config.kill_timeout))
                if process.exited:
                    process.reap()
                process.close()

    def _spawn(self, request: BashInput, *, gated: bool = False) -> Gated:
        config = self._ctx.config
        plan = self._ctx.sandbox.prepare(
            request,
            self.record.id,
            os.environ if config.base_env is None else config.base_env,
            {RUN_MARKER_VARIABLE: self.record.id},
            self._shape,
        )
        sink = self.output.on_output
        try:
            if request.pty:
                return PtyProcess.spawn(
                    request.command,
                    cwd=request.cwd,
                    plan=plan,
                    cols=request.cols,
                    rows=request.rows,
                    sink=sink,
                    gated=gated,
                )
            if gated and plan.direct:
                # Created off the loop, no shell: the native spawner reads the gate.
                return GatedStart.begin(request.command, cwd=request.cwd, plan=plan, sink=sink)
            return PipesProcess.spawn(
                request.command, cwd=request.cwd, plan=plan, sink=sink, gated=gated
            )
        except BaseException:
            if plan.cgroup is not None:
                plan.cgroup.remove()
            raise

    async def _supervise(self, process: ProcessHandle) -> None:
        try:
            await self._mark_running(process)
            await process.exit_watch.wait()
            self.close_control()
            # The leader is a zombie, so its group id is still ours: kill what it left behind
            # (grandchildren holding the output open) before reaping it.
            process.kill_leftovers()
            status = process.reap()
            if self._termination is not None:
                self.termination_step = await self._termination
            if not await process.wait_output_eof(self._ctx.config.output_drain_timeout):
                log.warning("%s: output still open after its process group ended", self.ref)
                process.drain_ready_output()
            if not await process.release_cgroup(self._ctx.config.kill_timeout):
                log.error("%s: processes outlived the run (%s)", self.ref, process.cgroup or "pg")
            if self.termination_reason is None and process.ended_before_command():
                # Its exit status is its leader's, not the command's (which never ran).
                await self._finish(None, start_error=LeaderEndedError(status))
                return
            await self._finish(status)
        except asyncio.CancelledError:
            await self._abandon(process)
            if not self._retired:
                self._retire_run(
                    None, InternalFailureError(f"supervision of {self.ref} was cancelled")
                )
            raise
        except Exception as error:
            if not self._retired:
                self._retire_run(None, error)
            if not isinstance(error, ResourceError):
                log.exception("supervising %s failed", self.ref)
                self._ctx.fail(f"supervising {self.ref} failed", error)

    async def _mark_running(self, process: ProcessHandle) -> None:
        """Commit the ``running`` revision; if the store refuses it, kill the process."""
        ctx = self._ctx
        try:
            started = await ctx.store_call(
                ctx.store.update(self.record.started(process=process.identity, now=ctx.now())),
                self.ref,
                write=True,
            )
        except BaseException as error:
            await self._abandon(process)
            if transient(error):
                # The ``starting`` record is committed: its end must be too, later.
                ctx.pending.add(
                    self.record.finished(
                        status="failed",
                        now=ctx.now(),
                        output=self._output(),
                        message=f"Command could not be recorded as running ({error}); "
                        "its process was killed",
                    ).with_journal(self.output.close())
                )
            self._retire_run(None, error)
            raise
        self.record = started
        ctx.notify("changed", started)
        self.running.set_result(started)
        if self.termination_reason is not None:
            self._start_kill_sequence(process)

    async def _finish(
        self,
        status: ExitStatus | None,
        *,
        reason: TerminationReason | None = None,
        start_error: BaseException | None = None,
    ) -> ShellRunRecord:
        """Commit the terminal revision and retire the run."""
        ctx = self._ctx
        self._release()
        final = final_record(
            self.record,
            output=self._output(),
            now=ctx.now(),
            status=status,
            reason=reason or self.termination_reason,
            start_error=start_error,
        ).with_journal(self.output.close())
        try:
            final = await ctx.store_call(ctx.store.update(final), self.ref, write=True)
        except BaseException as error:
            if not transient(error):
                self._retire_run(None, error)
                raise
            ctx.pending.add(final)
            failure = PersistenceFailedError(
                f"{self.ref} ended ({final.status}) but the store refused its record "
                f"({error}); it is written as soon as the store takes writes again"
            )
            self._retire_run(None, failure)
            raise failure from error
        self._retire_run(final, None)
        return final

    def _retire_run(self, final: ShellRunRecord | None, error: BaseException | None) -> None:
        """Resolve the futures, tell observers and the supervisor, run the end callback."""
        self._retired = True
        self._retire(self)
        if self._timeout is not None:
            self._timeout.cancel()
        self.closing.set()
        if self.process is not None:
            self.process.close()
        self.output.close()
        if self.inserted:
            self._ctx.journals.ended(self.record.id, self.output.journal.size)
        else:
            self._ctx.journals.discard(self.record.id)
        if final is not None:
            self.record = final
            self._ctx.notify("changed", final)
            if not self.running.done():
                self.running.set_result(final)
            self.terminal.set_result(final)
        else:
            lost = (
                error
                if isinstance(error, Exception)
                else InternalFailureError(f"{self.ref} was abandoned")
            )
            if not self.running.done():
                self.running.set_exception(lost)
            if not self.terminal.done():
                self.terminal.set_exception(lost)
        self._end(final)

    def _release(self) -> None:
        if self._timeout is not None:
            self._timeout.cancel()
        self.close_control()
        if self.process is not None:
            self.process.close()
        self.output.close()

    async def _abandon(self, process: ProcessHandle) -> None:
        """Kill and reap a process whose run can no longer be recorded."""
        self.close_control()
        await process.kill(self._ctx.config.kill_timeout)

    def _end(self, record: ShellRunRecord | None) -> None:
        on_end, self._on_end = self._on_end, None
        if on_end is not None:
            try:
                on_end(record)
            except Exception:
                log.exception("end callback of %s failed", self.ref)

    # -- termination -----------------------------------------------------------------------

    def begin_termination(self, reason: TerminationReason) -> None:
        """Record why, close control, then signal (once the process exists)."""
        if self.termination_reason is not None or not self.record.active:
            return
        if self.process is not None and self.process.exited:
            return  # it is ending on its own; its own exit status stands
        self.termination_reason = reason
        self.close_control()
        if self.process is not None and self._supervision is not None:
            self._start_kill_sequence(self.process)

    def _start_kill_sequence(self, process: ProcessHandle) -> None:
        if self._termination is not None:
            return
        config = self._ctx.config
        self._termination = self._ctx.spawn(
            terminate_group(
                process.pid,
                process.exit_watch,
                grace=config.termination_grace,
                kill_timeout=config.kill_timeout,
                hurry=self._ctx.hurry,
                kill=process.kill_all,
            ),
            f"terminate {self.ref}",
        )
        self._termination.add_done_callback(self._check_termination)

    def _check_termination(self, task: asyncio.Task[TerminationStep]) -> None:
        if task.cancelled() or task.exception() is not None:
            return
        if task.result() is TerminationStep.SURVIVED:
            pid = self.process.pid if self.process else "?"
            error = InternalFailureError(f"{self.ref}: process {pid} survived SIGKILL")
            log.error("%s", error)
            self._ctx.fail(str(error), error)

    def close_control(self) -> None:
        """Stop accepting input and resizes (termination began, or the process exited)."""
        if self.closing.is_set():
            return
        self.closing.set()
        pty = self.pty
        if pty is not None:
            pty.close_input()
        if self.inserted:
            self._ctx.notify("closing", self.record)

    # -- helpers ---------------------------------------------------------------------------

    def _output(self) -> ShellRunOutput:
        return self.output.snapshot()

    def _answer_terminal_query(self, answer: str) -> None:
        pty = self.pty
        if pty is not None and not pty.input_closed and not self.closing.is_set():
            try:
                pty.write(answer.encode())
            except Exception:
                log.debug("could not answer a terminal query of %s", self.ref, exc_info=True)


async def _handed_to_store() -> None:
    """Let the ``starting`` record's write reach the store's thread before the spawn, which
    holds the event loop for a few hundred microseconds (``fork``/``exec`` of the leader): the
    store queues the write in one loop step and hands it to its thread in the next, so its
    commit (and ``fdatasync``) runs during the spawn instead of after it. Were it to take more
    steps, the two would merely overlap less."""
    for _ in range(_STORE_HAND_OFF_STEPS):
        await asyncio.sleep(0)


def _consume(future: asyncio.Future[ShellRunRecord]) -> None:
    if not future.cancelled():
        future.exception()

"""Driving one live run from its ``starting`` record to its terminal record.

Each run has one supervisor task that alone writes its record after ``starting``, so revisions
never race. Termination records its reason before it sends a signal; the leader is reaped only
after the kill sequence is done with its process group (see termination.py). Every state change
is committed before observers hear of it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Callable, Coroutine
from typing import Any, Final, Literal, TypeVar

from resource_service.core._child import ChildProcess, ExitStatus, child_environment
from resource_service.core._live import LiveRun, TerminationReason
from resource_service.core._pending import PendingRecords
from resource_service.core.config import ShellRunConfig
from resource_service.core.errors import (
    InternalFailureError,
    PersistenceFailedError,
    ResourceError,
    StoreClosedError,
)
from resource_service.core.pipes import PipesProcess
from resource_service.core.pty import PtyRunProcess
from resource_service.core.records import ShellRunRecord
from resource_service.core.requests import BashInput
from resource_service.core.store import ShellRunStore
from resource_service.core.termination import TerminationStep, signal_group, terminate_group

__all__ = ["CANCELLED_MESSAGE", "RunSupervisor", "timed_out_message"]

log = logging.getLogger(__name__)

_T = TypeVar("_T")

CANCELLED_MESSAGE: Final = "Command cancelled"


def timed_out_message(timeout_ms: int) -> str:
    return f"Command timed out after {timeout_ms} ms"


class RunSupervisor:
    """The live runs of one manager and the tasks that drive them."""

    def __init__(
        self,
        *,
        store: ShellRunStore,
        config: ShellRunConfig,
        now: Callable[[], int],
        notify: Callable[[Literal["changed", "closing"], ShellRunRecord], None],
        fail: Callable[[str, BaseException], None],
    ) -> None:
        self._store = store
        self._config = config
        self._now = now
        self._notify = notify
        self._fail = fail
        #: Runs from admission to retirement, by ref.
        self.live: dict[str, LiveRun] = {}
        #: Every task the supervisor started; awaited on close.
        self.tasks: set[asyncio.Task[Any]] = set()
        #: Set by the manager when draining begins: admitted runs not yet spawned are cancelled.
        self.draining = False
        #: Set when the host can wait no longer (its shutdown grace ran out): every termination,
        #: running or to come, skips the rest of its grace period and goes straight to SIGKILL.
        self.hurry = asyncio.Event()
        #: Terminal records the store refused (a full disk), written again until it takes them.
        self.pending = PendingRecords(
            write=lambda record: self.store_call(
                self._store.update(record), record.ref, write=True
            ),
            committed=lambda record: self._notify("changed", record),
        )

    async def launch(self, run: LiveRun, request: BashInput) -> ShellRunRecord:
        try:
            record = await self.store_call(self._store.insert(run.record), run.ref, write=True)
        except BaseException as error:
            self.drop(run, None, error)
            raise
        run.record = record
        run.inserted = True
        self._notify("changed", record)
        if self.draining or run.termination_reason is not None:
            # Admitted before the drain began, but the drain reached it before it spawned.
            return await self.finish(run, ExitStatus(130), reason="cancelled")
        env = child_environment(
            os.environ if self._config.base_env is None else self._config.base_env,
            request.env,
            record.id,
            pty=request.pty,
        )
        process: ChildProcess
        try:
            if request.pty:
                process = PtyRunProcess.spawn(
                    request.command,
                    cwd=request.cwd,
                    env=env,
                    cols=request.cols,
                    rows=request.rows,
                    sink=run.on_output,
                )
            else:
                process = PipesProcess.spawn(
                    request.command, cwd=request.cwd, env=env, sink=run.on_output
                )
        except Exception as error:
            log.warning("could not start %s: %s", run.ref, error)
            return await self.finish(run, None, start_error=error)
        run.process = process
        if record.timeout_ms is not None:
            run.timeout_handle = asyncio.get_running_loop().call_later(
                record.timeout_ms / 1000, self.begin_termination, run, "timed_out"
            )
        run.supervisor = self.own(self.supervise(run, process))
        return await run.running

    # -- supervision -----------------------------------------------------------------------

    async def supervise(self, run: LiveRun, process: ChildProcess) -> None:
        try:
            try:
                started = await self.store_call(
                    self._store.update(
                        run.record.started(process=process.identity, now=self._now())
                    ),
                    run.ref,
                    write=True,
                )
            except BaseException as error:
                await self.abandon_process(run, process)
                if _transient(error):
                    # The ``starting`` record is committed: its end must be too, later.
                    self.pending.add(
                        run.record.finished(
                            status="failed",
                            now=self._now(),
                            output=run.output(),
                            message=f"Command could not be recorded as running ({error}); "
                            "its process was killed",
                        )
                    )
                self.drop(run, None, error)
                raise
            run.record = started
            self._notify("changed", started)
            run.running.set_result(started)
            if run.termination_reason is not None:
                self.launch_termination(run, process)

            await process.exit_watch.wait()
            self.close_control(run)
            # The leader is a zombie, so its group id is still ours: kill what it left behind
            # (grandchildren holding the output open) before reaping it.
            process.kill_leftovers()
            status = process.reap()
            if run.termination_task is not None:
                run.termination_step = await run.termination_task
            if not await process.wait_output_eof(self._config.output_drain_timeout):
                log.warning("%s: output still open after its process group ended", run.ref)
                process.drain_ready_output()
            await self.finish(run, status)
        except asyncio.CancelledError:
            await self.abandon_process(run, process)
            if self.live.get(run.ref) is run:
                self.drop(
                    run, None, InternalFailureError(f"supervision of {run.ref} was cancelled")
                )
            raise
        except Exception as error:
            if self.live.get(run.ref) is run:
                self.drop(run, None, error)
            if not isinstance(error, ResourceError):
                log.exception("supervising %s failed", run.ref)
                self._fail(f"supervising {run.ref} failed", error)

    async def finish(
        self,
        run: LiveRun,
        status: ExitStatus | None,
        *,
        reason: TerminationReason | None = None,
        start_error: BaseException | None = None,
    ) -> ShellRunRecord:
        """Commit the terminal revision and retire the run."""
        if run.timeout_handle is not None:
            run.timeout_handle.cancel()
        self.close_control(run)
        if run.process is not None:
            run.process.close()
        run.log.close()
        reason = reason or run.termination_reason
        record = run.record
        output = run.output()
        now = self._now()
        if start_error is not None:
            final = record.finished(
                status="failed",
                now=now,
                output=output,
                message=f"Command could not start: {start_error}",
            )
        elif reason == "timed_out":
            final = record.finished(
                status="timed_out",
                now=now,
                output=output,
                exit_code=124,
                signal=status.signal if status else None,
                message=timed_out_message(record.timeout_ms or 0),
            )
        elif reason == "cancelled":
            final = record.finished(
                status="cancelled",
                now=now,
                output=output,
                exit_code=130,
                signal=status.signal if status else None,
                message=CANCELLED_MESSAGE,
            )
        elif status is None:
            raise InternalFailureError(f"{run.ref} ended without an exit status")
        elif status.signal is not None:
            final = record.finished(
                status="failed",
                now=now,
                output=output,
                exit_code=status.exit_code,
                signal=status.signal,
                message=f"Command terminated by {_signal_name(status.signal)}",
            )
        else:
            final = record.finished(
                status="completed" if status.exit_code == 0 else "failed",
                now=now,
                output=output,
                exit_code=status.exit_code,
            )
        try:
            final = await self.store_call(self._store.update(final), run.ref, write=True)
        except BaseException as error:
            if not _transient(error):
                self.drop(run, None, error)
                raise
            self.pending.add(final)
            failure = PersistenceFailedError(
                f"{run.ref} ended ({final.status}) but the store refused its record "
                f"({error}); it is written as soon as the store takes writes again"
            )
            self.drop(run, None, failure)
            raise failure from error
        self.drop(run, final, None)
        return final

    def drop(self, run: LiveRun, final: ShellRunRecord | None, error: BaseException | None) -> None:
        """Retire *run*: resolve its futures, tell observers, return its residency."""
        if self.live.get(run.ref) is run:
            del self.live[run.ref]
        if run.timeout_handle is not None:
            run.timeout_handle.cancel()
        run.closing.set()
        if run.process is not None:
            run.process.close()
        run.log.close()
        if final is not None:
            run.record = final
            self._notify("changed", final)
            if not run.running.done():
                run.running.set_result(final)
            run.terminal.set_result(final)
        else:
            lost = (
                error
                if isinstance(error, Exception)
                else InternalFailureError(f"{run.ref} was abandoned")
            )
            if not run.running.done():
                run.running.set_exception(lost)
            if not run.terminal.done():
                run.terminal.set_exception(lost)
        run.end(final)

    async def abandon_process(self, run: LiveRun, process: ChildProcess) -> None:
        """Kill and reap a process whose run can no longer be recorded."""
        self.close_control(run)
        if process.reaped:
            process.close()
            return
        if not process.exited:
            signal_group(process.pid, signal.SIGKILL)
            await asyncio.shield(process.exit_watch.wait(self._config.kill_timeout))
        if process.exited:
            process.kill_leftovers()
            process.reap()
        process.close()

    # -- termination -----------------------------------------------------------------------

    def begin_termination(self, run: LiveRun, reason: TerminationReason) -> None:
        """Record why, close control, then signal (once the process exists)."""
        if run.termination_reason is not None or not run.record.active:
            return
        if run.process is not None and run.process.exited:
            return  # it is ending on its own; its own exit status stands
        run.termination_reason = reason
        self.close_control(run)
        if run.process is not None and run.supervisor is not None:
            self.launch_termination(run, run.process)

    def launch_termination(self, run: LiveRun, process: ChildProcess) -> None:
        if run.termination_task is not None:
            return
        run.termination_task = self.own(
            terminate_group(
                process.pid,
                process.exit_watch,
                grace=self._config.termination_grace,
                kill_timeout=self._config.kill_timeout,
                hurry=self.hurry,
            )
        )
        run.termination_task.add_done_callback(lambda task: self.check_termination(run, task))

    def check_termination(self, run: LiveRun, task: asyncio.Task[TerminationStep]) -> None:
        if task.cancelled() or task.exception() is not None:
            return
        if task.result() is TerminationStep.SURVIVED:
            error = InternalFailureError(
                f"{run.ref}: process {run.process.pid if run.process else '?'} survived SIGKILL"
            )
            log.error("%s", error)
            self._fail(str(error), error)

    def close_control(self, run: LiveRun) -> None:
        if run.closing.is_set():
            return
        run.closing.set()
        pty = run.pty
        if pty is not None:
            pty.close_input()
        if run.inserted:
            self._notify("closing", run.record)

    async def store_call(
        self, call: Coroutine[Any, Any, _T], ref: str | None, *, write: bool = False
    ) -> _T:
        """Await a store call. Only a broken invariant of the host's own state trips the
        fail-stop latch: the store's owner lease is gone (``StoreClosedError``: this process no
        longer owns its data) or the stored state diverged from the host's
        (``InternalFailureError``). A write the store refuses (``PersistenceFailedError``: a
        full disk) fails this call only; a value the store cannot take is the caller's."""
        where = f" for {ref}" if ref else ""
        try:
            result = await call
        except StoreClosedError as error:
            self._fail(f"the shell-run store refuses every call{where}: {error}", error)
            raise
        except InternalFailureError as error:
            self._fail(f"the shell-run store diverged{where}: {error}", error)
            raise
        except (ResourceError, asyncio.CancelledError):
            raise
        except Exception as error:
            log.exception("the shell-run store failed unexpectedly%s", where)
            raise InternalFailureError(f"the shell-run store failed unexpectedly{where}") from error
        if write:
            self.pending.store_accepts_writes()
        return result

    def own(self, coro: Coroutine[Any, Any, _T]) -> asyncio.Task[_T]:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task


def _transient(error: BaseException) -> bool:
    """A write the store refused but may take later (not a lost store, not a divergence)."""
    return isinstance(error, PersistenceFailedError) and not isinstance(error, StoreClosedError)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"

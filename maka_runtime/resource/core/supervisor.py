"""The run supervisor: the one owner of a host's live runs.

It admits runs (the live-run limits), keeps the set of live runs from admission to retirement,
starts and stops them, answers for them (records, output, screens, control), and ends them all
when the host drains (:meth:`RunSupervisor.begin_drain`, :meth:`RunSupervisor.hurry`). Each
run drives its own lifecycle (:class:`~.live.LiveRun`); nobody else writes the supervisor's
state.

Work a caller starts is owned by the supervisor, not by the caller's task: a client that goes
away mid-start cannot leave a half-started run behind (the caller awaits a shielded task).
Every state change is committed to the store before anyone can observe it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Literal

from maka_runtime.resource.core.catalog import RunCatalog
from maka_runtime.resource.core.config import ShellRunConfig
from maka_runtime.resource.core.context import RunContext
from maka_runtime.resource.core.drain import DrainReport, report_of
from maka_runtime.resource.core.errors import (
    HostDrainingError,
    InternalFailureError,
    InvalidRequestError,
    NotFoundError,
    OperationConflictError,
    PersistenceFailedError,
    ShellRunPtyControlClosedError,
)
from maka_runtime.resource.core.finished import FinishedRuns
from maka_runtime.resource.core.journals import OutputJournals
from maka_runtime.resource.core.live import NOT_PTY, EndCallback, LiveRun
from maka_runtime.resource.core.live_limits import check_live_limits
from maka_runtime.resource.core.live_output import RunOutput
from maka_runtime.resource.core.output import OutputEvent
from maka_runtime.resource.core.records import (
    PipesOutput,
    PtyOutput,
    RunKind,
    ShellRunRecord,
    format_ref,
    parse_ref,
)
from maka_runtime.resource.core.recovery import RecoveryReport, sweep_orphaned_runs
from maka_runtime.resource.core.requests import BashInput, check_session_id, check_size
from maka_runtime.resource.core.sandbox import Sandbox
from maka_runtime.resource.core.store import ShellRunStore
from maka_runtime.resource.core.supervisor_support import (
    ShellRunUpdate,
    for_caller,
    remove,
)
from maka_runtime.resource.core.supervisor_support import new_id as _new_id
from maka_runtime.resource.core.supervisor_support import now_ms as _now_ms

__all__ = ["RunSupervisor", "ShellRunUpdate"]

log = logging.getLogger(__name__)


class RunSupervisor:
    """Runs shell commands over pipes or a PTY and keeps their records.

    Create with :meth:`open`, which first turns runs a dead host left active into ``orphaned``.
    """

    def __init__(
        self,
        *,
        store: ShellRunStore,
        config: ShellRunConfig | None = None,
        new_id: Callable[[], str] = _new_id,
        now: Callable[[], int] = _now_ms,
        sandbox: Sandbox | None = None,
        journals: OutputJournals | None = None,
    ) -> None:
        self._store = store
        self._config = config or ShellRunConfig()
        self._new_id = new_id
        self._now = now
        self._ctx = RunContext(
            store=store, config=self._config, now=now, notify=self._notify, fail=self._fail,
            sandbox=sandbox or Sandbox.open(self._config.sandbox), journals=journals,
        )  # fmt: skip
        #: Terminal records as committed, answered without the store (:mod:`.finished`).
        self._finished = FinishedRuns(self._config.finished_run_cache_bytes)
        self._catalog = RunCatalog(self._ctx, self._with_live_output, self._finished)
        #: Runs from admission to retirement, by ref.
        self._live: dict[str, LiveRun] = {}
        self._update_listeners: list[Callable[[ShellRunUpdate], None]] = []
        self._failure_listeners: list[Callable[[str, BaseException], None]] = []
        self._draining = False
        self._drain_report: DrainReport | None = None
        self._drained: list[LiveRun] = []
        self.recovery: RecoveryReport | None = None

    @classmethod
    async def open(
        cls,
        *,
        store: ShellRunStore,
        config: ShellRunConfig | None = None,
        new_id: Callable[[], str] = _new_id,
        now: Callable[[], int] = _now_ms,
        sandbox: Sandbox | None = None,
    ) -> RunSupervisor:
        """A supervisor over *store*, after sweeping the runs a previous host left active.
        *sandbox*: one already opened on ``config.sandbox`` (probed while the caller did other
        work), which the supervisor then owns; by default it is opened here."""
        config = config or ShellRunConfig()
        if sandbox is None:
            sandbox = await asyncio.to_thread(Sandbox.open, config.sandbox)
        journals = await OutputJournals.open(
            None if config.output_dir is None else Path(config.output_dir),
            run_limit=config.max_run_output_bytes,
            total_limit=config.max_kept_output_bytes,
        )
        supervisor = cls(
            store=store, config=config, new_id=new_id, now=now, sandbox=sandbox, journals=journals
        )
        timeout = config.kill_timeout
        recovery = await sweep_orphaned_runs(store, journals, now=now, kill_timeout=timeout)
        supervisor.recovery = await sandbox.sweep(recovery, within=timeout)  # and its cgroups
        return supervisor

    @property
    def sandbox(self) -> Sandbox:
        return self._ctx.sandbox

    # -- observers -------------------------------------------------------------------------

    def add_update_listener(self, listener: Callable[[ShellRunUpdate], None]) -> Callable[[], None]:
        """Call *listener* synchronously for every update; returns a function that removes it."""
        self._update_listeners.append(listener)
        return lambda: remove(self._update_listeners, listener)

    def add_failure_listener(
        self, listener: Callable[[str, BaseException], None]
    ) -> Callable[[], None]:
        """Call *listener* when state was lost or an invariant broke (the fail-stop signal)."""
        self._failure_listeners.append(listener)
        return lambda: remove(self._failure_listeners, listener)

    @property
    def draining(self) -> bool:
        return self._draining

    @property
    def config(self) -> ShellRunConfig:
        return self._config

    @property
    def journals(self) -> OutputJournals:
        """The runs' output journals (:mod:`.journals`)."""
        return self._ctx.journals

    @property
    def catalog(self) -> RunCatalog:
        """Pages and change feeds of the runs (ending when the supervisor closes)."""
        return self._catalog

    def live_counts(self) -> tuple[int, int]:
        """(live runs, live PTY runs), including runs still starting."""
        ptys = sum(1 for run in self._live.values() if run.record.mode == "pty")
        return len(self._live), ptys

    # -- starting --------------------------------------------------------------------------

    async def start_background(
        self, request: BashInput, *, on_end: EndCallback | None = None
    ) -> ShellRunRecord:
        """Start a background run; returns its ``running`` record (or its terminal record if it
        could not start). *on_end* is called exactly once when the run ends, also when starting
        fails with an exception."""
        run = self._admit(request, kind="background", on_end=on_end)
        return await asyncio.shield(self._ctx.spawn(run.launch(request), f"launch {run.ref}"))

    async def start_foreground(
        self, request: BashInput, *, on_end: EndCallback | None = None
    ) -> ShellRunRecord:
        """Start a foreground (pipes) run and return its ``running`` record; follow it with
        :meth:`follow_output` and :meth:`finish_foreground`. A foreground run lives for its
        caller: if the caller is cancelled while it starts, the run is cancelled (and the caller
        waits for its end before the cancellation propagates)."""
        run = self._admit(request, kind="foreground", on_end=on_end)
        launching = self._ctx.spawn(run.launch(request), f"launch {run.ref}")
        return await for_caller(run, asyncio.shield(launching))

    async def run_foreground(
        self, request: BashInput, *, on_end: EndCallback | None = None
    ) -> ShellRunRecord:
        """Run a foreground command to its end and return the terminal record."""
        record = await self.start_foreground(request, on_end=on_end)
        return await self.finish_foreground(record.session_id, record.ref)

    async def finish_foreground(self, session_id: str, ref: str) -> ShellRunRecord:
        """Wait for a run's terminal record. If the caller is cancelled, the run is cancelled
        and the caller waits for its end before the cancellation propagates."""
        run = self._find_live(session_id, ref)
        if run is None:
            return await self._load(session_id, ref)
        return await for_caller(run, asyncio.shield(run.terminal))

    def _admit(self, request: BashInput, *, kind: RunKind, on_end: EndCallback | None) -> LiveRun:
        """Check and register a new run; synchronous, so a drain that has begun is honoured
        by every start that has not been admitted yet."""
        foreground = kind == "foreground"
        request.check(foreground=foreground)
        if not request.cwd:
            raise InvalidRequestError("cwd is required", field="cwd")
        shape = self._ctx.sandbox.admit(request)  # computed once, used again at the spawn
        if self._draining:
            raise HostDrainingError()
        check_live_limits(self._config, list(self._live.values()), request)
        now = self._now()
        record = ShellRunRecord(
            ref=format_ref(self._new_id()),
            session_id=request.session_id,
            source_turn_id=request.source_turn_id,
            source_tool_call_id=request.source_tool_call_id,
            kind=kind,
            mode="pty" if request.pty else "pipes",
            command=request.command,
            cwd=request.cwd,
            timeout_ms=request.effective_timeout_ms(foreground=foreground),
            status="starting",
            revision=1,
            change_seq=0,
            created_at=now,
            updated_at=now,
            output=PtyOutput(cols=request.cols, rows=request.rows)
            if request.pty
            else PipesOutput(),
            sandbox=self._ctx.sandbox.record_of(request),
        )
        run = LiveRun(
            record,
            self._ctx,
            emit_output=request.emit_output,
            on_end=on_end,
            retire=self._retire,
            shape=shape,
        )
        self._live[record.ref] = run
        return run

    def _retire(self, run: LiveRun) -> None:
        if self._live.get(run.ref) is run:
            del self._live[run.ref]

    # -- queries ---------------------------------------------------------------------------

    async def inspect(self, session_id: str, ref: str) -> ShellRunRecord:
        """The run as of now (live output for an active run)."""
        run = self._find_live(session_id, ref)
        if run is not None:
            return run.snapshot()
        return await self._load(session_id, ref)

    def finished_now(self, ref: str) -> ShellRunRecord | None:
        """:meth:`inspect`'s answer for a finished run that memory alone gives (its terminal
        record held, the run neither live nor waiting for its final write); ``None``
        otherwise."""
        if ref in self._live or ref in self._ctx.pending:
            return None
        return self._finished.get(ref)

    async def session_of(self, ref: str) -> str | None:
        """The session the run *ref* belongs to; ``None`` if no run has that ref."""
        parse_ref(ref)
        run = self._live.get(ref)
        if run is not None and run.inserted:
            return run.record.session_id
        record = await self._read(ref)
        return None if record is None else record.session_id

    async def wait_terminal(self, session_id: str, ref: str) -> ShellRunRecord:
        """Wait for the run's terminal record."""
        run = self._find_live(session_id, ref)
        if run is not None:
            return await asyncio.shield(run.terminal)
        return await self._load(session_id, ref)

    async def wait_closing(self, session_id: str, ref: str) -> None:
        """Wait until the run stops accepting control (termination began or it exited)."""
        run = self._find_live(session_id, ref)
        if run is not None:
            await run.closing.wait()
        else:
            await self._load(session_id, ref)

    def follow_output(
        self, session_id: str, ref: str, *, after_sequence: int = 0, coalesce: int = 0
    ) -> AsyncIterator[OutputEvent]:
        """Output chunks of a live run after *after_sequence* (replay, then live, until the run
        ends). Raises :class:`OperationConflictError` if the run is not live."""
        if after_sequence < 0:
            raise InvalidRequestError("after_sequence must not be negative", field="after_sequence")
        return self._require_live(session_id, ref).follow(after_sequence, coalesce=coalesce)

    def live_output(self, session_id: str, ref: str) -> RunOutput | None:
        """The output side of a live run (its replay log and journal), if it is live."""
        run = self._find_live(session_id, ref)
        return None if run is None else run.output

    def last_output_sequence(self, session_id: str, ref: str) -> int:
        return self._require_live(session_id, ref).output.log.last_sequence

    def screen(self, session_id: str, ref: str) -> PtyOutput:
        """The current screen of a live PTY run."""
        return self._require_live(session_id, ref).screen()

    # -- control ---------------------------------------------------------------------------

    async def stop(self, session_id: str, ref: str) -> ShellRunRecord:
        """Cancel the run (TERM, grace, KILL) and return its terminal record; a run that has
        already ended is returned as it is."""
        run = self._find_live(session_id, ref)
        if run is None:
            return await self._load(session_id, ref)
        run.begin_termination("cancelled")
        return await asyncio.shield(run.terminal)

    async def stop_session(self, session_id: str) -> tuple[ShellRunRecord, ...]:
        """Cancel every live run of the session (as :meth:`stop` does, all at once, including
        runs still starting) and return their terminal records, oldest first. A run that ends
        on its own meanwhile keeps its own status. If a run's end could not be recorded, the
        error is raised once every other run has ended."""
        check_session_id(session_id)
        runs = [run for run in self._live.values() if run.record.session_id == session_id]
        for run in runs:
            run.begin_termination("cancelled")
        ended = await asyncio.gather(
            *(asyncio.shield(run.terminal) for run in runs), return_exceptions=True
        )
        records: list[ShellRunRecord] = []
        for run, outcome in zip(runs, ended, strict=True):
            if isinstance(outcome, Exception):
                raise outcome
            if isinstance(outcome, BaseException):
                raise InternalFailureError(f"{run.ref} was abandoned") from outcome
            records.append(outcome)
        return tuple(sorted(records, key=lambda record: (record.created_at, record.ref)))

    def request_stop(self, session_id: str, ref: str) -> None:
        """Begin cancelling a live run without waiting (for callers that cannot await)."""
        run = self._find_live(session_id, ref)
        if run is not None:
            run.begin_termination("cancelled")

    def is_closing(self, session_id: str, ref: str) -> bool:
        """True if the live run no longer accepts control (or is not live)."""
        run = self._find_live(session_id, ref)
        return run is None or run.closing.is_set()

    async def write_stdin(self, session_id: str, ref: str, data: str | bytes) -> int:
        """Send input to a PTY run; returns the number of bytes queued."""
        payload = data.encode() if isinstance(data, str) else data
        (await self._controllable(session_id, ref)).write(payload)
        return len(payload)

    async def resize(self, session_id: str, ref: str, cols: int, rows: int) -> None:
        check_size(cols, rows)
        (await self._controllable(session_id, ref)).resize(cols, rows)

    async def _controllable(self, session_id: str, ref: str) -> LiveRun:
        run = self._find_live(session_id, ref)
        if run is None:
            record = await self._load(session_id, ref)
            if record.mode != "pty":
                raise InvalidRequestError(NOT_PTY.format(ref=ref), field="ref")
            raise ShellRunPtyControlClosedError(f"{ref} has ended ({record.status})")
        return run

    # -- drain and close -------------------------------------------------------------------

    def begin_drain(self) -> None:
        """Refuse every new start from now on and begin cancelling every live run."""
        if not self._draining:
            self._draining = True
            self._drained = list(self._live.values())
        for run in list(self._live.values()):
            run.begin_termination("cancelled")

    async def drain(self) -> DrainReport:
        """Begin draining and wait until every run has ended; idempotent. The report covers
        the runs that were live (or starting) when draining began."""
        self.begin_drain()
        while self._live:
            runs = list(self._live.values())
            for run in runs:
                run.begin_termination("cancelled")
            await asyncio.gather(
                *(asyncio.shield(run.terminal) for run in runs), return_exceptions=True
            )
        if self._drain_report is None:
            self._drain_report = report_of((run.ref, run.terminal) for run in self._drained)
            self._drained = []
        return self._drain_report

    def drain_progress(self) -> DrainReport:
        """The drain report as of now: how the runs live when draining began have ended so
        far, and which are still ending (``unfinished``). Empty before draining begins."""
        if self._drain_report is not None:
            return self._drain_report
        return report_of((run.ref, run.terminal) for run in self._drained)

    def hurry(self) -> None:
        """The host can wait no longer (its shutdown grace ran out): every termination, now
        and later, skips the rest of its grace period and sends SIGKILL at once."""
        self._ctx.hurry.set()

    async def close(self) -> DrainReport:
        """Drain, wait for every task the supervisor owns, and end all watches; idempotent."""
        report = await self.drain()
        await self._ctx.pending.close()
        await self._ctx.tasks.wait()
        self._ctx.sandbox.close()
        self._catalog.close()
        return report

    # -- helpers ---------------------------------------------------------------------------

    def _find_live(self, session_id: str, ref: str) -> LiveRun | None:
        check_session_id(session_id)
        parse_ref(ref)
        run = self._live.get(ref)
        if run is None or not run.inserted or run.record.session_id != session_id:
            return None
        return run

    def _require_live(self, session_id: str, ref: str) -> LiveRun:
        run = self._find_live(session_id, ref)
        if run is None:
            raise OperationConflictError(f"{ref} is not a live run of session {session_id}")
        return run

    async def _load(self, session_id: str, ref: str) -> ShellRunRecord:
        check_session_id(session_id)
        parse_ref(ref)
        if ref in self._ctx.pending:
            # Its committed record still says it runs; reporting that would be wrong, and its
            # end is not committed yet, so it cannot be reported either.
            raise PersistenceFailedError(
                f"{ref} has ended, but the store refused its final record; it is written as "
                "soon as the store takes writes again: retry then"
            )
        record = await self._read(ref)
        if record is None or record.session_id != session_id:
            raise NotFoundError(f"no run {ref} in session {session_id}", field="ref")
        run = self._live.get(ref)
        if run is not None and run.record.revision == record.revision:
            return run.snapshot()
        return record

    async def _read(self, ref: str) -> ShellRunRecord | None:
        """The run's committed record: a finished one from memory, else from the store."""
        record = self._finished.get(ref)
        if record is None:
            record = await self._ctx.store_call(self._store.get(ref), None)
            if record is not None:
                self._finished.keep(record)
        return record

    def _with_live_output(self, record: ShellRunRecord) -> ShellRunRecord:
        run = self._live.get(record.ref)
        if run is not None and record.active and run.record.revision == record.revision:
            return run.snapshot()
        return record

    def _notify(self, kind: Literal["changed", "closing"], record: ShellRunRecord) -> None:
        update = ShellRunUpdate(kind, record)
        for listener in list(self._update_listeners):
            try:
                listener(update)
            except Exception:
                log.exception("shell-run update listener failed")
        if kind == "changed":
            self._finished.keep(record)
            self._catalog.changed(record)

    def _fail(self, reason: str, error: BaseException) -> None:
        for listener in list(self._failure_listeners):
            try:
                listener(reason, error)
            except Exception:
                log.exception("shell-run failure listener failed")

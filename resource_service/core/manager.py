"""The shell-run process manager: the operations on runs, over the run supervisor.

Work a caller starts is owned by the manager, not by the caller's task: a client that goes away
mid-start cannot leave a half-started run behind (the caller awaits a shielded task). Every state
change is committed to the store before anyone can observe it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import time
import uuid
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from resource_service.core._live import EndCallback, LiveRun
from resource_service.core._supervisor import CANCELLED_MESSAGE, RunSupervisor, timed_out_message
from resource_service.core.config import ShellRunConfig
from resource_service.core.errors import (
    HostDrainingError,
    InternalFailureError,
    InvalidRequestError,
    NotFoundError,
    OperationConflictError,
    OutOfRangeError,
    PersistenceFailedError,
    ResourceExhaustedError,
    ShellRunPtyControlClosedError,
)
from resource_service.core.output import OutputEvent
from resource_service.core.records import (
    PipesOutput,
    PtyOutput,
    RunKind,
    ShellRunRecord,
    ShellRunStatus,
    format_ref,
    parse_ref,
)
from resource_service.core.recovery import RecoveryReport, sweep_orphaned_runs
from resource_service.core.requests import (
    BashInput,
    check_length,
    check_session_id,
    check_size,
)
from resource_service.core.sizes import fitting
from resource_service.core.store import ShellRunStore

__all__ = [
    "CANCELLED_MESSAGE",
    "DrainReport",
    "ShellRunPage",
    "ShellRunProcessManager",
    "ShellRunUpdate",
    "timed_out_message",
]

log = logging.getLogger(__name__)

_DEFAULT_PAGE_SIZE = 50
_MAX_PAGE_SIZE = 500
_CHANGES_BATCH = 100


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _new_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True)
class ShellRunUpdate:
    """Something observers should know about a run.

    ``changed``: a new revision was committed. ``closing``: the run stopped accepting input and
    resizes (termination began, or the process exited); its record has not changed yet.
    """

    kind: Literal["changed", "closing"]
    record: ShellRunRecord


@dataclass(frozen=True)
class ShellRunPage:
    runs: tuple[ShellRunRecord, ...]
    #: Pass back to get the next page; empty when this is the last page.
    next_page_token: str


@dataclass(frozen=True)
class DrainReport:
    """How the runs that were live when draining began have ended (so far)."""

    ended: Mapping[ShellRunStatus, int] = field(default_factory=dict)
    #: Runs whose end could not be recorded (the store failed).
    lost: int = 0
    #: Refs of runs still ending when the report was made (only in a report taken before the
    #: drain finished, see :meth:`ShellRunProcessManager.drain_progress`).
    unfinished: tuple[str, ...] = ()


class ShellRunProcessManager:
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
    ) -> None:
        self._store = store
        self._config = config or ShellRunConfig()
        self._new_id = new_id
        self._now = now
        self._runs = RunSupervisor(
            store=store, config=self._config, now=now, notify=self._notify, fail=self._fail
        )
        self._live = self._runs.live
        self._update_listeners: list[Callable[[ShellRunUpdate], None]] = []
        self._failure_listeners: list[Callable[[str, BaseException], None]] = []
        self._session_changed: dict[str, asyncio.Event] = {}
        self._closed = False
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
    ) -> ShellRunProcessManager:
        """A manager over *store*, after sweeping the runs a previous host left active."""
        manager = cls(store=store, config=config, new_id=new_id, now=now)
        manager.recovery = await sweep_orphaned_runs(
            store, now=now, kill_timeout=manager._config.kill_timeout
        )
        return manager

    # -- observers -------------------------------------------------------------------------

    def add_update_listener(self, listener: Callable[[ShellRunUpdate], None]) -> Callable[[], None]:
        """Call *listener* synchronously for every update; returns a function that removes it."""
        self._update_listeners.append(listener)
        return lambda: _remove(self._update_listeners, listener)

    def add_failure_listener(
        self, listener: Callable[[str, BaseException], None]
    ) -> Callable[[], None]:
        """Call *listener* when state was lost or an invariant broke (the fail-stop signal)."""
        self._failure_listeners.append(listener)
        return lambda: _remove(self._failure_listeners, listener)

    @property
    def draining(self) -> bool:
        return self._runs.draining

    @property
    def config(self) -> ShellRunConfig:
        return self._config

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
        return await asyncio.shield(self._runs.own(self._runs.launch(run, request)))

    async def start_foreground(
        self, request: BashInput, *, on_end: EndCallback | None = None
    ) -> ShellRunRecord:
        """Start a foreground (pipes) run and return its ``running`` record; follow it with
        :meth:`follow_output` and :meth:`finish_foreground`. A foreground run lives for its
        caller: if the caller is cancelled while it starts, the run is cancelled (and the caller
        waits for its end before the cancellation propagates)."""
        run = self._admit(request, kind="foreground", on_end=on_end)
        try:
            return await asyncio.shield(self._runs.own(self._runs.launch(run, request)))
        except asyncio.CancelledError:
            self._runs.begin_termination(run, "cancelled")
            with contextlib.suppress(Exception):
                await asyncio.shield(run.terminal)
            raise

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
        try:
            return await asyncio.shield(run.terminal)
        except asyncio.CancelledError:
            self._runs.begin_termination(run, "cancelled")
            with contextlib.suppress(Exception):
                await asyncio.shield(run.terminal)
            raise

    def _admit(self, request: BashInput, *, kind: RunKind, on_end: EndCallback | None) -> LiveRun:
        """Check and register a new run; synchronous, so a drain that has begun is honoured
        by every start that has not been admitted yet."""
        foreground = kind == "foreground"
        request.check(foreground=foreground)
        if not request.cwd:
            raise InvalidRequestError("cwd is required", field="cwd")
        if self._runs.draining:
            raise HostDrainingError()
        live, ptys = self.live_counts()
        if live >= self._config.max_live_runs:
            raise ResourceExhaustedError(
                f"{live} shell runs are live (limit {self._config.max_live_runs}); "
                "stop one or wait for one to finish",
                limit_name="max_live_runs",
                limit=self._config.max_live_runs,
            )
        own = sum(1 for run in self._live.values() if run.record.session_id == request.session_id)
        cap = self._config.live_runs_per_session
        if own >= cap:
            raise ResourceExhaustedError(
                f"session {request.session_id!r} has {own} live shell runs (limit {cap} per "
                "session); stop one or wait for one to finish",
                limit_name="max_live_runs_per_session",
                limit=cap,
            )
        if request.pty and ptys >= self._config.max_live_ptys:
            raise ResourceExhaustedError(
                f"{ptys} PTY runs are live (limit {self._config.max_live_ptys}); "
                "stop one or use a pipes run",
                limit_name="max_live_ptys",
                limit=self._config.max_live_ptys,
            )
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
        )
        run = LiveRun(record, self._config, emit_output=request.emit_output, on_end=on_end)
        self._live[record.ref] = run
        return run

    # -- queries ---------------------------------------------------------------------------

    async def inspect(self, session_id: str, ref: str) -> ShellRunRecord:
        """The run as of now (live output for an active run)."""
        run = self._find_live(session_id, ref)
        if run is not None:
            return run.snapshot()
        return await self._load(session_id, ref)

    async def session_of(self, ref: str) -> str | None:
        """The session the run *ref* belongs to; ``None`` if no run has that ref."""
        parse_ref(ref)
        run = self._live.get(ref)
        if run is not None and run.inserted:
            return run.record.session_id
        record = await self._runs.store_call(self._store.get(ref), None)
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

    async def list_session(
        self,
        session_id: str | None,
        *,
        page_size: int = 0,
        page_token: str = "",
        visible: Callable[[str], Awaitable[bool]] | None = None,
    ) -> ShellRunPage:
        """Runs of a session (``None``: of every session), oldest first, *page_size* (default
        50, at most 500) at a time. With *visible*, only runs of the sessions it accepts count."""
        if session_id is not None:
            check_session_id(session_id)
        if page_size < 0 or page_size > _MAX_PAGE_SIZE:
            raise InvalidRequestError(
                f"page_size must be between 0 and {_MAX_PAGE_SIZE}", field="page_size"
            )
        limit = page_size or _DEFAULT_PAGE_SIZE
        check_length("page_token", page_token)
        after = _parse_page_token(page_token)
        records: list[ShellRunRecord] = []
        # Runs the filter drops do not shorten the page: read on until it is full (one more
        # than a page says whether another follows) or the store has no more.
        while len(records) <= limit:
            batch = await self._runs.store_call(
                self._store.list_session(session_id, after=after, limit=limit + 1), None
            )
            for record in batch:
                if visible is None or await visible(record.session_id):
                    records.append(record)
            if len(batch) <= limit:
                break
            after = (batch[-1].created_at, batch[-1].ref)
        runs = tuple(
            fitting(
                [self._with_live_output(record) for record in records[:limit]],
                self._config.max_page_bytes,
            )
        )
        more = len(records) > len(runs)
        token = _page_token(runs[-1]) if more and runs else ""
        return ShellRunPage(runs=runs, next_page_token=token)

    async def watch(
        self, session_id: str, *, after_change_seq: int = 0
    ) -> AsyncGenerator[ShellRunRecord, None]:
        """Every committed change of the session's runs after *after_change_seq*, replayed from
        the store and then live, until the manager closes. A watcher that falls behind sees the
        latest revision of each run (intermediate revisions collapse), never a gap."""
        check_session_id(session_id)
        if after_change_seq < 0:
            raise InvalidRequestError(
                "after_change_seq must not be negative", field="after_change_seq"
            )
        last = self._store.last_change_seq
        if after_change_seq > last:
            raise OutOfRangeError(
                f"after_change_seq {after_change_seq} is beyond the newest change {last}",
                field="after_change_seq",
                last=last,
            )
        cursor = after_change_seq
        while not self._closed:
            changed = self._session_changed.setdefault(session_id, asyncio.Event())
            records = await self._runs.store_call(
                self._store.list_changes(session_id, after_change_seq=cursor, limit=_CHANGES_BATCH),
                None,
            )
            for record in records:
                cursor = record.change_seq
                yield self._with_live_output(record)
            if len(records) < _CHANGES_BATCH:
                await changed.wait()

    def follow_output(
        self, session_id: str, ref: str, *, after_sequence: int = 0, coalesce: int = 0
    ) -> AsyncIterator[OutputEvent]:
        """Output chunks of a live run after *after_sequence* (replay, then live, until the run
        ends). Raises :class:`OperationConflictError` if the run is not live."""
        if after_sequence < 0:
            raise InvalidRequestError("after_sequence must not be negative", field="after_sequence")
        run = self._require_live(session_id, ref)
        if after_sequence > run.log.last_sequence:
            # Following from there would silently skip output still to come.
            raise OutOfRangeError(
                f"after_sequence {after_sequence} is beyond the newest output sequence "
                f"{run.log.last_sequence}",
                field="after_sequence",
                last=run.log.last_sequence,
            )
        return run.log.follow(after_sequence, coalesce=coalesce)

    def last_output_sequence(self, session_id: str, ref: str) -> int:
        return self._require_live(session_id, ref).log.last_sequence

    def screen(self, session_id: str, ref: str) -> PtyOutput:
        """The current screen of a live PTY run."""
        run = self._require_live(session_id, ref)
        if run.screen is None:
            raise InvalidRequestError(f"{ref} is a pipes run and has no screen", field="ref")
        return run.screen.snapshot()

    # -- control ---------------------------------------------------------------------------

    async def stop(self, session_id: str, ref: str) -> ShellRunRecord:
        """Cancel the run (TERM, grace, KILL) and return its terminal record; a run that has
        already ended is returned as it is."""
        run = self._find_live(session_id, ref)
        if run is None:
            return await self._load(session_id, ref)
        self._runs.begin_termination(run, "cancelled")
        return await asyncio.shield(run.terminal)

    async def stop_session(self, session_id: str) -> tuple[ShellRunRecord, ...]:
        """Cancel every live run of the session (as :meth:`stop` does, all at once, including
        runs still starting) and return their terminal records, oldest first. A run that ends
        on its own meanwhile keeps its own status. If a run's end could not be recorded, the
        error is raised once every other run has ended."""
        check_session_id(session_id)
        runs = [run for run in self._live.values() if run.record.session_id == session_id]
        for run in runs:
            self._runs.begin_termination(run, "cancelled")
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
            self._runs.begin_termination(run, "cancelled")

    def is_closing(self, session_id: str, ref: str) -> bool:
        """True if the live run no longer accepts control (or is not live)."""
        run = self._find_live(session_id, ref)
        return run is None or run.closing.is_set()

    async def write_stdin(self, session_id: str, ref: str, data: str | bytes) -> int:
        """Send input to a PTY run; returns the number of bytes queued."""
        payload = data.encode() if isinstance(data, str) else data
        run = await self._controllable(session_id, ref)
        if run.pty is None:
            raise OperationConflictError(f"{ref} is still starting")
        run.pty.write(payload)
        return len(payload)

    async def resize(self, session_id: str, ref: str, cols: int, rows: int) -> None:
        check_size(cols, rows)
        run = await self._controllable(session_id, ref)
        if run.pty is None or run.screen is None:
            raise OperationConflictError(f"{ref} is still starting")
        run.pty.resize(cols, rows)
        run.screen.resize(cols, rows)

    async def _controllable(self, session_id: str, ref: str) -> LiveRun:
        run = self._find_live(session_id, ref)
        if run is None:
            record = await self._load(session_id, ref)
            if record.mode != "pty":
                raise InvalidRequestError(_NOT_PTY.format(ref=ref), field="ref")
            raise ShellRunPtyControlClosedError(f"{ref} has ended ({record.status})")
        if run.record.mode != "pty":
            raise InvalidRequestError(_NOT_PTY.format(ref=ref), field="ref")
        if run.closing.is_set():
            raise ShellRunPtyControlClosedError(
                f"the terminal of {ref} is closing; it no longer accepts input or resizes"
            )
        return run

    # -- drain and close -------------------------------------------------------------------

    def begin_drain(self) -> None:
        """Refuse every new start from now on and begin cancelling every live run."""
        if not self._runs.draining:
            self._runs.draining = True
            self._drained = list(self._live.values())
        for run in list(self._live.values()):
            self._runs.begin_termination(run, "cancelled")

    async def drain(self) -> DrainReport:
        """Begin draining and wait until every run has ended; idempotent. The report covers
        the runs that were live (or starting) when draining began."""
        self.begin_drain()
        while self._live:
            runs = list(self._live.values())
            for run in runs:
                self._runs.begin_termination(run, "cancelled")
            await asyncio.gather(
                *(asyncio.shield(run.terminal) for run in runs), return_exceptions=True
            )
        if self._drain_report is None:
            self._drain_report = _drain_report(self._drained)
            self._drained = []
        return self._drain_report

    def drain_progress(self) -> DrainReport:
        """The drain report as of now: how the runs live when draining began have ended so
        far, and which are still ending (``unfinished``). Empty before draining begins."""
        if self._drain_report is not None:
            return self._drain_report
        return _drain_report(self._drained)

    def hurry(self) -> None:
        """The host can wait no longer (its shutdown grace ran out): every termination, now
        and later, skips the rest of its grace period and sends SIGKILL at once."""
        self._runs.hurry.set()

    async def close(self) -> DrainReport:
        """Drain, wait for every task the manager owns, and end all watches; idempotent."""
        report = await self.drain()
        await self._runs.pending.close()
        while self._runs.tasks:
            await asyncio.gather(*list(self._runs.tasks), return_exceptions=True)
        self._closed = True
        for event in self._session_changed.values():
            event.set()
        self._session_changed.clear()
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
        if ref in self._runs.pending:
            # Its committed record still says it runs; reporting that would be wrong, and its
            # end is not committed yet, so it cannot be reported either.
            raise PersistenceFailedError(
                f"{ref} has ended, but the store refused its final record; it is written as "
                "soon as the store takes writes again: retry then"
            )
        record = await self._runs.store_call(self._store.get(ref), None)
        if record is None or record.session_id != session_id:
            raise NotFoundError(f"no run {ref} in session {session_id}", field="ref")
        run = self._live.get(ref)
        if run is not None and run.record.revision == record.revision:
            return run.snapshot()
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
            event = self._session_changed.pop(record.session_id, None)
            if event is not None:
                event.set()

    def _fail(self, reason: str, error: BaseException) -> None:
        for listener in list(self._failure_listeners):
            try:
                listener(reason, error)
            except Exception:
                log.exception("shell-run failure listener failed")


_NOT_PTY = "{ref} is a pipes run; input and resize need a PTY run (start one with pty=true)"


def _drain_report(runs: list[LiveRun]) -> DrainReport:
    ended: Counter[ShellRunStatus] = Counter()
    lost = 0
    unfinished: list[str] = []
    for run in runs:
        if not run.terminal.done():
            unfinished.append(run.ref)
        elif run.terminal.cancelled() or run.terminal.exception() is not None:
            lost += 1
        else:
            ended[run.terminal.result().status] += 1
    return DrainReport(ended=dict(ended), lost=lost, unfinished=tuple(unfinished))


#: Page tokens are opaque to clients: urlsafe base64 (unpadded) of a small versioned JSON array,
#: ``[version, "runs", created_at, run_id]``. Anything else is refused as malformed.
_PAGE_TOKEN_VERSION = 1
_MAX_PAGE_TOKEN_CHARS = 1024
_MAX_CURSOR_INT = 2**63 - 1


def _page_token(record: ShellRunRecord) -> str:
    raw = json.dumps(
        [_PAGE_TOKEN_VERSION, "runs", record.created_at, record.id], separators=(",", ":")
    )
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _parse_page_token(token: str) -> tuple[int, str] | None:
    """The cursor inside a token :func:`_page_token` issued; whatever else a client sends is
    :class:`InvalidRequestError` on ``page_token`` and never reaches the store."""
    if not token:
        return None
    refused = InvalidRequestError(
        "malformed page_token: not a token this service issued; pass back a next_page_token "
        "unchanged",
        field="page_token",
    )
    if len(token) > _MAX_PAGE_TOKEN_CHARS:
        raise refused
    try:
        value = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode())
    except (ValueError, UnicodeDecodeError):
        raise refused from None
    match value:
        case [int(version), "runs", int(created_at), str(run_id)] if (
            type(version) is int
            and version == _PAGE_TOKEN_VERSION
            and type(created_at) is int
            and 0 <= created_at <= _MAX_CURSOR_INT
        ):
            try:
                return created_at, format_ref(run_id)
            except ValueError:
                raise refused from None
    raise refused


def _remove(items: list[Any], item: Any) -> None:
    with contextlib.suppress(ValueError):
        items.remove(item)

"""The host's resource coordinator: the operations clients call, over the process manager.

It adds what the manager does not know about: sessions (admission), client connections (leases
die with them), residency (one token per active background run, returned exactly once) and the
host's fail-stop latch, ``request_drain`` — tripped only when an invariant of the host's own
state broke (see :mod:`.errors`), never for anything a request carries.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Protocol

from resource_service.core.admission import SessionAdmissionGate, SessionInfo
from resource_service.core.errors import (
    HostDrainingError,
    InternalFailureError,
    InvalidRequestError,
    NotFoundError,
    OperationConflictError,
    ResourceError,
    SessionArchivedError,
    ShellRunPtyControlClosedError,
)
from resource_service.core.lease import (
    ControllerAcquireResult,
    ControllerIdentity,
    ControllerLeases,
    ControllerReleaseResult,
    ControlRequest,
    ControlResult,
)
from resource_service.core.manager import (
    DrainReport,
    ShellRunPage,
    ShellRunProcessManager,
    ShellRunUpdate,
)
from resource_service.core.output import OutputEvent
from resource_service.core.records import PipesOutput, PtyOutput, ShellRunRecord, parse_ref
from resource_service.core.requests import (
    BashInput,
    check_controller_id,
    check_session_cwd,
    check_session_id,
)
from resource_service.core.sizes import wire_size

__all__ = [
    "Attachment",
    "ConnectionContext",
    "ForegroundStarted",
    "HostRuntimeResourceCoordinator",
    "Residency",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ConnectionContext:
    """The client connection an operation arrived on; leases belong to it."""

    connection_id: str
    host_epoch: str = ""
    surface: str = ""
    principal: str = "local_os_user"
    #: Whether the connection is still open, if it can close (``None``: it never closes). A
    #: lease is only ever granted to an open connection, so one that closes while its acquire
    #: waits cannot leave a lease behind that nobody will release.
    is_open: Callable[[], bool] | None = field(default=None, compare=False, repr=False)


class Residency(Protocol):
    """Keeps the host up while a background run is active; released exactly once."""

    def release(self) -> None: ...


class _NoResidency:
    def release(self) -> None:
        pass


@dataclass(frozen=True)
class Attachment:
    """A run's current screen (PTY runs) and its output from a sequence on."""

    ref: str
    record: ShellRunRecord
    #: The screen at attach time; ``None`` for a pipes run.
    screen: PtyOutput | None
    #: The newest output sequence at attach time (0 if none, or if the run has ended).
    output_sequence: int
    events: AsyncIterator[OutputEvent]


@dataclass(frozen=True)
class ForegroundStarted:
    """A foreground run as recorded once started (``running``, or terminal if it could not
    start): the first event of a stream that asked for it."""

    record: ShellRunRecord


class HostRuntimeResourceCoordinator:
    """The resource operations of one host, with leases, admission, residency and drain."""

    def __init__(
        self,
        *,
        manager: ShellRunProcessManager,
        admission: SessionAdmissionGate | None = None,
        acquire_residency: Callable[[], Residency] | None = None,
        request_drain: Callable[[str], None] | None = None,
        default_cwd: str | None = None,
    ) -> None:
        self._manager = manager
        self._admission = admission or SessionAdmissionGate()
        self._acquire_residency = acquire_residency or _NoResidency
        self._request_drain = request_drain or (lambda reason: None)
        self._default_cwd = default_cwd
        self._leases = ControllerLeases()
        self._draining = False
        self._close_report: DrainReport | None = None
        self._unsubscribe = [
            manager.add_update_listener(self.observe_shell_run_update),
            manager.add_failure_listener(self._on_manager_failure),
        ]

    @property
    def draining(self) -> bool:
        return self._draining

    @property
    def manager(self) -> ShellRunProcessManager:
        return self._manager

    # -- runs ------------------------------------------------------------------------------

    async def run_foreground_bash(self, request: BashInput) -> ShellRunRecord:
        """Run a pipes command to its end; returns the terminal record."""
        self._refuse_if_draining()
        request.check(foreground=True)
        with self._internal_failures("run_foreground_bash"):
            async with self._admission.hold(request.session_id) as session:
                self._refuse_if_draining()
                request = self._with_cwd(request, session)
                record = await self._manager.start_foreground(request)
            return await self._manager.finish_foreground(record.session_id, record.ref)

    async def stream_foreground_bash(
        self, request: BashInput, *, coalesce: int = 0, announce_start: bool = False
    ) -> AsyncGenerator[ForegroundStarted | OutputEvent | ShellRunRecord, None]:
        """Run a pipes command; yields its output events (merged up to *coalesce* bytes when
        the consumer lags, see ``OutputLog.follow``), then its terminal record last. With
        *announce_start*, :class:`ForegroundStarted` comes first. If the consumer stops early,
        the run is cancelled."""
        self._refuse_if_draining()
        request.check(foreground=True)
        with self._internal_failures("stream_foreground_bash"):
            async with self._admission.hold(request.session_id) as session:
                self._refuse_if_draining()
                request = self._with_cwd(request, session)
                record = await self._manager.start_foreground(request)
        session_id, ref = record.session_id, record.ref
        finished = False
        try:
            output: AsyncIterator[OutputEvent] | None = None
            if record.active:
                # Taken before the announcement is consumed: a run that ends meanwhile still
                # replays its output from the log.
                with contextlib.suppress(OperationConflictError):
                    output = self._manager.follow_output(session_id, ref, coalesce=coalesce)
            if announce_start:
                yield ForegroundStarted(record)
            if output is not None:
                async for event in output:
                    yield event
            final = await self._manager.wait_terminal(session_id, ref)
            finished = True
            yield final
        finally:
            if not finished:
                self._manager.request_stop(session_id, ref)

    async def run_background_bash(self, request: BashInput) -> ShellRunRecord:
        """Start a pipes or PTY run and return at once with its ``running`` record. The run
        holds a residency token until it ends."""
        self._refuse_if_draining()
        request.check(foreground=False)
        with self._internal_failures("run_background_bash"):
            async with self._admission.hold(request.session_id) as session:
                self._refuse_if_draining()
                request = self._with_cwd(request, session)
                residency = self._acquire_residency()
                release = _once(residency.release)
                try:
                    return await self._manager.start_background(
                        request, on_end=lambda _record: release()
                    )
                except BaseException:
                    release()
                    raise

    async def stop(self, session_id: str, ref: str) -> ShellRunRecord:
        """Cancel a run and return its final snapshot (an ended run is returned unchanged).
        *session_id* may be empty (see :meth:`run_session`)."""
        with self._internal_failures("stop"):
            session_id = await self.run_session(session_id, ref)
            return await self._manager.stop(session_id, ref)

    async def get(self, session_id: str, ref: str) -> ShellRunRecord:
        """The run as of now; *session_id* may be empty (see :meth:`run_session`)."""
        with self._internal_failures("get"):
            session_id = await self.run_session(session_id, ref)
            return await self._manager.inspect(session_id, ref)

    async def list_runs(
        self, session_id: str, *, page_size: int = 0, page_token: str = ""
    ) -> ShellRunPage:
        """A page of the session's runs; with an empty *session_id*, of every run that
        :meth:`run_session` would let its ref see."""
        with self._internal_failures("list_runs"):
            if not session_id:
                return await self._manager.list_session(
                    None, page_size=page_size, page_token=page_token, visible=self._visible
                )
            await self._admission.check(session_id)
            return await self._manager.list_session(
                session_id, page_size=page_size, page_token=page_token
            )

    async def run_session(self, session_id: str, ref: str) -> str:
        """The session of the run *ref*, if the caller may reach the run: the one rule of every
        operation given a ref.

        A ref names one run, so *session_id* is optional: empty means the run's own session,
        from its record. A session that is given must be admitted and must be the run's;
        another session is :class:`NotFoundError`, exactly as for a ref that names no run (a
        ref does not reveal which session it belongs to). The run's session passes the same
        admission as a named one (archived, deleted, unknown: refused).
        """
        parse_ref(ref)
        if session_id:
            await self._admission.check(session_id)
        owner = await self._manager.session_of(ref)
        if owner is None or (session_id and owner != session_id):
            where = f" in session {session_id}" if session_id else ""
            raise NotFoundError(f"no run {ref}{where}", field="ref")
        if not session_id:
            await self._admission.check(owner)
        return owner

    async def _visible(self, session_id: str) -> bool:
        """Whether runs of *session_id* are listed to a caller who names no session."""
        try:
            await self._admission.check(session_id)
        except (NotFoundError, SessionArchivedError):
            return False
        return True

    async def watch(
        self, session_id: str, *, after_change_seq: int = 0
    ) -> AsyncGenerator[ShellRunRecord, None]:
        """The session's run changes after *after_change_seq*: replay, then live."""
        with self._internal_failures("watch"):
            await self._admission.check(session_id)
            async for record in self._manager.watch(session_id, after_change_seq=after_change_seq):
                yield record

    async def attach(
        self, session_id: str, ref: str, *, after_sequence: int = 0, coalesce: int = 0
    ) -> Attachment:
        """The run's screen now and its output after *after_sequence* (replay, then live). An
        ended run yields no output events; its record carries the final output (and its
        session: *session_id* may be empty, see :meth:`run_session`)."""
        with self._internal_failures("attach"):
            session_id = await self.run_session(session_id, ref)
            record = await self._manager.inspect(session_id, ref)
            if record.active:
                try:
                    events = self._manager.follow_output(
                        session_id, ref, after_sequence=after_sequence, coalesce=coalesce
                    )
                    sequence = self._manager.last_output_sequence(session_id, ref)
                    screen = self._manager.screen(session_id, ref) if record.mode == "pty" else None
                    return Attachment(ref, record, screen, sequence, events)
                except OperationConflictError:
                    record = await self._manager.wait_terminal(session_id, ref)
            if after_sequence < 0:
                raise InvalidRequestError(
                    "after_sequence must not be negative", field="after_sequence"
                )
            screen = record.output if isinstance(record.output, PtyOutput) else None
            return Attachment(ref, record, screen, 0, _no_events())

    # -- sessions ------------------------------------------------------------------------

    @property
    def standalone(self) -> bool:
        """True when any well-formed session id is admitted (not only registered ones)."""
        return self._admission.directory.standalone

    async def register_session(self, session_id: str, *, cwd: str = "") -> bool:
        """Record that the session exists (the kernel's word), with *cwd* as its runs' default
        working directory; lifts an archive or a delete. Returns whether anything changed."""
        check_session_id(session_id)
        check_session_cwd(cwd)
        self._refuse_if_draining()
        with self._internal_failures("register_session"):
            return await self._admission.register(session_id, cwd=cwd or None)

    async def archive_session(
        self, session_id: str, *, deleted: bool = False
    ) -> tuple[ShellRunRecord, ...]:
        """Archive (or delete) the session, then stop every active run it has; returns their
        final records. The archive is recorded first, under the session's gate, so no start or
        lease acquisition can slip in; their leases end as the runs start terminating.
        Accepted while draining: it only narrows what is admitted."""
        check_session_id(session_id)
        with self._internal_failures("archive_session"):
            async with self._admission.archiving(session_id, deleted=deleted):
                stopped = await self._manager.stop_session(session_id)
        return without_output_beyond(stopped, self._manager.config.max_page_bytes)

    # -- controller leases -----------------------------------------------------------------

    async def acquire_controller(
        self, identity: ControllerIdentity, connection: ConnectionContext
    ) -> ControllerAcquireResult:
        """Take control of an active PTY run for *connection*; idempotent for the holder. The
        identity's session may be empty (see :meth:`run_session`)."""
        _check_identity(identity)
        self._refuse_if_draining()
        with self._internal_failures("acquire_controller"):
            identity = replace(
                identity, session_id=await self.run_session(identity.session_id, identity.ref)
            )
            async with self._admission.hold(identity.session_id):
                record = await self._manager.inspect(identity.session_id, identity.ref)
                if record.mode != "pty":
                    raise InvalidRequestError(
                        f"{identity.ref} is a pipes run; controller leases apply to PTY runs",
                        field="ref",
                    )
                # From here to the lease being taken nothing awaits, so a run that closes
                # cannot slip in between the check and the lease.
                if not record.active or self._manager.is_closing(identity.session_id, identity.ref):
                    raise ShellRunPtyControlClosedError(
                        f"{identity.ref} is {record.status} and its terminal is closing or "
                        "closed; it cannot be controlled"
                    )
                self._refuse_if_draining()
                if connection.is_open is not None and not connection.is_open():
                    raise NotFoundError(
                        f"connection {connection.connection_id} has closed; open a new one",
                        field="connection_id",
                    )
                next_sequence = self._leases.acquire(
                    identity.ref, connection.connection_id, identity.controller_id
                )
                return ControllerAcquireResult(
                    controller_id=identity.controller_id,
                    ref=identity.ref,
                    next_sequence=next_sequence,
                    screen=self._manager.screen(identity.session_id, identity.ref),
                    output_sequence=self._manager.last_output_sequence(
                        identity.session_id, identity.ref
                    ),
                )

    async def control_controller(
        self, request: ControlRequest, connection: ConnectionContext
    ) -> ControlResult:
        """Apply input and/or a resize under the lease, in sequence order."""
        _check_identity(request.identity)
        if request.sequence < 1:
            raise InvalidRequestError(
                f"sequence must be 1 or more, got {request.sequence}", field="sequence"
            )
        request.control.check()
        with self._internal_failures("control_controller"):
            session_id = await self.run_session(request.session_id, request.ref)
            request = replace(request, session_id=session_id)
            try:
                earlier = self._leases.check_control(
                    request.ref,
                    connection.connection_id,
                    request.controller_id,
                    request.sequence,
                    request.control,
                )
            except OperationConflictError:
                # A ref that names no run of the session is NOT_FOUND, not a conflict.
                await self._manager.inspect(request.session_id, request.ref)
                raise
            if earlier is not None:
                return earlier
            control = request.control
            if control.kind in ("resize", "both"):
                await self._manager.resize(
                    request.session_id, request.ref, control.cols, control.rows
                )
            written = 0
            if control.kind in ("input", "both"):
                written = await self._manager.write_stdin(
                    request.session_id, request.ref, control.input_bytes
                )
            screen = self._manager.screen(request.session_id, request.ref)
            result = ControlResult(
                controller_id=request.controller_id,
                sequence=request.sequence,
                input_bytes=written,
                cols=screen.cols,
                rows=screen.rows,
            )
            self._leases.record(
                request.ref, connection.connection_id, request.controller_id, control, result
            )
            return result

    async def release_controller(
        self, identity: ControllerIdentity, connection: ConnectionContext
    ) -> ControllerReleaseResult:
        """Give up the lease; ``released=False`` if this holder held none (any more)."""
        _check_identity(identity)
        with self._internal_failures("release_controller"):
            await self.run_session(identity.session_id, identity.ref)
            released = self._leases.release(
                identity.ref, connection.connection_id, identity.controller_id
            )
            return ControllerReleaseResult(controller_id=identity.controller_id, released=released)

    def connection_closed(self, connection_id: str) -> int:
        """The client connection went away: release its leases; returns how many."""
        return len(self._leases.drop_connection(connection_id))

    def controller_of(self, ref: str) -> tuple[str, str] | None:
        """(connection id, controller id) holding *ref*, if any."""
        return self._leases.holder(ref)

    def observe_shell_run_update(self, update: ShellRunUpdate) -> None:
        """A run that stops accepting control loses its lease at once."""
        if update.kind == "closing" or not update.record.active:
            self._leases.drop_run(update.record.ref)

    # -- drain -----------------------------------------------------------------------------

    def begin_drain(self) -> None:
        """Refuse every new start from now on (synchronously), drop all controllers and
        begin cancelling live runs."""
        if self._draining:
            return
        self._draining = True
        self._leases.drop_all()
        self._manager.begin_drain()

    async def close(self) -> DrainReport:
        """Drain and wait until every live run has ended; idempotent."""
        self.begin_drain()
        report = await self._manager.drain()
        if self._close_report is None:
            for unsubscribe in self._unsubscribe:
                unsubscribe()
            self._close_report = report
        return self._close_report

    # -- helpers ---------------------------------------------------------------------------

    def _refuse_if_draining(self) -> None:
        if self._draining:
            raise HostDrainingError()

    def _with_cwd(self, request: BashInput, session: SessionInfo) -> BashInput:
        if request.cwd:
            return request
        cwd = session.cwd or self._default_cwd or os.path.expanduser("~")
        return replace(request, cwd=cwd)

    def _on_manager_failure(self, reason: str, error: BaseException) -> None:
        log.error("fail-stop: %s (%s)", reason, error)
        self._request_drain(reason)

    @contextlib.contextmanager
    def _internal_failures(self, operation: str) -> Iterator[None]:
        """Domain errors pass through; anything else is an internal failure of this request
        only. It does not trip the fail-stop latch: what one request carries must never take
        the host down (the latch is for the host's own state, see :mod:`.errors`)."""
        try:
            yield
        except ResourceError:
            raise
        except Exception as error:
            log.exception("%s failed unexpectedly", operation)
            raise InternalFailureError(f"{operation} failed unexpectedly") from error


def _check_identity(identity: ControllerIdentity) -> None:
    if identity.session_id:  # optional: a ref names its run
        check_session_id(identity.session_id)
    parse_ref(identity.ref)
    check_controller_id(identity.controller_id)


def _once(fn: Callable[[], None]) -> Callable[[], None]:
    called = False

    def once() -> None:
        nonlocal called
        if not called:
            called = True
            fn()

    return once


async def _no_events() -> AsyncIterator[OutputEvent]:
    return
    yield


def without_output_beyond(
    records: tuple[ShellRunRecord, ...], max_bytes: int
) -> tuple[ShellRunRecord, ...]:
    """*records* in full while they fit *max_bytes*, the rest without their output (pipes:
    empty streams flagged truncated; PTY: an empty screen): a reply listing many runs stays
    bounded. The stored records keep their output."""
    kept: list[ShellRunRecord] = []
    total = 0
    for record in records:
        total += wire_size(record)
        if kept and total > max_bytes:
            output: PipesOutput | PtyOutput
            if isinstance(record.output, PtyOutput):
                output = PtyOutput(cols=record.output.cols, rows=record.output.rows)
            else:
                output = PipesOutput(stdout_truncated=True, stderr_truncated=True)
            kept.append(replace(record, output=output))
        else:
            kept.append(record)
    return tuple(kept)

"""The resource host: the one façade the API talks to, over the run supervisor.

It adds what the supervisor does not know about: sessions (admission), client connections
(leases die with them, and only a lease holder may control a run), the rules of an Attach
stream (:mod:`.attach`), residency (one token per active background run, returned exactly
once) and the fail-stop latch (:mod:`.failstop`).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncGenerator, Callable
from dataclasses import replace

from maka_runtime.resource.core.admission import SessionAdmissionGate, SessionInfo
from maka_runtime.resource.core.attach import AttachSession, attachment
from maka_runtime.resource.core.catalog import ShellRunPage, without_output_beyond
from maka_runtime.resource.core.drain import DrainReport, begin_drain
from maka_runtime.resource.core.errors import (
    HostDrainingError,
    InvalidRequestError,
    NotFoundError,
    OperationConflictError,
    SessionArchivedError,
    ShellRunPtyControlClosedError,
)
from maka_runtime.resource.core.facade_types import (
    Attachment,
    ConnectionContext,
    ForegroundStarted,
    NoResidency,
    Residency,
    once,
)
from maka_runtime.resource.core.failstop import FailStop
from maka_runtime.resource.core.kept_output import (
    OutputPage,
    output_events,
    read_output,
    remove_session_output,
)
from maka_runtime.resource.core.lease import (
    ControllerAcquireResult,
    ControllerIdentity,
    ControllerLeases,
    ControllerReleaseResult,
    ControlRequest,
    ControlResult,
)
from maka_runtime.resource.core.output import OutputEvent
from maka_runtime.resource.core.records import ShellRunRecord, parse_ref
from maka_runtime.resource.core.request_failures import RequestFailures
from maka_runtime.resource.core.requests import (
    BashInput,
    check_session_cwd,
    check_session_id,
)
from maka_runtime.resource.core.sandbox.boundary import rooted
from maka_runtime.resource.core.supervisor import RunSupervisor, ShellRunUpdate

__all__ = ["ResourceHost"]

log = logging.getLogger(__name__)


class ResourceHost:
    """One host's resource operations: leases, admission, attach rules, residency, drain."""

    def __init__(
        self,
        *,
        supervisor: RunSupervisor,
        admission: SessionAdmissionGate | None = None,
        acquire_residency: Callable[[], Residency] | None = None,
        request_drain: Callable[[str], None] | None = None,
        default_cwd: str | None = None,
    ) -> None:
        self._supervisor = supervisor
        self._admission = admission or SessionAdmissionGate()
        self._acquire_residency = acquire_residency or NoResidency
        self._fail_stop = FailStop(request_drain or (lambda reason: None))
        self._default_cwd = default_cwd
        self._leases = ControllerLeases()
        self._draining = False
        self._close_report: DrainReport | None = None
        self._unsubscribe = [
            supervisor.add_update_listener(self.observe_shell_run_update),
            supervisor.add_failure_listener(self._fail_stop.trip),
        ]

    @property
    def draining(self) -> bool:
        return self._draining

    @property
    def failed(self) -> bool:
        """Whether the fail-stop latch has tripped (:mod:`.failstop`)."""
        return self._fail_stop.tripped

    # -- runs ------------------------------------------------------------------------------

    async def run_foreground_bash(self, request: BashInput) -> ShellRunRecord:
        """Run a pipes command to its end; returns the terminal record."""
        self._refuse_if_draining()
        request.check(foreground=True)
        with self._internal_failures("run_foreground_bash"):
            async with self._admission.hold(request.session_id, start=True) as session:
                self._refuse_if_draining()
                request = self._with_cwd(request, session)
                record = await self._supervisor.start_foreground(request)
            return await self._supervisor.finish_foreground(record.session_id, record.ref)

    async def stream_foreground_bash(
        self, request: BashInput, *, coalesce: int = 0, announce_start: bool = False
    ) -> AsyncGenerator[ForegroundStarted | OutputEvent | ShellRunRecord, None]:
        """Run a pipes command; yields its output events (merged up to *coalesce* bytes when
        the consumer lags, ``OutputLog.follow``), then its terminal record. With *announce_start*,
        :class:`ForegroundStarted` first. A consumer that stops early cancels the run."""
        self._refuse_if_draining()
        request.check(foreground=True)
        with self._internal_failures("stream_foreground_bash"):
            async with self._admission.hold(request.session_id, start=True) as session:
                self._refuse_if_draining()
                request = self._with_cwd(request, session)
                record = await self._supervisor.start_foreground(request)
        session_id, ref = record.session_id, record.ref
        finished = False
        try:
            # Taken before the announcement is consumed: a run that ends meanwhile still
            # replays its output (from memory, or from its journal once it has ended).
            output, _ended = await output_events(
                self._supervisor, session_id, ref, after_sequence=0, coalesce=coalesce
            )
            if announce_start:
                yield ForegroundStarted(record)
            async for event in output:
                yield event
            final = await self._supervisor.wait_terminal(session_id, ref)
            finished = True
            yield final
        finally:
            if not finished:
                self._supervisor.request_stop(session_id, ref)

    async def run_background_bash(self, request: BashInput) -> ShellRunRecord:
        """Start a pipes or PTY run; its ``running`` record at once. It holds a residency
        token until it ends, even if its caller leaves while it starts."""
        self._refuse_if_draining()
        request.check(foreground=False)
        with self._internal_failures("run_background_bash"):
            async with self._admission.hold(request.session_id, start=True) as session:
                self._refuse_if_draining()
                request = self._with_cwd(request, session)
                residency = self._acquire_residency()
                release = once(residency.release)
                try:
                    return await self._supervisor.start_background(
                        request, on_end=lambda _record: release()
                    )
                except BaseException as error:
                    # Cancelled, it was admitted: it runs on, and its end releases the token.
                    if not isinstance(error, asyncio.CancelledError):
                        release()
                    raise

    async def stop(self, session_id: str, ref: str) -> ShellRunRecord:
        """Cancel a run and return its final snapshot (an ended run is returned unchanged).
        *session_id* may be empty (see :meth:`run_session`)."""
        with self._internal_failures("stop"):
            session_id = await self.run_session(session_id, ref)
            return await self._supervisor.stop(session_id, ref)

    async def get(self, session_id: str, ref: str) -> ShellRunRecord:
        """The run as of now; *session_id* may be empty (see :meth:`run_session`). A finished
        run memory answers for, in a session memory admits the caller to, needs no await (a
        client polling a result); every other case, errors included, takes :meth:`run_session`."""
        record = self._supervisor.finished_now(ref)
        if (
            record is not None
            and session_id in ("", record.session_id)
            and self._admission.admitted_now(record.session_id)
        ):
            return record
        with self._internal_failures("get"):
            session_id = await self.run_session(session_id, ref)
            return await self._supervisor.inspect(session_id, ref)

    async def list_runs(
        self, session_id: str, *, page_size: int = 0, page_token: str = ""
    ) -> ShellRunPage:
        """A page of the session's runs (a kept page needs no await when memory admits the
        caller); with an empty *session_id*, of every run :meth:`run_session` lets its ref see."""
        if session_id and self._admission.admitted_now(session_id):
            kept = self._supervisor.catalog.pages.kept((session_id, page_size, page_token))
            if kept is not None:
                return kept
        with self._internal_failures("list_runs"):
            if not session_id:
                return await self._supervisor.catalog.list_session(
                    None, page_size=page_size, page_token=page_token, visible=self._visible
                )
            await self._admission.check(session_id)
            return await self._supervisor.catalog.list_session(
                session_id, page_size=page_size, page_token=page_token
            )

    async def run_session(self, session_id: str, ref: str) -> str:
        """The session of the run *ref*, if the caller may reach the run: the one rule of every
        operation given a ref.

        A ref names one run, so *session_id* is optional: empty means the run's own session,
        from its record. A session that is given must be admitted and must be the run's;
        another session is :class:`NotFoundError`, exactly as for a ref that names no run (a
        ref does not reveal which session it belongs to). The run's session passes the same
        admission as a named one (archived, deleted, unknown: refused)."""
        parse_ref(ref)
        if session_id:
            await self._admission.check(session_id)
        owner = await self._supervisor.session_of(ref)
        if owner is None or (session_id and owner != session_id):
            where = f" in session {session_id}" if session_id else ""
            raise NotFoundError(f"no run {ref}{where}", field="ref")
        if not session_id:
            await self._admission.check(owner, claim=False, missing=f"no run {ref}")
        return owner

    async def _visible(self, session_id: str) -> bool:
        """Whether runs of *session_id* are listed to a caller who names no session."""
        try:
            await self._admission.check(session_id, claim=False)
        except (NotFoundError, SessionArchivedError):
            return False
        return True

    async def watch(
        self, session_id: str, *, after_change_seq: int = 0
    ) -> AsyncGenerator[ShellRunRecord, None]:
        """The session's run changes after *after_change_seq*: replay, then live."""
        with self._internal_failures("watch"):
            await self._admission.check(session_id)
            async for record in self._supervisor.catalog.watch(
                session_id, after_change_seq=after_change_seq
            ):
                yield record

    async def attach(
        self, session_id: str, ref: str, *, after_sequence: int = 0, coalesce: int = 0
    ) -> Attachment:
        """The run's screen now and its output after *after_sequence*: replay, then live until
        it ends (an ended run's kept output, see :mod:`.kept_output`). *session_id* may be
        empty (see :meth:`run_session`)."""
        with self._internal_failures("attach"):
            session_id = await self.run_session(session_id, ref)
            return await attachment(
                self._supervisor, session_id, ref, after_sequence=after_sequence, coalesce=coalesce
            )

    async def read_output(
        self, session_id: str, ref: str, *, after_sequence: int = 0, max_bytes: int = 0
    ) -> OutputPage:
        """A page of the run's kept output (:func:`.kept_output.read_output`); *session_id*
        may be empty (see :meth:`run_session`)."""
        with self._internal_failures("read_output"):
            owner = await self.run_session(session_id, ref)
            page = read_output(
                self._supervisor, owner, ref, after_sequence=after_sequence, max_bytes=max_bytes
            )
            return await page

    async def open_attach(
        self,
        session_id: str,
        ref: str,
        connection: ConnectionContext,
        *,
        controller_id: str = "",
        after_sequence: int = 0,
        coalesce: int = 0,
    ) -> AttachSession:
        """An Attach stream on *connection*: the run's attachment (see :meth:`attach`) and,
        with a *controller_id*, its controller lease; only then may the stream send controls
        (:meth:`AttachSession.control`)."""
        attachment = await self.attach(
            session_id, ref, after_sequence=after_sequence, coalesce=coalesce
        )
        return await AttachSession.open(
            self, self._supervisor, attachment, connection, controller_id=controller_id
        )

    # -- sessions ------------------------------------------------------------------------

    @property
    def standalone(self) -> bool:
        """True when any well-formed session id is admitted (not only registered ones)."""
        return self._admission.directory.standalone

    async def register_session(self, session_id: str, *, cwd: str = "", owner: str = "") -> bool:
        """Record that the session exists (the kernel's word), owned by *owner*, with *cwd* as
        its runs' default working directory; lifts an archive or a delete. Returns whether
        anything changed."""
        check_session_id(session_id)
        check_session_cwd(cwd)
        self._refuse_if_draining()
        with self._internal_failures("register_session"):
            return await self._admission.register(session_id, cwd=cwd or None, owner=owner)

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
                stopped = await self._supervisor.stop_session(session_id)
                await remove_session_output(self._supervisor, session_id)
        return without_output_beyond(stopped, self._supervisor.config.max_page_bytes)

    # -- controller leases -----------------------------------------------------------------

    async def acquire_controller(
        self, identity: ControllerIdentity, connection: ConnectionContext
    ) -> ControllerAcquireResult:
        """Take control of an active PTY run for *connection*; idempotent for the holder. The
        identity's session may be empty (see :meth:`run_session`)."""
        identity.check()
        self._refuse_if_draining()
        with self._internal_failures("acquire_controller"):
            identity = replace(
                identity, session_id=await self.run_session(identity.session_id, identity.ref)
            )
            async with self._admission.hold(identity.session_id):
                record = await self._supervisor.inspect(identity.session_id, identity.ref)
                if record.mode != "pty":
                    raise InvalidRequestError(
                        f"{identity.ref} is a pipes run; controller leases apply to PTY runs",
                        field="ref",
                    )
                # From here to the lease being taken nothing awaits, so a run that closes
                # cannot slip in between the check and the lease.
                if not record.active or self._supervisor.is_closing(
                    identity.session_id, identity.ref
                ):
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
                    screen=self._supervisor.screen(identity.session_id, identity.ref),
                    output_sequence=self._supervisor.last_output_sequence(
                        identity.session_id, identity.ref
                    ),
                )

    async def control_controller(
        self, request: ControlRequest, connection: ConnectionContext
    ) -> ControlResult:
        """Apply input and/or a resize under the lease, in sequence order."""
        request.identity.check()
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
                await self._supervisor.inspect(request.session_id, request.ref)
                raise
            if earlier is not None:
                return earlier
            control = request.control
            if control.kind in ("resize", "both"):
                await self._supervisor.resize(
                    request.session_id, request.ref, control.cols, control.rows
                )
            written = 0
            if control.kind in ("input", "both"):
                written = await self._supervisor.write_stdin(
                    request.session_id, request.ref, control.input_bytes
                )
            screen = self._supervisor.screen(request.session_id, request.ref)
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
        identity.check()
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
        """The synchronous rungs of the drain ladder (:mod:`.drain`): refuse every new start
        from now on, drop all controllers and begin cancelling live runs."""
        begin_drain(self)

    def refuse_starts(self) -> None:
        """Drain rung 1: every start (and lease acquisition) not admitted yet is refused."""
        self._draining = True

    def drop_controllers(self) -> None:
        """Drain rung 2: every controller lease ends."""
        self._leases.drop_all()

    def cancel_runs(self) -> None:
        """Drain rung 3: every live run begins its kill sequence; no start is admitted."""
        self._supervisor.begin_drain()

    async def runs_ended(self) -> DrainReport:
        """Wait until every live run has ended; the report covers the runs live at drain."""
        return await self._supervisor.drain()

    def drain_progress(self) -> DrainReport:
        """The drain report as of now (``unfinished``: the runs still ending)."""
        return self._supervisor.drain_progress()

    def hurry(self) -> None:
        """Drain rung 5: the grace ran out; every kill sequence sends SIGKILL now."""
        self._supervisor.hurry()

    async def close(self) -> DrainReport:
        """Drain and wait until every live run has ended; idempotent."""
        self.begin_drain()
        report = await self.runs_ended()
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
        home = self._default_cwd or os.path.expanduser("~")
        return rooted(request, session.cwd or "", home)  # the cwd filled in, the boundary rooted

    def _internal_failures(self, operation: str) -> RequestFailures:
        """Domain errors pass through; anything else is an internal failure of this request
        only (:mod:`.request_failures`)."""
        return RequestFailures(operation, log)

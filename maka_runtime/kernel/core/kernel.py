"""The runtime kernel: the one façade the API layer talks to.

:class:`RuntimeKernel` checks each request's arguments, looks the session up for the calling
principal (:mod:`.access`: another principal's session does not exist for it) and hands the
request to the part that owns the rule: admission (:mod:`.turns.admission`), the run lifecycle
(:mod:`.turns.runner`), stops (:mod:`.turns.stop`), drain (:mod:`.turns.drain`), the session
table (:mod:`.sessions`) and the log's readers (:mod:`.log`). It builds those parts once, on
frozen dependencies (:class:`~maka_runtime.kernel.core.deps.KernelDeps`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from maka_runtime.common.aio import TaskOwner
from maka_runtime.common.principal import current_principal
from maka_runtime.kernel.core.access import SessionAccess, creator
from maka_runtime.kernel.core.backend import STOP_MODES, BackendRegistry, QueuedMessage, StopMode
from maka_runtime.kernel.core.deps import (
    BackendActivation,
    KernelDeps,
    default_new_id,
    default_now,
    run_directly,
)
from maka_runtime.kernel.core.errors import (
    HostDrainingError,
    InvalidRequestError,
    OutOfRangeError,
    SessionBusyError,
    combine_failures,
    describe,
)
from maka_runtime.kernel.core.interactions.answers import TurnInteractions
from maka_runtime.kernel.core.interactions.listing import interactions_of
from maka_runtime.kernel.core.interactions.owners import InteractionAuthority, MessageAuthority
from maka_runtime.kernel.core.log.events import StoredMessage, SystemNote
from maka_runtime.kernel.core.log.session_log import SessionWatch
from maka_runtime.kernel.core.log.stream import TurnStream
from maka_runtime.kernel.core.session import (
    SessionHeader,
    SessionPage,
    SessionQuery,
    TurnPage,
    TurnRecord,
    decode_page_token,
)
from maka_runtime.kernel.core.session_pages import SessionPages
from maka_runtime.kernel.core.sessions import (
    NewSession,
    SessionTable,
    SessionUpdate,
    build_header,
    patch_for,
    turn_page,
)
from maka_runtime.kernel.core.sizes import fitting
from maka_runtime.kernel.core.store import InteractionPage, InteractionRecord, SessionStore
from maka_runtime.kernel.core.tools import ToolHost, ToolSessionAction, tell_tool_host
from maka_runtime.kernel.core.turns.admission import Opening, TurnAdmission
from maka_runtime.kernel.core.turns.drain import DrainReport, DrainRung, KernelDrain
from maka_runtime.kernel.core.turns.generation import Generation
from maka_runtime.kernel.core.turns.run import Run, StopOutcome
from maka_runtime.kernel.core.turns.runner import Runner
from maka_runtime.kernel.core.turns.stop import StopCoordinator
from maka_runtime.kernel.core.turns.turn_ends import PendingTurnEnds
from maka_runtime.kernel.core.validation import (
    KernelLimits,
    check_cursor,
    check_id,
    check_length,
    check_limit,
    check_source,
    check_text,
)

log = logging.getLogger("maka_runtime.kernel.core")


class RuntimeKernel:
    """Sessions and their turns, correct when everything around them fails.

    ``new_id``, ``now`` and ``run_backend_activation`` are injectable (tests make them
    deterministic and hold activations open).
    """

    def __init__(
        self,
        *,
        store: SessionStore,
        backends: BackendRegistry,
        interaction_authority: InteractionAuthority | None = None,
        message_authority: MessageAuthority | None = None,
        new_id: Callable[[], str] | None = None,
        now: Callable[[], int] | None = None,
        run_backend_activation: BackendActivation | None = None,
        limits: KernelLimits | None = None,
        tool_host: ToolHost | None = None,
    ) -> None:
        self.limits = limits or KernelLimits()
        deps = KernelDeps(
            store=store,
            backends=backends,
            interaction_authority=interaction_authority,
            message_authority=message_authority,
            new_id=new_id or default_new_id,
            now=now or default_now,
            run_backend_activation=run_backend_activation or run_directly,
            tasks=TaskOwner(),
            max_event_bytes=self.limits.max_event_bytes,
        )
        self._deps = deps
        self._sessions = SessionTable(deps)
        self._access = SessionAccess(store)
        self._pages = SessionPages(store, self.limits)
        turn_ends = PendingTurnEnds(
            append=self._sessions.append,
            update_header=store.update_header,
            tasks=deps.tasks,
            new_id=deps.new_id,
            now=deps.now,
        )
        self._stops = StopCoordinator(deps, self._sessions, turn_ends, self.limits, tool_host)
        self._drain = KernelDrain(deps, self._sessions, self._stops)
        self._admission = TurnAdmission(
            deps, self._sessions, turn_ends, lambda: self._drain.draining
        )
        self._runner = Runner(deps, self._sessions, self._admission, turn_ends, self._stops.claim)
        self._interactions = TurnInteractions(
            deps, self._sessions, self._runner.recorder, self.limits, lambda: self._drain.draining
        )
        #: Where tools run; told about sessions as they are created, archived and deleted.
        self.tool_host = tool_host

    @property
    def store(self) -> SessionStore:
        return self._deps.store

    @property
    def draining(self) -> bool:
        return self._drain.draining

    @property
    def drain_rung(self) -> DrainRung:
        """How far the kernel's drain has gone (see :mod:`.turns.drain`)."""
        return self._drain.rung

    def active_turn(self, session_id: str) -> str | None:
        run = self._sessions.active_run(session_id)
        return run.turn_id if run is not None else None

    def backend_generation(self, session_id: str) -> Generation | None:
        """The session's cached backend generation (its number, stop and disposal state)."""
        runtime = self._sessions.get(session_id)
        return runtime.generation if runtime is not None else None

    async def resume_unconfirmed(self) -> int:
        """At start-up: quarantine again the runs a previous process could not confirm ended."""
        return len(await self._stops.confirmer.resume())

    async def wait_settled(self, session_id: str) -> None:
        """Return once the session has no active turn (at once if it has none)."""
        run = self._sessions.active_run(session_id)
        if run is not None:
            await run.settled.wait()

    # -- sessions ------------------------------------------------------------------------------

    async def create_session(self, spec: NewSession) -> SessionHeader:
        session_id = spec.session_id or self._deps.new_id()
        check_id("session_id", session_id)
        owner = creator(current_principal())
        now, dirs = self._deps.now(), self.limits.protected_dirs
        header = build_header(spec, session_id, now, self._deps.backends, owner, protected=dirs)
        if self._drain.draining:
            raise HostDrainingError("sessions")
        created = await self._deps.store.create(header)
        note = SystemNote(
            kind="session_start",
            text=f"session created with backend {header.backend}",
            id=self._deps.new_id(),
            ts=header.created_at,
        )
        await self._sessions.append(session_id, [note])
        await self._tell_tool_host(session_id, "register", created)
        return created

    async def get_session(self, session_id: str) -> SessionHeader:
        check_id("session_id", session_id)
        return await self._access.header(session_id)

    def session_now(self, session_id: str) -> SessionHeader | None:
        """:meth:`get_session` if it can answer without awaiting, else ``None``."""
        return self._access.header_now(session_id)

    async def list_sessions(self, query: SessionQuery) -> SessionPage:
        return await self._pages.page(query)

    def sessions_page_now(
        self, archived: bool | None, label: str | None, page_size: int, page_token: str
    ) -> SessionPage | None:
        """:meth:`list_sessions` if a kept page answers without awaiting, else ``None``."""
        return self._pages.kept(archived, label, page_size, page_token)

    async def update_session(self, session_id: str, update: SessionUpdate) -> SessionHeader:
        check_id("session_id", session_id)
        header = await self._access.header(session_id)
        patch = patch_for(update, self._deps.now(), header, self.limits.protected_dirs)
        if update.archived and not header.is_archived:
            # Archiving a session stops what runs in it first.
            await self.stop_session(session_id, source="archive", mode="immediate")
        if not patch:
            return header
        updated = await self._deps.store.update_header(session_id, patch)
        if update.archived is not None and update.archived != header.is_archived:
            if update.archived:
                await self._tell_tool_host(session_id, "archive", updated)
            else:
                await self._tell_tool_host(session_id, "register", updated)
        elif update.archived is None and updated.cwd != header.cwd and not updated.is_archived:
            await self._tell_tool_host(session_id, "register", updated)
        return updated

    async def _tell_tool_host(
        self, session_id: str, action: ToolSessionAction, header: SessionHeader | None = None
    ) -> None:
        if self.tool_host is not None:
            await tell_tool_host(self.tool_host, session_id, action, header)

    async def delete_session(self, session_id: str) -> None:
        check_id("session_id", session_id)
        await self._access.check(session_id)
        runtime = self._sessions.get(session_id)
        if runtime is not None and runtime.active_run is not None:
            raise SessionBusyError(session_id, runtime.active_run.turn_id)
        await self._deps.store.remove(session_id)
        await self._tell_tool_host(session_id, "delete")
        if runtime is not None:
            self._sessions.forget(session_id)
            runtime.log.close(removed=True)
            generation = runtime.generation
            if generation is not None and generation.active:
                try:
                    await generation.dispose()
                except Exception as failure:
                    log.error(
                        "disposing the backend of deleted session %s failed: %s",
                        session_id,
                        describe(failure),
                    )

    async def read_messages(
        self, session_id: str, *, after_seq: int = 0, limit: int | None = None
    ) -> list[StoredMessage]:
        check_id("session_id", session_id)
        check_cursor("after_seq", after_seq)
        check_limit(limit, self.limits.max_read_batch)
        await self._access.check(session_id)
        entries = await self._deps.store.read_messages(session_id, after_seq=after_seq, limit=limit)
        if not entries:
            await self._check_in_log(session_id, after_seq)
        # Bounded by bytes as well as by count: the caller reads on from the last seq.
        return fitting(entries, self.limits.max_response_bytes)

    async def _check_in_log(self, session_id: str, after_seq: int) -> None:
        last_seq = await self._deps.store.last_seq(session_id)
        if after_seq > last_seq:
            raise OutOfRangeError("after_seq", after_seq, last_seq)

    async def list_turns(
        self, session_id: str, *, after_seq: int = 0, limit: int | None = None
    ) -> list[TurnRecord]:
        """One page of :meth:`turns_page`."""
        page = await self.turns_page(session_id, after_seq=after_seq, limit=limit)
        return list(page.turns)

    async def turns_page(
        self, session_id: str, *, after_seq: int = 0, limit: int | None = None
    ) -> TurnPage:
        """The session's turns in order, those that started after log entry *after_seq*,
        at most *limit* (default and at most ``max_read_batch``) and ``max_response_bytes``."""
        check_id("session_id", session_id)
        check_cursor("after_seq", after_seq)
        check_limit(limit, self.limits.max_read_batch)
        await self._access.check(session_id)
        turns = await self._deps.store.list_turns(session_id)
        count = limit or self.limits.max_read_batch
        return turn_page(turns, after_seq, count, self.limits.max_response_bytes)

    async def watch_session(self, session_id: str, *, after_seq: int = 0) -> SessionWatch:
        """Replay the log after *after_seq*, then follow it live (see :class:`SessionWatch`).

        A cursor beyond the end of the log is :class:`OutOfRangeError`; the watch ends with
        :class:`NotFoundError` if the session is deleted while it runs."""
        check_id("session_id", session_id)
        check_cursor("after_seq", after_seq)
        await self._access.header(session_id)
        await self._check_in_log(session_id, after_seq)
        return SessionWatch(self._sessions.session(session_id).log, after_seq)

    # -- turns ---------------------------------------------------------------------------------

    def start_turn(
        self,
        session_id: str,
        turn_id: str | None = None,
        *,
        text: str,
        report_not_started: bool = False,
    ) -> TurnStream:
        """A turn as an async iterator of session events (nothing starts before iteration).

        A turn that goes stale before it starts ends without events, or raises
        :class:`TurnNotStartedError` with *report_not_started*.
        """
        check_id("session_id", session_id)
        made = not turn_id  # an id the kernel makes now has no record to look up
        final_turn_id = turn_id = turn_id or self._deps.new_id()
        check_id("turn_id", turn_id)
        check_text("text", text, self.limits.max_text_bytes)
        return TurnStream(
            session_id,
            turn_id,
            text,
            open_turn=lambda: self._open_turn(session_id, final_turn_id, text, made),
            stop_abandoned=self._stop_abandoned,
            report_not_started=report_not_started,
        )

    async def _open_turn(self, session_id: str, turn_id: str, text: str, made: bool) -> Opening:
        await self._access.check(session_id)
        launch = self._runner.launch
        return await self._admission.open(session_id, turn_id, text, launch=launch, made=made)

    def _stop_abandoned(self, run: Run, source: str) -> asyncio.Future[StopOutcome]:
        return self._stops.claim(run, source, "immediate", escalate=False)

    def stop_session(
        self,
        session_id: str,
        *,
        source: str = "api",
        mode: StopMode = "immediate",
        turn_id: str = "",
    ) -> asyncio.Future[StopOutcome]:
        """Stop the session's turn; the stop is claimed at the call (for a caller who does not
        see every session, once the session is looked up), the future reports it.

        Concurrent and repeated stops of one run share one operation (and one error object);
        a turn still being reserved is prevented from ever sending. With nothing running the
        future resolves at once (``turn_id`` empty). With *turn_id*, only that turn is stopped;
        when it is not admitted yet the stop is remembered and the turn ends aborted as soon
        as it is admitted (see :mod:`.turns.admission`).
        """
        check_id("session_id", session_id)
        check_source(source)
        if turn_id:
            check_id("turn_id", turn_id)
        if mode not in STOP_MODES:
            raise InvalidRequestError("mode", f"must be one of {', '.join(STOP_MODES)}")
        if self._access.checked():
            return self._deps.tasks.spawn(
                self._stop_checked(session_id, source, mode, turn_id), name="stop"
            )
        return self._stop_now(session_id, source, mode, turn_id)

    async def _stop_checked(
        self, session_id: str, source: str, mode: StopMode, turn_id: str
    ) -> StopOutcome:
        await self._access.header(session_id)
        return await self._stop_now(session_id, source, mode, turn_id)

    def _stop_now(
        self, session_id: str, source: str, mode: StopMode, turn_id: str
    ) -> asyncio.Future[StopOutcome]:
        runtime = self._sessions.get(session_id)
        run = runtime.active_run if runtime is not None else None
        if turn_id and (run is None or run.turn_id != turn_id):
            early = self._stops.stop_early(
                session_id, turn_id, source, mode, self.limits.max_early_stops
            )
            return self._deps.tasks.spawn(early, name="stop")
        if runtime is not None:
            runtime.stop_epoch += 1
        if run is None:
            return self._deps.tasks.spawn(
                self._stops.stop_idle(session_id, source, mode), name="stop"
            )
        return self._stops.claim(run, source, mode)

    # -- interactions --------------------------------------------------------------------------

    async def list_interactions(
        self,
        session_id: str,
        *,
        page_token: str = "",
        limit: int | None = None,
        pending_only: bool = False,
    ) -> InteractionPage:
        """The session's interaction requests, oldest first (pending and resolved, or only
        pending), at most *limit* (default and at most ``max_read_batch``) and
        ``max_response_bytes`` a page; a page cut short carries a ``next_page_token``."""
        check_id("session_id", session_id)
        check_limit(limit, self.limits.max_read_batch)
        check_length("page_token", page_token)
        if page_token:
            decode_page_token(page_token, kind="interactions")  # a bad token: before any read
        await self._access.header(session_id)
        return await interactions_of(
            self._deps.interaction_authority,
            session_id,
            pending_only=pending_only,
            page_token=page_token,
            limit=limit or self.limits.max_read_batch,
            max_bytes=self.limits.max_response_bytes,
        )

    async def answer_sandbox_boundary(
        self, session_id: str, request_id: str, decision: str, *, reason: str = ""
    ) -> InteractionRecord:
        """Answer a pending sandbox-boundary request through the hosted authority (once)."""
        await self._access.check(session_id)
        return await self._interactions.answer_sandbox_boundary(
            session_id, request_id, decision, reason=reason
        )

    async def answer_user_question(
        self, session_id: str, request_id: str, answers: Sequence[str]
    ) -> InteractionRecord:
        """Answer a pending user question through the hosted authority (once)."""
        await self._access.check(session_id)
        return await self._interactions.answer_user_question(session_id, request_id, answers)

    async def respond_to_user_question(
        self, session_id: str, request_id: str, answers: Sequence[str]
    ) -> None:
        """The legacy direct responder (only without a hosted authority, see TurnInteractions)."""
        await self._access.check(session_id)
        await self._interactions.respond_to_user_question(session_id, request_id, answers)

    async def send_message(self, session_id: str, text: str, *, turn_id: str = "") -> QueuedMessage:
        """Queue *text* for the running turn; its backend pulls it at its next step."""
        await self._access.check(session_id)
        return await self._interactions.send_message(session_id, text, turn_id=turn_id)

    def pending_messages(self) -> tuple[int, int]:
        """Messages (and bytes) queued into running turns, not yet taken by a backend."""
        return self._interactions.pending_messages()

    # -- backends, drain, close ----------------------------------------------------------------

    async def invalidate_cached_backends(self) -> None:
        """Dispose every idle cached backend (busy ones retire when their run settles); raises
        the disposal failures, each permanently quarantined session's too (never retried)."""
        combined = combine_failures(await self._sessions.dispose_idle_generations())
        if combined is not None:
            raise combined

    def begin_drain(self) -> None:
        """Admit no new turns from now on (``host_draining``); :meth:`drain` stops the rest."""
        self._drain.close_admission()

    async def drain(
        self, *, grace: float, escalation_grace: float = 5.0, source: str = "host_shutdown"
    ) -> DrainReport:
        """Admit no new turns; stop running ones ``after_step``, ``immediate`` after *grace*."""
        return await self._drain.stop_turns(
            grace=grace, escalation_grace=escalation_grace, source=source
        )

    async def shut_down(
        self, *, grace: float, escalation_grace: float = 5.0, source: str = "host_shutdown"
    ) -> DrainReport:
        """:meth:`drain`, then :meth:`end_readers`: the kernel's part of the host's shutdown."""
        return await self._drain.shut_down(
            grace=grace, escalation_grace=escalation_grace, source=source
        )

    def end_readers(self) -> None:
        """End every watch and turn stream (after :meth:`drain`: the record is complete);
        a turn stream of a run still live ends with :class:`HostDrainingError`."""
        self._drain.end_readers()

    async def close(self, *, dispose_timeout: float = 5.0) -> None:
        """End readers, cancel what still runs, dispose cached backends. Idempotent.

        Turns still running are left as they are on the record (``running``): like a crash,
        the next start-up sweep marks them interrupted. Call :meth:`drain` first to stop them
        on the record.
        """
        await self._drain.close(dispose_timeout=dispose_timeout)

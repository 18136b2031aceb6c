"""Runs a stop could not confirm ended, and the kernel's confirmation of them.

An immediate stop answers OK only once the tool host confirmed that the turn's runs ended.
When it could not (the resource service did not answer within the stop-confirm timeout, see
:class:`~maka_runtime.kernel.core.errors.RunEndUnconfirmedError`), the stop fails and:

* the stop's projection records a ``system_note run_unconfirmed`` (source: the run's ref)
  before the turn's terminal state, and marks the header ``blocked`` — that is the durable
  record a restarted kernel finds again (:meth:`RunConfirmer.resume`);
* the session is quarantined: every new turn fails with
  :class:`~maka_runtime.kernel.core.errors.RunUnconfirmedQuarantineError` ("quarantined");
* a background task keeps asking the tool host to stop the run (``StopRun`` by ref, which
  answers with the run's record), with a backoff from :data:`FIRST_RETRY` up to the
  stop-confirm timeout. Once it answers with a terminal run, the
  kernel appends a ``system_note run_confirmed`` (no turn id: the turn's record ended with its
  terminal state), marks the header ``aborted`` and lifts the quarantine.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable

from maka_runtime.kernel.core.deps import KernelDeps
from maka_runtime.kernel.core.errors import RunEndUnconfirmedError, describe
from maka_runtime.kernel.core.log.events import StoredMessage, SystemNote
from maka_runtime.kernel.core.session import SessionStatus
from maka_runtime.kernel.core.sessions import SessionTable
from maka_runtime.kernel.core.tools import ToolHost, ToolHostError
from maka_runtime.kernel.core.turns.run import UnconfirmedRun

log = logging.getLogger("maka_runtime.kernel.core")

BLOCKED: tuple[SessionStatus, ...] = ("blocked",)
#: The first pause between two confirmation attempts; it doubles up to the confirm timeout.
FIRST_RETRY = 0.25


def unconfirmed_in(failure: BaseException | None) -> list[RunEndUnconfirmedError]:
    """Every :class:`RunEndUnconfirmedError` reachable in *failure* (groups, causes)."""
    if failure is None:
        return []
    if isinstance(failure, RunEndUnconfirmedError):
        return [failure]
    found: list[RunEndUnconfirmedError] = []
    if isinstance(failure, BaseExceptionGroup):
        for nested in failure.exceptions:
            found.extend(unconfirmed_in(nested))
    elif failure.__cause__ is not None:
        found.extend(unconfirmed_in(failure.__cause__))
    return found


class RunConfirmer:
    """Keeps asking the tool host about unconfirmed runs until each is confirmed ended."""

    def __init__(
        self, deps: KernelDeps, sessions: SessionTable, host: ToolHost | None, timeout: float
    ) -> None:
        self._deps = deps
        self._sessions = sessions
        self._host = host
        self._timeout = timeout

    def notes(self, turn_id: str, failure: BaseException | None) -> list[StoredMessage]:
        """The ``run_unconfirmed`` notes of a failed stop (they go before its terminal state)."""
        deps = self._deps
        return [
            SystemNote(
                kind="run_unconfirmed",
                text=(
                    f"run {ref} of turn {turn_id} was not confirmed ended by the stop; the "
                    "session takes no turn until the kernel confirms it"
                ),
                turn_id=turn_id,
                source=ref,
                id=deps.new_id(),
                ts=deps.now(),
            )
            for error in unconfirmed_in(failure)
            for ref in error.refs
        ]

    def quarantine(self, runs: Iterable[UnconfirmedRun]) -> None:
        """Quarantine each run's session and start confirming the run."""
        for run in runs:
            runtime = self._sessions.session(run.session_id)
            if run.ref in runtime.unconfirmed_runs:
                continue
            runtime.unconfirmed_runs[run.ref] = run
            self._deps.tasks.spawn(self._confirm(run), name=f"confirm-{run.ref}", log_failure=True)

    async def resume(self) -> list[UnconfirmedRun]:
        """At start-up: quarantine again every run a previous process left unconfirmed."""
        store = self._deps.store
        found: list[UnconfirmedRun] = []
        for session_id in await store.sessions_in_status(BLOCKED):
            pending: dict[str, UnconfirmedRun] = {}
            for entry in await store.read_messages(session_id):
                if not isinstance(entry, SystemNote):
                    continue
                if entry.kind == "run_unconfirmed":
                    pending[entry.source] = UnconfirmedRun(
                        session_id=session_id, turn_id=entry.turn_id, ref=entry.source
                    )
                elif entry.kind == "run_confirmed":
                    pending.pop(entry.source, None)
            found.extend(pending.values())
        self.quarantine(found)
        return found

    def _wanted(self, run: UnconfirmedRun) -> bool:
        """Whether *run* still quarantines its session (not when the session was deleted)."""
        runtime = self._sessions.get(run.session_id)
        return runtime is not None and runtime.unconfirmed_runs.get(run.ref) is run

    async def _confirm(self, run: UnconfirmedRun) -> None:
        pause = FIRST_RETRY
        while self._wanted(run):
            status = await self._ask(run)
            if status:
                await self._record(run, status)
                return
            await asyncio.sleep(pause)
            pause = min(pause * 2, max(self._timeout, FIRST_RETRY))
        log.info("run %s: its session is gone; no confirmation is needed", run.ref)

    async def _ask(self, run: UnconfirmedRun) -> str:
        """The run's terminal status if the host confirms it ended now, else ``""``."""
        host = self._host
        if host is None:
            return "no tool host is configured any more"
        try:
            async with asyncio.timeout(self._timeout):
                info = await host.stop_run(run.session_id, run.ref)
        except TimeoutError:
            log.info("run %s: the tool host still does not answer", run.ref)
            return ""
        except ToolHostError as error:
            log.info("run %s: not confirmed yet: %s", run.ref, describe(error))
            return ""
        return "" if info.active else info.status

    async def _record(self, run: UnconfirmedRun, status: str) -> None:
        deps = self._deps
        runtime = self._sessions.session(run.session_id)
        now = deps.now()
        note = SystemNote(
            kind="run_confirmed",
            text=(
                f"run {run.ref} of turn {run.turn_id} is confirmed ended ({status}); the "
                "session takes turns again"
            ),
            source=run.ref,
            id=deps.new_id(),
            ts=now,
        )
        written = False
        while True:
            try:
                if not written and len(runtime.unconfirmed_runs) == 1:
                    await deps.store.update_header(
                        run.session_id, {"status": "aborted", "status_updated_at": now}
                    )
                written = True
                # Lifted in the same step as the note is queued: a next turn's records come
                # after it in the log.
                runtime.unconfirmed_runs.pop(run.ref, None)
                await self._sessions.append(run.session_id, [note])
                break
            except asyncio.CancelledError:
                raise
            except Exception as failure:
                if self._sessions.get(run.session_id) is not runtime:
                    return  # deleted meanwhile: nothing to record
                # The quarantine stays until the confirmation is on the record.
                runtime.unconfirmed_runs[run.ref] = run
                log.error("cannot record the confirmation of %s: %s", run.ref, describe(failure))
                await asyncio.sleep(self._timeout)
        log.info("run %s of session %s confirmed ended (%s)", run.ref, run.session_id, status)

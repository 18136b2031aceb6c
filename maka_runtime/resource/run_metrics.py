"""The resource service's figures for the metrics, read off the supervisor's update feed.

The supervisor tells its listeners of every committed run revision (and of a run beginning to
close); from those this module keeps the live runs by state, counts the runs that reached a
final state, and times a stopped run (cancelled or timed out) from the moment it began closing
to its final record; it logs (debug) each run's states with its session, turn and run ids.
The PTY gauge counts the live runs over a PTY. The figures go to a
:class:`RunRecorder` (the server passes its Prometheus metrics); the core is not touched.
"""

from __future__ import annotations

import logging
import time
from typing import Protocol

from maka_runtime.common.logs import log_context
from maka_runtime.resource.core.records import is_active_status
from maka_runtime.resource.core.supervisor import RunSupervisor, ShellRunUpdate

__all__ = ["RunObserver", "RunRecorder"]

log = logging.getLogger("maka.resource.runs")

#: Final states that come from stopping a run (its stop duration is measured).
STOPPED = frozenset({"cancelled", "timed_out"})


class RunRecorder(Protocol):
    def count_finished(self, kind: str, state: str, stop_seconds: float | None = None) -> None:
        """A run reached final *state*; *stop_seconds* since it began closing, if stopped."""


class RunObserver:
    """Follows *supervisor*'s updates for *recorder* until :meth:`close`."""

    def __init__(self, supervisor: RunSupervisor, recorder: RunRecorder) -> None:
        self._recorder = recorder
        #: Live runs: ref -> (state, mode). Read by the scraping thread: copied, never iterated.
        self._states: dict[str, tuple[str, str]] = {}
        self._closing: dict[str, float] = {}
        self._remove = supervisor.add_update_listener(self._update)

    def _update(self, update: ShellRunUpdate) -> None:
        # The ids are only for the debug lines: without them logged, no context is set up
        # (a run's every update passes here, on its path to the final message).
        if not log.isEnabledFor(logging.DEBUG):
            self._follow(update)
            return
        record = update.record
        ids = {"session_id": record.session_id, "turn_id": record.source_turn_id}
        with log_context(**ids, run_id=record.id):
            self._follow(update)

    def _follow(self, update: ShellRunUpdate) -> None:
        record = update.record
        if update.kind == "closing":
            self._closing.setdefault(record.ref, time.monotonic())
            return
        if is_active_status(record.status):
            if self._states.get(record.ref, ("",))[0] != record.status:
                log.debug("run %s %s (%s, %s)", record.id, record.status, record.kind, record.mode)
            self._states[record.ref] = (record.status, record.mode)
            return
        log.debug("run %s %s (exit code %s)", record.id, record.status, record.exit_code)
        self._states.pop(record.ref, None)
        began = self._closing.pop(record.ref, None)
        stopped = record.status in STOPPED and began is not None
        seconds = time.monotonic() - began if stopped and began is not None else None
        self._recorder.count_finished("run", record.status, seconds)

    def live_runs(self) -> dict[tuple[str, str], int]:
        counts: dict[tuple[str, str], int] = {}
        for state, _ in list(self._states.values()):
            counts["run", state] = counts.get(("run", state), 0) + 1
        return counts

    def live_ptys(self) -> int:
        return sum(1 for _, mode in list(self._states.values()) if mode == "pty")

    def close(self) -> None:
        self._remove()

"""The drain of the resource service: its ladder in one function, its rungs as an enum.

A drain climbs these rungs in order (:class:`DrainRung`):

1. ``REFUSE_STARTS``: every start not admitted yet is refused (``HostDrainingError``), at once.
2. ``DROP_CONTROLLERS``: every controller lease ends.
3. ``CANCEL_RUNS``: every live run (also one still starting) begins its kill sequence.
4. ``WAIT_GRACE``: wait up to the shutdown grace for every run to end.
5. ``HURRY``: if some have not, their kill sequences skip the rest of their grace (SIGKILL now).
   The drain report is made here: it says how the runs ended within the grace and which had not.
6. ``WAIT_FINAL_RECORDS``: wait until every run's terminal record is committed (or lost).

The first three rungs are synchronous (:func:`begin_drain`): a Shutdown RPC or a fail-stop
climbs them before it yields. The server only wires :func:`drain` (its report answers the
Shutdown RPC as soon as rung 5 is done; the process exits after rung 6).
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from maka_runtime.common.aio import race
from maka_runtime.resource.core.records import ShellRunRecord, ShellRunStatus

__all__ = ["DrainReport", "DrainRung", "Drainable", "begin_drain", "drain", "report_of"]

log = logging.getLogger("maka.resource")


class DrainRung(enum.Enum):
    """The rungs of the drain ladder, in the order they are climbed."""

    REFUSE_STARTS = 1
    DROP_CONTROLLERS = 2
    CANCEL_RUNS = 3
    WAIT_GRACE = 4
    HURRY = 5
    WAIT_FINAL_RECORDS = 6


@dataclass(frozen=True)
class DrainReport:
    """How the runs that were live when draining began have ended (so far)."""

    ended: Mapping[ShellRunStatus, int] = field(default_factory=dict)
    #: Runs whose end could not be recorded (the store failed).
    lost: int = 0
    #: Refs of runs still ending when the report was made (only in a report taken before the
    #: drain finished, see :meth:`Drainable.drain_progress`).
    unfinished: tuple[str, ...] = ()


def report_of(runs: Iterable[tuple[str, asyncio.Future[ShellRunRecord]]]) -> DrainReport:
    """The report on runs (ref, terminal record future) live when draining began."""
    ended: Counter[ShellRunStatus] = Counter()
    lost = 0
    unfinished: list[str] = []
    for ref, terminal in runs:
        if not terminal.done():
            unfinished.append(ref)
        elif terminal.cancelled() or terminal.exception() is not None:
            lost += 1
        else:
            ended[terminal.result().status] += 1
    return DrainReport(ended=dict(ended), lost=lost, unfinished=tuple(unfinished))


class Drainable(Protocol):
    """What the ladder needs of the resource host (the façade and its supervisor)."""

    def refuse_starts(self) -> None: ...
    def drop_controllers(self) -> None: ...
    def cancel_runs(self) -> None: ...
    async def runs_ended(self) -> DrainReport: ...
    def drain_progress(self) -> DrainReport: ...
    def hurry(self) -> None: ...


def begin_drain(host: Drainable) -> None:
    """Rungs 1 to 3, synchronously; climbing them again changes nothing."""
    host.refuse_starts()
    host.drop_controllers()
    host.cancel_runs()


async def drain(
    host: Drainable,
    grace: float,
    *,
    reported: Callable[[DrainReport], None] | None = None,
    climbed: Callable[[DrainRung], None] | None = None,
) -> DrainReport:
    """Climb the whole ladder; returns the report of rung 5 (also handed to *reported* as soon
    as it is made, before rung 6). *climbed* hears of each rung as it is reached."""
    step = climbed or (lambda rung: None)
    for rung, climb in (
        (DrainRung.REFUSE_STARTS, host.refuse_starts),
        (DrainRung.DROP_CONTROLLERS, host.drop_controllers),
        (DrainRung.CANCEL_RUNS, host.cancel_runs),
    ):
        step(rung)
        climb()
    step(DrainRung.WAIT_GRACE)
    ended = asyncio.ensure_future(host.runs_ended())
    if await race(asyncio.shield(ended), within=grace) is not None:
        report = ended.result()
    else:
        step(DrainRung.HURRY)
        report = host.drain_progress()
        host.hurry()
        log.warning(
            "%d run(s) still ending after the %.1f s shutdown grace period; killing them: %s",
            len(report.unfinished),
            grace,
            ", ".join(report.unfinished),
        )
    log.info(
        "drained: %s; %d unfinished; %d lost",
        dict(report.ended) or "no live runs",
        len(report.unfinished),
        report.lost,
    )
    if reported is not None:
        reported(report)
    step(DrainRung.WAIT_FINAL_RECORDS)
    await ended
    return report

"""The start-up sweep: runs a dead host left active become ``orphaned``, their output journals
kept (what they held is read back into the terminal record).

For each such run the leftover processes are killed *first* and the record is marked second: if
this host dies in between, the next sweep still finds the run active and tries again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from maka_runtime.resource.core.journals import OutputJournals
from maka_runtime.resource.core.output_counts import JournalSummary
from maka_runtime.resource.core.process.termination import kill_leftovers
from maka_runtime.resource.core.records import ShellRunRecord
from maka_runtime.resource.core.store import ShellRunStore

__all__ = ["ORPHANED_MESSAGE", "RecoveryReport", "sweep_orphaned_runs"]

log = logging.getLogger(__name__)

ORPHANED_MESSAGE = "Runtime restarted without a live shell process handle"


@dataclass(frozen=True)
class RecoveryReport:
    #: Refs of the runs marked ``orphaned``.
    orphaned: tuple[str, ...] = ()
    #: PIDs of leftover processes that were killed.
    killed_pids: tuple[int, ...] = ()
    #: Recorded PIDs that now belong to unrelated processes and were left alone.
    reused_pids: tuple[int, ...] = ()
    #: PIDs that survived SIGKILL (should be empty).
    survived_pids: tuple[int, ...] = ()


async def sweep_orphaned_runs(
    store: ShellRunStore,
    journals: OutputJournals | None = None,
    *,
    now: Callable[[], int],
    kill_timeout: float = 5.0,
) -> RecoveryReport:
    """Mark every run left active ``orphaned``, after killing what is left of its processes;
    its output journal is read back (what it kept, exactly) into the terminal record and kept
    like any ended run's."""
    orphaned: list[str] = []
    killed: list[int] = []
    reused: list[int] = []
    survived: list[int] = []
    for record in await store.list_active():
        cleanup = await asyncio.to_thread(
            kill_leftovers, record.process, record.id, timeout=kill_timeout
        )
        killed.extend(cleanup.killed)
        survived.extend(cleanup.survived)
        if cleanup.pid_reused and record.process is not None:
            reused.append(record.process.pid)
        final = _orphaned(record, now())
        if journals is not None:
            summary = await journals.scan(record.id)
            final = final.with_journal(summary or JournalSummary())
        await store.update(final)
        if journals is not None and journals.directory is not None:
            path = journals.path(record.id)
            size = await asyncio.to_thread(_size, path) if path is not None else 0
            journals.ended(record.id, size)
        orphaned.append(record.ref)
        log.warning(
            "%s was left %s by a previous host: orphaned, killed %s",
            record.ref,
            record.status,
            list(cleanup.killed) or "nothing",
        )
    return RecoveryReport(
        orphaned=tuple(orphaned),
        killed_pids=tuple(killed),
        reused_pids=tuple(reused),
        survived_pids=tuple(survived),
    )


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _orphaned(record: ShellRunRecord, now: int) -> ShellRunRecord:
    return record.finished(
        status="orphaned", now=now, output=record.output, message=ORPHANED_MESSAGE
    )

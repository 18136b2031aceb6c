"""Terminal records the store refused, written again until it takes them.

A run's process can end while the store refuses writes (a full disk). Its terminal record is
then not lost: it waits here, and one task owned by this object writes the waiting records
again, oldest first, with a growing pause between attempts (``initial_backoff`` doubling up to
``max_backoff``), and at once whenever another write of the store has just succeeded (the
store takes writes again). Until it is written, the run's committed record is the one before
(``running``), and callers asking for its end are told it is not recorded yet.

If the host closes first, the records still waiting are left to the next start: its sweep
turns every run the store still has as active into ``orphaned`` (the process has ended, so
nothing is killed). Either way the run never stays active on the record.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from maka_runtime.common.aio import race
from maka_runtime.resource.core.errors import (
    PersistenceFailedError,
    ResourceError,
    StoreClosedError,
)
from maka_runtime.resource.core.records import ShellRunRecord

__all__ = ["PendingRecords"]

log = logging.getLogger(__name__)


class PendingRecords:
    """The terminal records waiting for the store, by ref, and the task that writes them."""

    def __init__(
        self,
        *,
        write: Callable[[ShellRunRecord], Awaitable[ShellRunRecord]],
        committed: Callable[[ShellRunRecord], None],
        initial_backoff: float = 0.05,
        max_backoff: float = 1.0,
    ) -> None:
        self._write = write
        self._committed = committed
        self._initial_backoff = initial_backoff
        self._max_backoff = max_backoff
        self._records: dict[str, ShellRunRecord] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    def __contains__(self, ref: object) -> bool:
        return ref in self._records

    def __len__(self) -> int:
        return len(self._records)

    def add(self, record: ShellRunRecord) -> None:
        """Keep *record* (a terminal revision the store refused) until it is written."""
        if self._closed:
            log.warning("%s: end not recorded; the next start records it", record.ref)
            return
        log.warning(
            "%s ended (%s) but the store refused its record; retrying until it takes it",
            record.ref,
            record.status,
        )
        self._records[record.ref] = record
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._retry(), name="pending-shell-run-records"
            )

    def store_accepts_writes(self) -> None:
        """Another write just succeeded: try the waiting records now."""
        if self._records:
            self._wake.set()

    async def close(self) -> None:
        """One last attempt, then stop retrying; what is still waiting goes to the next start."""
        self._closed = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        await self._attempt()
        if self._records:
            log.warning(
                "%d run end(s) not recorded at close; the next start records them as orphaned: %s",
                len(self._records),
                ", ".join(self._records),
            )

    async def _retry(self) -> None:
        backoff = self._initial_backoff
        try:
            while self._records:
                self._wake.clear()
                await race(self._wake.wait(), within=backoff)
                if await self._attempt():
                    backoff = self._initial_backoff
                else:
                    backoff = min(backoff * 2, self._max_backoff)
        finally:
            if self._task is asyncio.current_task():
                self._task = None

    async def _attempt(self) -> bool:
        """Write the waiting records, oldest first; False if the store still refuses."""
        for ref, record in list(self._records.items()):
            try:
                stored = await self._write(record)
            except StoreClosedError:
                return False
            except PersistenceFailedError:
                return False
            except ResourceError as error:
                # The store holds something else for this run (an invariant broke and the
                # fail-stop latch tripped): writing it again cannot help.
                log.error("%s: giving up on its terminal record: %s", ref, error)
                del self._records[ref]
                continue
            del self._records[ref]
            log.info("%s: terminal record (%s) written late", ref, stored.status)
            self._committed(stored)
        return True

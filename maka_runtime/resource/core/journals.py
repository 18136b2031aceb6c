"""The output journals of one host (:mod:`.journal`): one file per run under the data directory,
each bounded per run, all ended runs' journals together bounded too.

``<data-dir>/output/<run id>.out``, the directory 0700, each file 0600. A journal is written
while its run is live and kept after it ends, across restarts, until one of:

- the journals of ended runs together exceed ``total_limit`` (``--max-kept-output-bytes``):
  the journals of the runs that ended first are removed first (:attr:`OutputJournals.evicted`
  counts them, and the log says which);
- the run's session is archived or deleted (:meth:`OutputJournals.remove`).

The run's terminal record keeps its :class:`~.output_counts.JournalSummary`, so a journal that
is gone is reported as such, never as a run that printed nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path

from maka_runtime.resource.core.journal import JournalReader, JournalWriter, scan_journal
from maka_runtime.resource.core.output_counts import JournalSummary

__all__ = ["OutputJournals"]

log = logging.getLogger(__name__)

_SUFFIX = ".out"


class OutputJournals:
    """Where runs' journals live, and which ended ones are kept."""

    def __init__(self, directory: Path | None, *, run_limit: int, total_limit: int) -> None:
        #: ``None``: no journals (output is kept only in memory, as the replay log holds it).
        self.directory = directory
        self.run_limit = run_limit if directory is not None else 0
        self.total_limit = total_limit
        #: Ended runs' journals in the order they ended: run id -> size in bytes.
        self._ended: OrderedDict[str, int] = OrderedDict()
        self._ended_bytes = 0
        #: How many ended runs' journals were removed to stay under ``total_limit``.
        self.evicted = 0

    @classmethod
    async def open(
        cls, directory: Path | None, *, run_limit: int, total_limit: int
    ) -> OutputJournals:
        """The journals in *directory* (created 0700 if missing), ended ones oldest first."""
        journals = cls(directory, run_limit=run_limit, total_limit=total_limit)
        if directory is not None:
            for run_id, size in await asyncio.to_thread(_existing, directory):
                journals._ended[run_id] = size
                journals._ended_bytes += size
            journals._evict()
        return journals

    @property
    def ended_bytes(self) -> int:
        """Bytes of the ended runs' journals kept now."""
        return self._ended_bytes

    def path(self, run_id: str) -> Path | None:
        return None if self.directory is None else self.directory / (run_id + _SUFFIX)

    def writer(self, run_id: str) -> JournalWriter:
        """A new journal for the run (counting only, without a directory)."""
        return JournalWriter(self.path(run_id), self.run_limit)

    def reader(self, run_id: str) -> JournalReader | None:
        """A reader of the run's journal, or ``None`` if it has none (any more)."""
        path = self.path(run_id)
        if path is None:
            return None
        try:
            return JournalReader(path)
        except OSError:
            return None

    async def scan(self, run_id: str) -> JournalSummary | None:
        """What the run's journal holds (for a run whose end a previous host never recorded)."""
        path = self.path(run_id)
        return None if path is None else await asyncio.to_thread(scan_journal, path)

    def ended(self, run_id: str, size: int) -> None:
        """The run has ended: its journal (*size* bytes) counts towards the total bound, and
        the journals that ended first are removed while the total is over it."""
        if self.directory is None or size <= 0:
            return
        self._forget(run_id)
        self._ended[run_id] = size
        self._ended_bytes += size
        self._evict()

    def _evict(self) -> None:
        while self._ended_bytes > self.total_limit and self._ended:
            oldest, oldest_size = next(iter(self._ended.items()))
            self._forget(oldest)
            self._unlink(oldest)
            self.evicted += 1
            log.info(
                "removed the output journal of run %s (%d bytes): ended runs' output is kept "
                "up to %d bytes (--max-kept-output-bytes)",
                oldest,
                oldest_size,
                self.total_limit,
            )

    def discard(self, run_id: str) -> None:
        """Remove a journal whose run was never recorded."""
        self._forget(run_id)
        self._unlink(run_id)

    async def remove(self, run_ids: Iterable[str]) -> int:
        """Remove the journals of these (ended) runs; returns how many there were."""
        ids = list(run_ids)
        for run_id in ids:
            self._forget(run_id)
        return sum(await asyncio.to_thread(lambda: [self._unlink(run_id) for run_id in ids]))

    def _forget(self, run_id: str) -> None:
        size = self._ended.pop(run_id, None)
        if size is not None:
            self._ended_bytes -= size

    def _unlink(self, run_id: str) -> bool:
        path = self.path(run_id)
        if path is None:
            return False
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            return True
        return False


def _existing(directory: Path) -> list[tuple[str, int]]:
    """The journals in *directory* (created 0700 if missing), oldest write first."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    found: list[tuple[float, str, int]] = []
    for entry in os.scandir(directory):
        if entry.name.endswith(_SUFFIX) and entry.is_file(follow_symlinks=False):
            stat = entry.stat(follow_symlinks=False)
            found.append((stat.st_mtime, entry.name[: -len(_SUFFIX)], stat.st_size))
    found.sort()
    return [(run_id, size) for _mtime, run_id, size in found]

"""WAL checkpoints off the writer's path: a thread and a connection of their own.

SQLite's automatic checkpoint runs inside the COMMIT that crosses its threshold (1,000 pages),
on the writer's own connection: that commit, and every call queued behind it on the store's one
thread, waits for the copy into the database and its ``fsync``s — several milliseconds that land
on whichever turn or run happened to commit then (the kernel's turn start → first event p99 was
that). Here the writer's automatic checkpoint is off, and every :data:`EVERY` commits the
writer hands a ``PASSIVE`` checkpoint to a thread with its own connection, which copies while
the writer goes on committing (WAL lets one writer and a checkpointer work at once; durability
is the WAL's, unchanged). A checkpoint that copied only part of the log (writes kept coming)
leaves the rest for the next; should the log still grow past :data:`MAX_LOG_PAGES`, the writer
checkpoints once itself, as SQLite would have, so the file stays bounded. A checkpoint still
under way after :data:`WAIT_AFTER` turns (a slow disk) is waited for before the writer goes on,
so that the bound holds however slow the thread is. A checkpoint that
fails (a full disk, an I/O error) is logged and tried again at the next turn: the log keeps every
commit until one succeeds.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from concurrent import futures
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Final

__all__ = ["EVERY", "MAX_LOG_PAGES", "WAIT_AFTER", "Checkpointer"]

log = logging.getLogger("maka.sqlite")

#: Commits between two checkpoints handed to the checkpoint thread.
EVERY: Final = 256
#: Log pages beyond which the writer checkpoints itself (four times SQLite's own threshold).
MAX_LOG_PAGES: Final = 4000
#: Turns of :data:`EVERY` commits a checkpoint may run for before the writer waits for it.
WAIT_AFTER: Final = 2
_BUSY_TIMEOUT_MS: Final = 5000


class Checkpointer:
    """The checkpoints of one database (see the module docstring)."""

    def __init__(self, path: Path, thread_name: str) -> None:
        self.path = path
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=thread_name)
        self._lock = threading.Lock()
        self._since = 0
        self._running: Future[None] | None = None
        self._log_pages = 0
        self._conn: sqlite3.Connection | None = None
        self._closed = False
        #: Checkpoints the thread completed (read by tests and benchmarks).
        self.done = 0

    def committed(self, writer: sqlite3.Connection) -> None:
        """After each COMMIT, on the writer's thread: hand over a checkpoint when due."""
        slow = WAIT_AFTER * EVERY
        with self._lock:
            self._since += 1
            running = self._running
            if self._closed or self._since < EVERY or (running is not None and self._since < slow):
                return
        if running is not None:
            self._wait_for(running)  # slower than WAIT_AFTER turns: its result decides
        with self._lock:
            if self._closed:
                return
            self._since = 0
            inline = self._log_pages > MAX_LOG_PAGES
            if inline:
                self._log_pages = 0
            else:
                self._running = self._executor.submit(self._checkpoint)
        if inline:
            writer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()

    def _wait_for(self, running: Future[None]) -> None:
        futures.wait([running])  # its errors are its own (logged there), not this commit's

    def wait_idle(self) -> None:
        """Block until a checkpoint handed over before this call has ended (tests, shutdown)."""
        with self._lock:
            if self._closed:
                return
        self._executor.submit(lambda: None).result()

    def close(self) -> None:
        """Wait for a checkpoint under way, then close the thread's connection. Idempotent."""
        with self._lock:
            self._closed = True
        self._executor.submit(self._disconnect)
        self._executor.shutdown(wait=True)

    # -- on the checkpoint thread --------------------------------------------------------------

    def _checkpoint(self) -> None:
        try:
            if self._conn is None:
                self._conn = sqlite3.connect(self.path, isolation_level=None)
                self._conn.execute(f"PRAGMA busy_timeout={_BUSY_TIMEOUT_MS}")
            _, log_pages, _ = self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except (sqlite3.Error, OSError) as error:
            log.warning("checkpoint of %s failed (retried later): %s", self.path, error)
            log_pages = 0
        else:
            self.done += 1
        with self._lock:
            self._running = None
            # The log's length (-1: not in WAL mode): it starts again from its beginning only
            # when a write begins after a checkpoint copied all of it.
            self._log_pages = max(0, log_pages)

    def _disconnect(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

"""The shell-run store in SQLite (WAL), opened on a storage root's owner lease.

It also keeps the session registry (table ``sessions``): the sessions the kernel registered
or archived. The table is created if missing, so a data directory from before it exists opens
as it is (same schema version: older hosts ignore the table).

Threading decision: every statement runs on **one dedicated thread** that owns the connection.
Commits use ``synchronous=FULL`` (an acknowledged state change survives power loss, not only a
crash), so a commit waits for an fsync that can take milliseconds, and WAL checkpoints can take
longer; on the event loop that would stall every PTY and every stream. One thread also keeps the
store's promise that operations apply in the order they were called — SQLite admits one writer
at a time anyway — and makes ``change_seq`` (assigned inside each write transaction) commit
order. A call costs one thread hop (tens of microseconds).

Every call checks the owner lease first, on the caller's side and again on the thread, and is
refused with :class:`StoreClosedError` once the owner has closed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Final, TypeVar

from maka_common.storage_root import RootLease
from resource_service.core.admission import SessionInfo
from resource_service.core.errors import (
    InternalFailureError,
    InvalidRequestError,
    PersistenceFailedError,
    ResourceError,
    StoreClosedError,
)
from resource_service.core.records import ShellRunRecord
from resource_service.store._codec import record_from_json, record_to_json

__all__ = ["DATABASE_NAME", "SqliteShellRunStore"]

log = logging.getLogger(__name__)

DATABASE_NAME: Final = "shell-runs.sqlite3"
_SCHEMA_VERSION: Final = 1
_T = TypeVar("_T")

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS shell_runs (
    ref         TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    change_seq  INTEGER NOT NULL UNIQUE,
    status      TEXT NOT NULL,
    revision    INTEGER NOT NULL,
    body        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS shell_runs_by_session ON shell_runs (session_id, created_at, ref);
CREATE INDEX IF NOT EXISTS shell_runs_by_change ON shell_runs (session_id, change_seq);
CREATE INDEX IF NOT EXISTS shell_runs_by_created ON shell_runs (created_at, ref);
CREATE INDEX IF NOT EXISTS shell_runs_active ON shell_runs (status)
    WHERE status IN ('starting', 'running');
CREATE TABLE IF NOT EXISTS sessions (
    session_id  TEXT PRIMARY KEY,
    cwd         TEXT NOT NULL,
    archived    INTEGER NOT NULL,
    deleted     INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
"""
_ACTIVE: Final = "('starting', 'running')"


class SqliteShellRunStore:
    """:class:`~resource_service.core.store.ShellRunStore` and
    :class:`~resource_service.core.store.SessionStore` in ``<root>/shell-runs.sqlite3``."""

    def __init__(self, lease: RootLease, path: Path) -> None:
        self._lease = lease
        self.path = path
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="shell-run-store"
        )
        self._db: sqlite3.Connection | None = None
        self._change_seq = 0
        self._closed = False

    @property
    def last_change_seq(self) -> int:
        return self._change_seq

    @classmethod
    async def open(cls, lease: RootLease, *, name: str = DATABASE_NAME) -> SqliteShellRunStore:
        store = cls(lease, lease.root.path / name)
        store._lease_check()
        try:
            await store._call(store._open)
        except BaseException:
            await store.close()
            raise
        return store

    @property
    def closed(self) -> bool:
        return self._closed or self._lease.closed

    # -- ShellRunStore ---------------------------------------------------------------------

    async def insert(self, record: ShellRunRecord) -> ShellRunRecord:
        return await self._call(lambda: self._write(record, insert=True))

    async def update(self, record: ShellRunRecord) -> ShellRunRecord:
        return await self._call(lambda: self._write(record, insert=False))

    async def get(self, ref: str) -> ShellRunRecord | None:
        def get() -> ShellRunRecord | None:
            row = (
                self._conn().execute("SELECT body FROM shell_runs WHERE ref = ?", (ref,)).fetchone()
            )
            return None if row is None else record_from_json(row[0])

        return await self._call(get)

    async def list_session(
        self, session_id: str | None, *, after: tuple[int, str] | None, limit: int
    ) -> list[ShellRunRecord]:
        def list_session() -> list[ShellRunRecord]:
            where: list[str] = []
            params: list[object] = []
            if session_id is not None:
                where.append("session_id = ?")
                params.append(session_id)
            if after is not None:
                where.append("(created_at, ref) > (?, ?)")
                params.extend(after)
            clause = f"WHERE {' AND '.join(where)} " if where else ""
            rows = self._conn().execute(
                f"SELECT body FROM shell_runs {clause}ORDER BY created_at, ref LIMIT ?",
                (*params, limit),
            )
            return [record_from_json(body) for (body,) in rows]

        return await self._call(list_session)

    async def list_changes(
        self, session_id: str, *, after_change_seq: int, limit: int
    ) -> list[ShellRunRecord]:
        def list_changes() -> list[ShellRunRecord]:
            rows = self._conn().execute(
                "SELECT body FROM shell_runs WHERE session_id = ? AND change_seq > ? "
                "ORDER BY change_seq LIMIT ?",
                (session_id, after_change_seq, limit),
            )
            return [record_from_json(body) for (body,) in rows]

        return await self._call(list_changes)

    async def list_active(self) -> list[ShellRunRecord]:
        def list_active() -> list[ShellRunRecord]:
            rows = self._conn().execute(
                f"SELECT body FROM shell_runs WHERE status IN {_ACTIVE} ORDER BY created_at"
            )
            return [record_from_json(body) for (body,) in rows]

        return await self._call(list_active)

    # -- SessionStore ----------------------------------------------------------------------

    async def load_sessions(self) -> list[SessionInfo]:
        def load_sessions() -> list[SessionInfo]:
            rows = self._conn().execute(
                "SELECT session_id, cwd, archived, deleted, updated_at FROM sessions "
                "ORDER BY session_id"
            )
            return [
                SessionInfo(
                    session_id,
                    archived=bool(archived),
                    cwd=cwd or None,
                    deleted=bool(deleted),
                    updated_at=updated_at,
                )
                for session_id, cwd, archived, deleted, updated_at in rows
            ]

        return await self._call(load_sessions)

    async def save_session(self, info: SessionInfo) -> None:
        def save_session() -> None:
            db = self._conn()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(
                    "INSERT INTO sessions (session_id, cwd, archived, deleted, updated_at) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET "
                    "cwd = excluded.cwd, archived = excluded.archived, "
                    "deleted = excluded.deleted, updated_at = excluded.updated_at",
                    (
                        info.session_id,
                        info.cwd or "",
                        int(info.archived),
                        int(info.deleted),
                        info.updated_at,
                    ),
                )
                db.execute("COMMIT")
            except BaseException:
                _rollback(db)
                raise

        await self._call(save_session)

    async def close(self) -> None:
        """Close the database (the root owner stays open); idempotent."""
        if self._closed:
            return
        self._closed = True

        def close() -> None:
            if self._db is not None:
                self._db.close()
                self._db = None

        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(self._executor, close)
        finally:
            self._executor.shutdown(wait=True)

    # -- on the store thread ---------------------------------------------------------------

    def _open(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=True)
        try:
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise PersistenceFailedError(f"{self.path} cannot use WAL (journal_mode={mode})")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA busy_timeout=5000")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > _SCHEMA_VERSION:
                raise PersistenceFailedError(
                    f"{self.path} has schema version {version}; this host knows {_SCHEMA_VERSION}"
                )
            db.executescript(_SCHEMA)
            db.execute(f"PRAGMA user_version={_SCHEMA_VERSION}")
            self._change_seq = db.execute(
                "SELECT COALESCE(MAX(change_seq), 0) FROM shell_runs"
            ).fetchone()[0]
        except BaseException:
            db.close()
            raise
        self._db = db

    def _conn(self) -> sqlite3.Connection:
        self._lease_check()
        if self._db is None:
            raise StoreClosedError(f"the shell-run store {self.path} is closed")
        return self._db

    def _write(self, record: ShellRunRecord, *, insert: bool) -> ShellRunRecord:
        db = self._conn()
        stored = dataclasses.replace(record, change_seq=self._change_seq + 1)
        body = record_to_json(stored)
        db.execute("BEGIN IMMEDIATE")
        try:
            if insert:
                db.execute(
                    "INSERT INTO shell_runs "
                    "(ref, session_id, created_at, change_seq, status, revision, body) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        stored.ref,
                        stored.session_id,
                        stored.created_at,
                        stored.change_seq,
                        stored.status,
                        stored.revision,
                        body,
                    ),
                )
            else:
                cursor = db.execute(
                    "UPDATE shell_runs SET change_seq = ?, status = ?, revision = ?, body = ? "
                    f"WHERE ref = ? AND revision = ? AND status IN {_ACTIVE}",
                    (
                        stored.change_seq,
                        stored.status,
                        stored.revision,
                        body,
                        stored.ref,
                        stored.revision - 1,
                    ),
                )
                if cursor.rowcount != 1:
                    # Not the disk's fault: what is stored is not what this host wrote.
                    raise InternalFailureError(
                        f"{stored.ref} revision {stored.revision - 1} is not the stored active "
                        "revision; refusing to overwrite it"
                    )
            db.execute("COMMIT")
        except BaseException:
            _rollback(db)
            raise
        self._change_seq = stored.change_seq
        return stored

    def _lease_check(self) -> None:
        if self._lease.closed:
            raise StoreClosedError(
                f"the owner of {self._lease.root.path} has closed; the shell-run store refuses "
                "every call"
            )

    # -- plumbing --------------------------------------------------------------------------

    async def _call(self, fn: Callable[[], _T]) -> _T:
        self._lease_check()
        if self._closed:
            raise StoreClosedError(f"the shell-run store {self.path} is closed")
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, fn)
        except ResourceError:
            raise
        except OverflowError as error:
            # A request's number SQLite cannot hold (beyond 64 bits): the caller's fault.
            raise InvalidRequestError(f"a value is out of range: {error}", field="") from error
        except (sqlite3.Error, OSError, ValueError, KeyError) as error:
            raise PersistenceFailedError(f"shell-run store {self.path}: {error}") from error


def _rollback(db: sqlite3.Connection) -> None:
    """Roll back a failed transaction; SQLite may already have (a full disk at COMMIT)."""
    if db.in_transaction:
        db.execute("ROLLBACK")

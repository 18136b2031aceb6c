"""The shell-run store in SQLite (WAL), opened on a storage root's owner lease: the resource
service's SQL over the shared worker (:mod:`maka_runtime.common.sqlite`: one thread, one connection,
transactions, the owner-lease check, the schema version and the error mapping).

It also keeps the session registry (table ``sessions``): the sessions the kernel registered
or archived, and the standalone sessions principals claimed; table ``session_owners`` holds
each one's owner and origin. Both are created if missing, so a data directory from before
them opens as it is (same schema version: older hosts ignore the tables; a registration
without an owner row is the local principal's).

Commits use ``synchronous=NORMAL`` unless the service is told ``--sqlite-synchronous full``, as
the kernel's session store: an acknowledged state change is in the write-ahead log, so it
survives a crashed process (``kill -9``); with ``FULL`` each commit is also ``fsync``'d, so it
survives a power loss. The record writes of concurrent runs share one transaction (group commit,
:mod:`maka_runtime.common.group_commit`): each caller is released only after the COMMIT
holding its write.
``change_seq`` is assigned inside the transaction, one past the highest stored, so it is
commit order. A stored record this store cannot read back is ``PersistenceFailedError`` like a
refused write; every call is refused with :class:`StoreClosedError` once the owner has closed.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable
from typing import Final, TypeAlias

from maka_runtime.common.group_commit import GroupCommit
from maka_runtime.common.sqlite import (
    SqliteWorker,
    StoreErrors,
    StoreSchema,
    Synchronous,
    WorkerOptions,
)
from maka_runtime.common.storage_root import RootLease
from maka_runtime.resource.core.admission import SessionInfo
from maka_runtime.resource.core.errors import (
    InternalFailureError,
    InvalidRequestError,
    PersistenceFailedError,
    ResourceError,
    StoreClosedError,
)
from maka_runtime.resource.core.records import ShellRunRecord
from maka_runtime.resource.store._codec import record_from_json, record_to_json

__all__ = ["DATABASE_NAME", "SqliteShellRunStore"]

DATABASE_NAME: Final = "shell-runs.sqlite3"
_LABEL: Final = "the shell-run store"
_SCHEMA_VERSION: Final = 1

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
CREATE TABLE IF NOT EXISTS session_owners (
    session_id  TEXT PRIMARY KEY REFERENCES sessions (session_id),
    owner       TEXT NOT NULL,
    origin      TEXT NOT NULL
);
"""
_ACTIVE: Final = "('starting', 'running')"


#: One write statement of a run's record: (connection, record, its JSON body).
_Put: TypeAlias = Callable[[sqlite3.Connection, ShellRunRecord, str], None]

ERRORS: Final = StoreErrors(
    persistence_failed=PersistenceFailedError,
    store_closed=StoreClosedError,
    invalid_request=lambda message: InvalidRequestError(message, field=""),
    passthrough=ResourceError,
    # A body that does not decode (the codec raises these): unreadable state, not a bug.
    decode_errors=(ValueError, KeyError),
)


class SqliteShellRunStore:
    """:class:`~maka_runtime.resource.core.store.ShellRunStore` and
    :class:`~maka_runtime.resource.core.store.SessionStore` in ``<root>/shell-runs.sqlite3``."""

    def __init__(self, worker: SqliteWorker, change_seq: int) -> None:
        self._worker = worker
        self.path = worker.path
        self._change_seq = change_seq
        #: Per session, the newest change_seq committed since the store opened.
        self._session_seqs: dict[str, int] = {}
        #: Record writes of concurrent runs share a transaction (common/group_commit.py).
        self._commits = GroupCommit(
            worker, ERRORS, _LABEL, withdraw_cancelled=False, on_commit=self._committed
        )

    @property
    def transactions(self) -> int:
        """Record-write transactions committed so far (one per batch of concurrent writes)."""
        return self._commits.transactions

    @property
    def last_change_seq(self) -> int:
        return self._change_seq

    def session_version(self, session_id: str) -> int:
        return self._session_seqs.get(session_id, 0)

    @classmethod
    async def open(
        cls, lease: RootLease, *, name: str = DATABASE_NAME, synchronous: Synchronous = "NORMAL"
    ) -> SqliteShellRunStore:
        worker = await SqliteWorker.open(
            lease,
            lease.root.path / name,
            StoreSchema(_SCHEMA, _SCHEMA_VERSION),
            WorkerOptions(label=_LABEL, thread_name="shell-run-store", synchronous=synchronous),
            ERRORS,
        )
        try:
            change_seq = await worker.read(_last_change_seq)
        except BaseException:
            await worker.close()
            raise
        return cls(worker, change_seq)

    @property
    def closed(self) -> bool:
        return self._worker.closed

    async def close(self) -> None:
        """Close the database once every queued write is settled (the root owner stays open);
        idempotent."""
        await self._commits.drain()
        await self._worker.close()

    # -- ShellRunStore ---------------------------------------------------------------------

    async def insert(self, record: ShellRunRecord) -> ShellRunRecord:
        return await self._put(record, _insert)

    async def update(self, record: ShellRunRecord) -> ShellRunRecord:
        return await self._put(record, _update)

    async def get(self, ref: str) -> ShellRunRecord | None:
        def get(db: sqlite3.Connection) -> ShellRunRecord | None:
            row = db.execute("SELECT body FROM shell_runs WHERE ref = ?", (ref,)).fetchone()
            return None if row is None else record_from_json(row[0])

        return await self._worker.read(get)

    async def list_session(
        self,
        session_id: str | None,
        *,
        after: tuple[int, str] | None,
        limit: int,
        known: Callable[[str], ShellRunRecord | None] | None = None,
    ) -> list[ShellRunRecord]:
        where: list[str] = []
        params: list[object] = []
        if session_id is not None:
            where.append("session_id = ?")
            params.append(session_id)
        if after is not None:
            where.append("(created_at, ref) > (?, ?)")
            params.extend(after)
        clause = f"WHERE {' AND '.join(where)} " if where else ""
        if known is None:
            sql = f"SELECT body FROM shell_runs {clause}ORDER BY created_at, ref LIMIT ?"
            return await self._worker.read(lambda db: _records(db, sql, (*params, limit)))
        sql = f"SELECT ref, body FROM shell_runs {clause}ORDER BY created_at, ref LIMIT ?"
        return await self._worker.read(lambda db: _known_records(db, sql, (*params, limit), known))

    async def list_changes(
        self, session_id: str, *, after_change_seq: int, limit: int
    ) -> list[ShellRunRecord]:
        sql = (
            "SELECT body FROM shell_runs WHERE session_id = ? AND change_seq > ? "
            "ORDER BY change_seq LIMIT ?"
        )
        params = (session_id, after_change_seq, limit)
        return await self._worker.read(lambda db: _records(db, sql, params))

    async def list_active(self) -> list[ShellRunRecord]:
        sql = f"SELECT body FROM shell_runs WHERE status IN {_ACTIVE} ORDER BY created_at"
        return await self._worker.read(lambda db: _records(db, sql, ()))

    # -- SessionStore ----------------------------------------------------------------------

    async def load_sessions(self) -> list[SessionInfo]:
        return await self._worker.read(_load_sessions)

    async def save_session(self, info: SessionInfo) -> None:
        await self._worker.write(lambda db: _save_session(db, info))

    # -- plumbing --------------------------------------------------------------------------

    async def _put(self, record: ShellRunRecord, statement: _Put) -> ShellRunRecord:
        def put(db: sqlite3.Connection) -> ShellRunRecord:
            # On the worker, inside the batch's transaction: the writes before this one (of
            # earlier batches and of this one) are counted; a write rolled back is not.
            stored = dataclasses.replace(record, change_seq=_last_change_seq(db) + 1)
            statement(db, stored, record_to_json(stored))
            return stored

        return await self._commits.write(put)

    def _committed(self, stored: list[ShellRunRecord]) -> None:
        # On the worker, right after the COMMIT and before any writer of it is released.
        for record in stored:
            self._session_seqs[record.session_id] = record.change_seq
        if stored:
            self._change_seq = stored[-1].change_seq


# -- statements (run on the worker thread) -----------------------------------------------------


def _last_change_seq(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT COALESCE(MAX(change_seq), 0) FROM shell_runs").fetchone()[0])


def _records(db: sqlite3.Connection, sql: str, params: tuple[object, ...]) -> list[ShellRunRecord]:
    return [record_from_json(body) for (body,) in db.execute(sql, params)]


def _known_records(
    db: sqlite3.Connection,
    sql: str,
    params: tuple[object, ...],
    known: Callable[[str], ShellRunRecord | None],
) -> list[ShellRunRecord]:
    """As :func:`_records`, from ``(ref, body)`` rows: a record *known* gives is not decoded."""
    return [known(ref) or record_from_json(body) for (ref, body) in db.execute(sql, params)]


def _insert(db: sqlite3.Connection, stored: ShellRunRecord, body: str) -> None:
    db.execute(
        "INSERT INTO shell_runs (ref, session_id, created_at, change_seq, status, revision, body) "
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


def _update(db: sqlite3.Connection, stored: ShellRunRecord, body: str) -> None:
    cursor = db.execute(
        "UPDATE shell_runs SET change_seq = ?, status = ?, revision = ?, body = ? "
        f"WHERE ref = ? AND revision = ? AND status IN {_ACTIVE}",
        (stored.change_seq, stored.status, stored.revision, body, stored.ref, stored.revision - 1),
    )
    if cursor.rowcount != 1:
        # Not the disk's fault: what is stored is not what this host wrote.
        raise InternalFailureError(
            f"{stored.ref} revision {stored.revision - 1} is not the stored active "
            "revision; refusing to overwrite it"
        )


def _load_sessions(db: sqlite3.Connection) -> list[SessionInfo]:
    # A registration from before owners were recorded has no session_owners row: its owner
    # is empty (the local principal's) and the kernel registered it.
    rows = db.execute(
        "SELECT s.session_id, s.cwd, s.archived, s.deleted, s.updated_at, "
        "COALESCE(o.owner, ''), COALESCE(o.origin, 'kernel') "
        "FROM sessions s LEFT JOIN session_owners o USING (session_id) ORDER BY s.session_id"
    )
    return [
        SessionInfo(
            session_id,
            archived=bool(archived),
            cwd=cwd or None,
            deleted=bool(deleted),
            updated_at=updated_at,
            owner=owner,
            origin="claimed" if origin == "claimed" else "kernel",
        )
        for session_id, cwd, archived, deleted, updated_at, owner, origin in rows
    ]


def _save_session(db: sqlite3.Connection, info: SessionInfo) -> None:
    db.execute(
        "INSERT INTO sessions (session_id, cwd, archived, deleted, updated_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET "
        "cwd = excluded.cwd, archived = excluded.archived, "
        "deleted = excluded.deleted, updated_at = excluded.updated_at",
        (info.session_id, info.cwd or "", int(info.archived), int(info.deleted), info.updated_at),
    )
    db.execute(
        "INSERT INTO session_owners (session_id, owner, origin) VALUES (?, ?, ?) "
        "ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, origin = excluded.origin",
        (info.session_id, info.owner, info.origin),
    )

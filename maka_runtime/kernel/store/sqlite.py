"""The SQLite session store (WAL), opened on the kernel's storage-root lease: the kernel's SQL
over the shared worker (:mod:`maka_runtime.common.sqlite`: one thread, one connection, transactions,
the owner-lease check, the schema version and the error mapping).

**Durability.** WAL with ``synchronous=NORMAL`` by default: a committed transaction survives the
process being killed (``kill -9``); ``synchronous=FULL`` also survives power loss, at the cost
of an fsync per commit. Every write is committed before its call returns (and so before the
kernel streams an append); the writes of concurrent callers share one transaction
(:mod:`maka_runtime.common.group_commit`), each rolled back alone if it fails. Headers are
served from a cache of what was committed (:mod:`.header_cache`).

**Ownership.** Every call is refused (:class:`StoreClosedError`) once the lease's owner or the
store has closed.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import sqlite3
from collections.abc import Callable, Collection, Sequence
from typing import Any, TypeVar

from maka_runtime.common.group_commit import GroupCommit
from maka_runtime.common.sqlite import (
    SqliteWorker,
    StoreErrors,
    StoreSchema,
    Synchronous,
    WorkerOptions,
)
from maka_runtime.common.storage_root import RootLease
from maka_runtime.kernel.core.errors import (
    AlreadyExistsError,
    InvalidRequestError,
    KernelError,
    NotFoundError,
    OperationConflictError,
    PersistenceFailedError,
    StoreClosedError,
)
from maka_runtime.kernel.core.log.events import StoredMessage, from_record
from maka_runtime.kernel.core.session import (
    HeaderPatch,
    SessionHeader,
    SessionPage,
    SessionQuery,
    SessionStatus,
    TurnRecord,
    decode_page_token,
    encode_page_token,
)
from maka_runtime.kernel.core.sizes import fitting
from maka_runtime.kernel.core.store import InteractionRecord, Resolution, interaction_to_record
from maka_runtime.kernel.store import _log_sql, header_cache
from maka_runtime.kernel.store._interaction_sql import (
    close_interaction,
    interaction,
    load_interaction,
    save_interaction,
)
from maka_runtime.kernel.store._schema import SCHEMA, SCHEMA_VERSION
from maka_runtime.kernel.store._shared import (
    HeaderShortcuts,
    boundary_patch,
    header_from_json,
    header_to_json,
    resolved,
    settled,
    turn_from_json,
)
from maka_runtime.kernel.store.decoded import DecodedHeaders

__all__ = ["DEFAULT_FILENAME", "SCHEMA_VERSION", "SqliteSessionStore", "Synchronous"]

T = TypeVar("T")
DEFAULT_FILENAME = "kernel.sqlite3"

ERRORS = StoreErrors(
    persistence_failed=PersistenceFailedError,
    store_closed=StoreClosedError,
    invalid_request=lambda message: InvalidRequestError("request", message),
    passthrough=KernelError,
)


class SqliteSessionStore(HeaderShortcuts):
    """A :class:`~maka_runtime.kernel.core.store.SessionStore` and ``InteractionStore`` on
    SQLite."""

    def __init__(
        self, worker: SqliteWorker, header_cache_size: int = header_cache.DEFAULT_LIMIT
    ) -> None:
        self._worker = worker
        self.path = worker.path
        # Reads run as they are; writes are grouped (each in a savepoint of a shared transaction).
        self._call = worker.read
        #: Moves on the worker right after each COMMIT holding a write that may change a
        #: listed session (every write but plain appends, interaction records and their
        #: answers; an append carrying a header patch counts), before any caller of it is
        #: released.
        self._listed_commits = 0
        self._grouped = GroupCommit(worker, ERRORS, "the session store", on_commit=self._listed)
        self._headers = header_cache.HeaderCache(header_cache_size)
        #: Headers decoded from their stored text, used by the worker thread only.
        self._decoded = DecodedHeaders(header_cache_size)

    @property
    def listing_version(self) -> int:
        """Moves after each COMMIT of a write that may change a listed session (see
        :class:`~maka_runtime.kernel.core.store.SessionStore`); plain appends leave it."""
        return self._listed_commits

    def _listed(self, values: list[object]) -> None:
        # On the worker, after a COMMIT: *values* are its applied writes that are listed.
        if values:
            self._listed_commits += 1

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """A write the header cache knows nothing about: it forgets every header once the
        write's outcome is known (it follows the commits, not the callers: ``settled``)."""
        return await self._grouped.write(work, settled=self._forget_all)

    def _forget_all(self, _value: object, _error: BaseException | None) -> None:
        self._headers.forget_all()

    def _header_settled(
        self, session_id: str, header: SessionHeader | None, error: BaseException | None
    ) -> None:
        """A header write's outcome: what it committed is kept, a failed one forgotten."""
        if error is None and header is not None:
            self._headers.put(header)
        else:
            self._headers.forget(session_id)

    @classmethod
    async def open(
        cls,
        lease: RootLease,
        *,
        filename: str = DEFAULT_FILENAME,
        synchronous: Synchronous = "NORMAL",
        header_cache_size: int = header_cache.DEFAULT_LIMIT,
    ) -> SqliteSessionStore:
        worker = await SqliteWorker.open(
            lease,
            lease.root.path / filename,
            StoreSchema(SCHEMA, SCHEMA_VERSION),
            WorkerOptions(
                label="the session store",
                thread_name="kernel-sqlite",
                synchronous=synchronous,
                foreign_keys=True,
            ),
            ERRORS,
        )
        return cls(worker, header_cache_size)

    async def close(self) -> None:
        """Close the connection and the worker thread (after the queued writes). Idempotent."""
        await self._grouped.drain()
        await self._worker.close()

    # -- sessions ------------------------------------------------------------------------------

    async def create(self, header: SessionHeader) -> SessionHeader:
        def insert(conn: sqlite3.Connection) -> None:
            try:
                conn.execute(
                    "INSERT INTO sessions (id, created_at, is_archived, labels, status, header) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    _session_row(header),
                )
            except sqlite3.IntegrityError as error:
                raise AlreadyExistsError("session", header.id) from error

        created = functools.partial(self._header_settled, header.id, header)
        await self._grouped.write(insert, settled=lambda _value, error: created(error))
        return header

    async def list_sessions(self, query: SessionQuery) -> SessionPage:
        clauses, params = [], []
        if query.page_token:
            created_at, session_id = decode_page_token(query.page_token)
            clauses.append("(created_at < ? OR (created_at = ? AND id < ?))")
            params += [created_at, created_at, session_id]
        if query.archived is not None:
            clauses.append("is_archived = ?")
            params.append(int(query.archived))
        if query.label is not None:
            clauses.append("EXISTS (SELECT 1 FROM json_each(sessions.labels) WHERE value = ?)")
            params.append(query.label)
        if query.owners is not None:
            marks = ", ".join("?" for _ in query.owners)
            clauses.append(f"COALESCE(json_extract(header, '$.owner'), '') IN ({marks})")
            params += list(query.owners)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        sql = f"SELECT header FROM sessions {where} ORDER BY created_at DESC, id DESC LIMIT ?"
        params.append(query.page_size + 1)

        def select(conn: sqlite3.Connection) -> list[tuple[SessionHeader, int]]:
            return [self._decoded.get(row[0]) for row in conn.execute(sql, params)]

        found = await self._call(select)
        page = [item[0] for item in fitting(found[: query.page_size], query.max_bytes, _size)]
        more = len(found) > len(page)
        token = encode_page_token(page[-1].created_at, page[-1].id) if more and page else ""
        return SessionPage(sessions=tuple(page), next_page_token=token)

    def held_header(self, session_id: str) -> SessionHeader | None:
        return None if self._worker.closed else self._headers.get(session_id)

    async def read_header(self, session_id: str) -> SessionHeader:
        cached = self._headers.get(session_id)
        if cached is not None and not self._worker.closed:
            return cached
        epoch = self._headers.epoch
        header = await self._call(lambda conn: _header(conn, session_id))
        self._headers.fill(header, epoch)
        return header

    async def update_header(self, session_id: str, patch: HeaderPatch) -> SessionHeader:
        def update(conn: sqlite3.Connection) -> SessionHeader:
            return _update_header(conn, session_id, patch, self._decoded)

        keep = functools.partial(self._header_settled, session_id)
        return await self._grouped.write(update, settled=keep)

    async def widen_boundary(
        self, session_id: str, granted: tuple[str, ...]
    ) -> tuple[SessionHeader, bool]:
        def update(conn: sqlite3.Connection) -> tuple[SessionHeader, bool]:
            header = _header(conn, session_id, self._decoded)
            patch = boundary_patch(header, granted)
            if patch is None:
                return header, False
            return _update_header(conn, session_id, patch, self._decoded), True

        return await self._write(update)

    async def remove(self, session_id: str) -> None:
        def delete(conn: sqlite3.Connection) -> None:
            if conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount == 0:
                raise NotFoundError("session", session_id)

        forget = self._headers.forget
        await self._grouped.write(delete, settled=lambda _value, _error: forget(session_id))

    # -- the log -------------------------------------------------------------------------------

    async def append_message(self, session_id: str, message: StoredMessage) -> StoredMessage:
        return (await self.append_messages(session_id, [message]))[0]

    async def append_messages(
        self,
        session_id: str,
        messages: Sequence[StoredMessage],
        *,
        header: HeaderPatch | None = None,
    ) -> list[StoredMessage]:
        batch = list(messages)
        if header is None:
            # Appends move only the log's columns, never a header.
            return await self._grouped.write(
                lambda conn: _log_sql.append(conn, session_id, batch), observed=False
            )
        patch = header

        def append_and_update(conn: sqlite3.Connection) -> tuple[list[StoredMessage], Any]:
            stamped = _log_sql.append(conn, session_id, batch)
            return stamped, _update_header(conn, session_id, patch, self._decoded)

        keep = functools.partial(self._header_settled, session_id)
        stamped, _ = await self._grouped.write(
            append_and_update,
            settled=lambda value, error: keep(None if value is None else value[1], error),
        )
        return stamped

    async def read_messages(
        self, session_id: str, *, after_seq: int = 0, limit: int | None = None
    ) -> list[StoredMessage]:
        def select(conn: sqlite3.Connection) -> list[StoredMessage]:
            _require_session(conn, session_id)
            rows = conn.execute(
                "SELECT body FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                (session_id, after_seq, -1 if limit is None else limit),
            )
            return [from_record(json.loads(row[0])) for row in rows]

        return await self._call(select)

    async def last_seq(self, session_id: str) -> int:
        def select(conn: sqlite3.Connection) -> int:
            row = conn.execute(
                "SELECT last_seq FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            if row is None:
                raise NotFoundError("session", session_id)
            return int(row[0])

        return await self._call(select)

    async def list_turns(self, session_id: str) -> list[TurnRecord]:
        def select(conn: sqlite3.Connection) -> list[TurnRecord]:
            _require_session(conn, session_id)
            rows = conn.execute(
                "SELECT record FROM turns WHERE session_id = ? ORDER BY first_seq", (session_id,)
            )
            return [turn_from_json(row[0]) for row in rows]

        return await self._call(select)

    async def get_turn(self, session_id: str, turn_id: str) -> TurnRecord | None:
        def select(conn: sqlite3.Connection) -> TurnRecord | None:
            _require_session(conn, session_id)
            return _log_sql.turn_record(conn, session_id, turn_id)

        return await self._call(select)

    async def running_turns(self) -> list[tuple[str, str]]:
        def select(conn: sqlite3.Connection) -> list[tuple[str, str]]:
            rows = conn.execute(
                "SELECT session_id, turn_id FROM turns WHERE status = 'running' "
                "ORDER BY session_id, first_seq"
            )
            return [(str(row[0]), str(row[1])) for row in rows]

        return await self._call(select)

    async def sessions_in_status(self, statuses: Collection[SessionStatus]) -> list[str]:
        wanted = list(statuses)

        def select(conn: sqlite3.Connection) -> list[str]:
            marks = ", ".join("?" * len(wanted))
            rows = conn.execute(
                f"SELECT id FROM sessions WHERE status IN ({marks}) ORDER BY id", wanted
            )
            return [str(row[0]) for row in rows]

        return await self._call(select) if wanted else []

    # -- interactions --------------------------------------------------------------------------

    async def put_interaction(self, record: InteractionRecord) -> None:
        def insert(conn: sqlite3.Connection) -> None:
            _require_session(conn, record.session_id)
            try:
                conn.execute(
                    "INSERT INTO interactions (session_id, request_id, run_id, status, "
                    "created_at, record) VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        record.session_id,
                        record.request_id,
                        record.run_id,
                        record.status,
                        record.created_at,
                        json.dumps(interaction_to_record(record)),
                    ),
                )
            except sqlite3.IntegrityError as error:
                raise OperationConflictError(
                    f"interaction request {record.request_id!r} exists"
                ) from error

        await self._grouped.write(insert, observed=False)

    async def get_interaction(self, session_id: str, request_id: str) -> InteractionRecord | None:
        return await self._call(lambda conn: interaction(conn, session_id, request_id))

    async def resolve_interaction(
        self, session_id: str, request_id: str, resolution: Resolution, now: int
    ) -> InteractionRecord:
        def resolve(conn: sqlite3.Connection) -> InteractionRecord:
            pending = interaction(conn, session_id, request_id)
            record = resolved(pending, request_id, resolution, now)
            if resolution.widen:  # the answer and its widening: one transaction
                header = _header(conn, session_id, self._decoded)
                record, patch = settled(header, record, resolution.widen)
                if patch is not None:
                    _update_header(conn, session_id, patch, self._decoded)
            save_interaction(conn, record)
            return record

        if resolution.widen:
            return await self._write(resolve)
        return await self._grouped.write(resolve, observed=False)

    async def close_interactions(
        self, session_id: str, run_id: str, reason: str, now: int
    ) -> list[InteractionRecord]:
        def close(conn: sqlite3.Connection) -> list[InteractionRecord]:
            rows = conn.execute(
                "SELECT record FROM interactions WHERE session_id = ? AND run_id = ? "
                "AND status = 'pending'",
                (session_id, run_id),
            ).fetchall()
            return [close_interaction(conn, load_interaction(row[0]), reason, now) for row in rows]

        return await self._grouped.write(close, observed=False)

    async def pending_interactions(self) -> list[InteractionRecord]:
        def select(conn: sqlite3.Connection) -> list[InteractionRecord]:
            rows = conn.execute(
                "SELECT record FROM interactions WHERE status = 'pending' "
                "ORDER BY session_id, created_at"
            )
            return [load_interaction(row[0]) for row in rows]

        return await self._call(select)

    async def list_interactions(
        self, session_id: str, *, pending_only: bool = False
    ) -> list[InteractionRecord]:
        def select(conn: sqlite3.Connection) -> list[InteractionRecord]:
            sql = "SELECT record FROM interactions WHERE session_id = ?"
            if pending_only:
                sql += " AND status = 'pending'"
            rows = conn.execute(sql + " ORDER BY created_at, request_id", (session_id,))
            return [load_interaction(row[0]) for row in rows]

        return await self._call(select)


# -- statements (run on the worker thread) -----------------------------------------------------


def _session_row(header: SessionHeader) -> tuple[Any, ...]:
    labels = json.dumps(list(header.labels))
    row = (header.id, header.created_at, int(header.is_archived), labels, header.status)
    return (*row, header_to_json(header))


def _require_session(conn: sqlite3.Connection, session_id: str) -> None:
    if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
        raise NotFoundError("session", session_id)


def _size(item: tuple[SessionHeader, int]) -> int:
    return item[1]


def _header(
    conn: sqlite3.Connection, session_id: str, decoded: DecodedHeaders | None = None
) -> SessionHeader:
    row = conn.execute("SELECT header FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if row is None:
        raise NotFoundError("session", session_id)
    return header_from_json(row[0]) if decoded is None else decoded.header(row[0])


def _update_header(
    conn: sqlite3.Connection, session_id: str, patch: HeaderPatch, decoded: DecodedHeaders
) -> SessionHeader:
    header = dataclasses.replace(_header(conn, session_id, decoded), **patch)
    row = _session_row(header)
    conn.execute(
        "UPDATE sessions SET is_archived = ?, labels = ?, status = ?, header = ? WHERE id = ?",
        (row[2], row[3], row[4], row[5], session_id),
    )
    # Safe even if the transaction rolls back: decoding is a pure function of the text.
    decoded.remember(row[5], header)
    return header

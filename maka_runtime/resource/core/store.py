"""The stores the domain core depends on. Implementations:
``maka_runtime.resource.store.sqlite``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from maka_runtime.resource.core.records import ShellRunRecord

if TYPE_CHECKING:
    from maka_runtime.resource.core.admission import SessionInfo

__all__ = ["SessionStore", "ShellRunStore"]


class ShellRunStore(Protocol):
    """Durable shell-run records.

    Every method either commits before it returns or raises
    :class:`~maka_runtime.resource.core.errors.PersistenceFailedError` (``StoreClosedError`` once
    the root owner has closed).

    ``insert`` and ``update`` assign the record's ``change_seq`` inside the transaction that
    stores it and return the record as stored, so ``change_seq`` order is commit order: a watcher
    that has seen change N has seen every change below N. ``update`` is a compare-and-set: it
    succeeds only when the stored record has ``revision - 1`` and is still active, so a terminal
    record never changes.
    """

    async def insert(self, record: ShellRunRecord) -> ShellRunRecord: ...

    async def update(self, record: ShellRunRecord) -> ShellRunRecord: ...

    async def get(self, ref: str) -> ShellRunRecord | None: ...

    async def list_session(
        self,
        session_id: str | None,
        *,
        after: tuple[int, str] | None,
        limit: int,
        known: Callable[[str], ShellRunRecord | None] | None = None,
    ) -> list[ShellRunRecord]:
        """Runs of a session (``None``: of every session) ordered by ``(created_at, ref)``,
        strictly after *after*. *known* (called on the store's own thread) may give a run's
        committed record by ref (a finished run held in memory), which is then not decoded."""
        ...

    async def list_changes(
        self, session_id: str, *, after_change_seq: int, limit: int
    ) -> list[ShellRunRecord]:
        """Runs of a session whose latest ``change_seq`` is above *after_change_seq*, in
        ``change_seq`` order."""
        ...

    async def list_active(self) -> list[ShellRunRecord]: ...

    @property
    def last_change_seq(self) -> int:
        """The newest ``change_seq`` committed (0 before any)."""
        ...

    def session_version(self, session_id: str) -> int:
        """A number that moves with every committed insert or update of a run of *session_id*
        (SQLite: the newest ``change_seq`` of the session committed since the store opened, 0
        before any), moved before that write's call returns: a page of the session's runs read
        when it had a value stays right while it has that value (the catalog keeps pages by it).
        A store shared by several hosts would have to move it for every host's writes."""
        ...


class SessionStore(Protocol):
    """Durable entries of the session registry (see
    :class:`~maka_runtime.resource.core.admission.SessionRegistry`), one per session id.

    ``save_session`` commits before it returns (the same durability as a run's state change) or
    raises :class:`~maka_runtime.resource.core.errors.PersistenceFailedError`.
    """

    async def load_sessions(self) -> list[SessionInfo]: ...

    async def save_session(self, info: SessionInfo) -> None:
        """Insert or replace the entry of ``info.session_id``."""
        ...

"""The store the domain core depends on. Implementations: ``resource_service.store.sqlite``."""

from __future__ import annotations

from typing import Protocol

from resource_service.core.records import ShellRunRecord

__all__ = ["ShellRunStore"]


class ShellRunStore(Protocol):
    """Durable shell-run records.

    Every method either commits before it returns or raises
    :class:`~resource_service.core.errors.PersistenceFailedError` (``StoreClosedError`` once the
    root owner has closed).

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
        self, session_id: str, *, after: tuple[int, str] | None, limit: int
    ) -> list[ShellRunRecord]:
        """Runs of a session ordered by ``(created_at, ref)``, strictly after *after*."""
        ...

    async def list_changes(
        self, session_id: str, *, after_change_seq: int, limit: int
    ) -> list[ShellRunRecord]:
        """Runs of a session whose latest ``change_seq`` is above *after_change_seq*, in
        ``change_seq`` order."""
        ...

    async def list_active(self) -> list[ShellRunRecord]: ...

"""Session stores: :class:`MemorySessionStore` and :class:`SqliteSessionStore`."""

from kernel_service.store.memory import MemorySessionStore

__all__ = ["MemorySessionStore"]

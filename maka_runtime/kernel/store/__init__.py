"""Session stores: :class:`MemorySessionStore` and :class:`SqliteSessionStore`."""

from maka_runtime.kernel.store.memory import MemorySessionStore

__all__ = ["MemorySessionStore"]

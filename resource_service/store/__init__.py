"""Durable stores for shell-run records."""

from resource_service.store.sqlite import SqliteShellRunStore

__all__ = ["SqliteShellRunStore"]

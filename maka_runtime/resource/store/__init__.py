"""Durable stores for shell-run records."""

from maka_runtime.resource.store.sqlite import SqliteShellRunStore

__all__ = ["SqliteShellRunStore"]

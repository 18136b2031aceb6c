"""Typed access to log entries and stream events, so a test's checks are type-checked too.

A session log (``list[StoredMessage]``) and a turn's events (``list[SessionEvent]``) are lists
of a union; these helpers pick the entries of one class, or assert that an entry is of the class
the test expects, and give it back with that type.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")


def of_type(entries: Iterable[object], cls: type[T]) -> list[T]:
    """The entries that are instances of *cls*, in order."""
    return [entry for entry in entries if isinstance(entry, cls)]


def only(entry: object, cls: type[T]) -> T:
    """*entry*, asserted to be an instance of *cls*."""
    assert isinstance(entry, cls), f"expected a {cls.__name__}, got {entry!r}"
    return entry


def last(entries: Sequence[object], cls: type[T]) -> T:
    """The last of *entries*, asserted to be an instance of *cls*."""
    assert entries, f"expected a {cls.__name__} last, got no entries"
    return only(entries[-1], cls)

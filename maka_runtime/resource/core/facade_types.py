"""The values the resource host's operations take and give that are not records: the client
connection an operation arrived on, residency tokens, an attachment, a foreground start."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Protocol

from maka_runtime.resource.core.output import OutputEvent
from maka_runtime.resource.core.records import PtyOutput, ShellRunRecord

__all__ = ["Attachment", "ConnectionContext", "ForegroundStarted", "Residency"]


@dataclass(frozen=True)
class ConnectionContext:
    """The client connection an operation arrived on; leases belong to it."""

    connection_id: str
    host_epoch: str = ""
    surface: str = ""
    principal: str = "local_os_user"
    #: Whether the connection is still open, if it can close (``None``: it never closes). A
    #: lease is only ever granted to an open connection, so one that closes while its acquire
    #: waits cannot leave a lease behind that nobody will release.
    is_open: Callable[[], bool] | None = field(default=None, compare=False, repr=False)


class Residency(Protocol):
    """Keeps the host up while a background run is active; released exactly once."""

    def release(self) -> None: ...


class NoResidency:
    def release(self) -> None:
        pass


@dataclass(frozen=True)
class Attachment:
    """A run's current screen (PTY runs) and its output from a sequence on."""

    ref: str
    record: ShellRunRecord
    #: The screen at attach time; ``None`` for a pipes run.
    screen: PtyOutput | None
    #: The newest output sequence at attach time (0 if none, or if the run has ended).
    output_sequence: int
    events: AsyncIterator[OutputEvent]


@dataclass(frozen=True)
class ForegroundStarted:
    """A foreground run as recorded once started (``running``, or terminal if it could not
    start): the first event of a stream that asked for it."""

    record: ShellRunRecord


def once(fn: Callable[[], None]) -> Callable[[], None]:
    """*fn*, called at most once however often the result is called."""
    called = False

    def call_once() -> None:
        nonlocal called
        if not called:
            called = True
            fn()

    return call_once


async def no_events() -> AsyncIterator[OutputEvent]:
    """An output feed that has ended (an ended run's attachment)."""
    return
    yield

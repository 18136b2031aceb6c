"""What the kernel's parts depend on, fixed when the kernel is built.

Every part (admission, runner, stops, drain, the façade) receives the same frozen
:class:`KernelDeps`; the only mutable state they share is the session table
(:class:`~maka_runtime.kernel.core.sessions.SessionTable`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from maka_runtime.common.aio import TaskOwner
from maka_runtime.kernel.core.backend import BackendRegistry
from maka_runtime.kernel.core.interactions.owners import InteractionAuthority, MessageAuthority
from maka_runtime.kernel.core.store import SessionStore


def default_now() -> int:
    """Milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


class _RandomIds:
    """32-hex-digit ids of 128 random bits from the OS's generator, read 64 ids at a time:
    one system call for every 64 ids instead of one each. Thread-safe; a forked child starts
    from fresh random bytes, never from ids its parent may also hand out."""

    BATCH = 64

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._hex = ""
        self._at = 0
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self._hex, self._at = "", 0

    def __call__(self) -> str:
        with self._lock:
            at = self._at
            if at >= len(self._hex):
                self._hex, at = os.urandom(16 * self.BATCH).hex(), 0
            self._at = at + 32
            return self._hex[at : at + 32]


#: 128 random bits as 32 hex digits (an event, run or session id). Not ``uuid4``: the kernel
#: makes one per event, and the UUID object costs six times the random bytes.
default_new_id: Callable[[], str] = _RandomIds()


T = TypeVar("T")


class BackendActivation(Protocol):
    """Wraps every backend activation (building or reusing a generation and reserving a run)."""

    def __call__(self, operation: Callable[[], Awaitable[T]], /) -> Awaitable[T]: ...


async def run_directly(operation: Callable[[], Awaitable[T]], /) -> T:
    return await operation()


@dataclass(frozen=True, kw_only=True, slots=True)
class KernelDeps:
    store: SessionStore
    backends: BackendRegistry
    interaction_authority: InteractionAuthority | None
    message_authority: MessageAuthority | None
    new_id: Callable[[], str]
    now: Callable[[], int]
    run_backend_activation: BackendActivation
    #: Owns every task the kernel starts (runs, stops, log writers); closed with the kernel.
    tasks: TaskOwner
    #: The largest log entry (see
    #: :data:`~maka_runtime.kernel.core.log.session_log.MAX_ENTRY_BYTES`).
    max_event_bytes: int

"""What the run supervisor (:mod:`.supervisor`) is built from besides its runs: the update it
tells observers, the default clock and ids, and how a caller a run lives for waits for it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Literal

from maka_runtime.resource.core.live import LiveRun
from maka_runtime.resource.core.records import ShellRunRecord

__all__ = ["ShellRunUpdate", "for_caller", "new_id", "now_ms", "remove"]


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def new_id() -> str:
    return os.urandom(16).hex()


@dataclass(frozen=True)
class ShellRunUpdate:
    """Something observers should know about a run.

    ``changed``: a new revision was committed. ``closing``: the run stopped accepting input and
    resizes (termination began, or the process exited); its record has not changed yet.
    """

    kind: Literal["changed", "closing"]
    record: ShellRunRecord


async def for_caller(run: LiveRun, waiting: Awaitable[ShellRunRecord]) -> ShellRunRecord:
    """Await *waiting* for a caller the run lives for: if the caller is cancelled, the run is
    cancelled and the caller waits for its end before the cancellation propagates."""
    try:
        return await waiting
    except asyncio.CancelledError:
        run.begin_termination("cancelled")
        with contextlib.suppress(Exception):
            await asyncio.shield(run.terminal)
        raise


def remove(items: list[Any], item: Any) -> None:
    with contextlib.suppress(ValueError):
        items.remove(item)

"""Tasks that always have an owner.

Every background task of the kernel is spawned through a :class:`TaskOwner`, which keeps a
strong reference until the task ends (asyncio keeps only weak ones), retrieves its outcome so
nothing is reported as "never retrieved", logs unexpected failures of tasks that asked for it,
and cancels and awaits whatever still runs on :meth:`close`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

log = logging.getLogger("kernel_service.core")

T = TypeVar("T")


class TaskOwner:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    def spawn(
        self, coro: Coroutine[Any, Any, T], *, name: str, log_failure: bool = False
    ) -> asyncio.Task[T]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)

        def finished(done: asyncio.Task[T]) -> None:
            self._tasks.discard(done)
            if done.cancelled():
                return
            failure = done.exception()
            if failure is not None and log_failure:
                log.error("background task %s failed", done.get_name(), exc_info=failure)

        task.add_done_callback(finished)
        return task

    def __len__(self) -> int:
        return len(self._tasks)

    async def close(self) -> None:
        """Cancel every task still running and wait for all of them."""
        self._closed = True
        while self._tasks:
            pending = list(self._tasks)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

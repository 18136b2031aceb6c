"""Asyncio plumbing every service shares: an owner for background tasks, and races.

:class:`TaskOwner` keeps a strong reference to each task it spawns until the task ends
(asyncio keeps only weak ones), retrieves its outcome so nothing is reported as "never
retrieved", logs unexpected failures of tasks that asked for it, and cancels and awaits
whatever still runs on :meth:`TaskOwner.close`.

:func:`settle` resolves a future unless it is already done (its waiter was cancelled).

:func:`race` and :func:`unless` are the one way to "await this unless that happens first".
Both always cancel *and await* the losers before returning, so nothing they started is still
running afterwards, and neither ever swallows the caller's own cancellation: if the task
awaiting them is cancelled, every contestant is cancelled and awaited and the
``CancelledError`` propagates.

Pure asyncio: the domain cores may use it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Coroutine, Sequence
from typing import Any, TypeVar

log = logging.getLogger("maka.aio")

T = TypeVar("T")


class TaskOwner:
    """Owns background tasks: each has a strong reference until it ends; :meth:`close` ends all."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._log = logger or log
        self.closed = False

    def spawn(
        self, coro: Coroutine[Any, Any, T], *, name: str, log_failure: bool = False
    ) -> asyncio.Task[T]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)

        def finished(done: asyncio.Task[T]) -> None:
            self._tasks.discard(done)
            if done.cancelled():
                return
            failure = done.exception()  # retrieved, so never "never retrieved"
            if failure is not None and log_failure:
                self._log.error("background task %s failed", done.get_name(), exc_info=failure)

        task.add_done_callback(finished)
        return task

    def __len__(self) -> int:
        return len(self._tasks)

    async def wait(self) -> None:
        """Wait until every task spawned so far (and any they spawn) has ended."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self) -> None:
        """Cancel every task still running and wait for all of them."""
        self.closed = True
        while self._tasks:
            pending = list(self._tasks)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)


def settle(
    future: asyncio.Future[Any], value: Any = None, failure: BaseException | None = None
) -> None:
    """Give *future* *failure*, else *value*; nothing if it is already done."""
    if future.done():
        return
    if failure is not None:
        future.set_exception(failure)
    else:
        future.set_result(value)


async def race(*contestants: Awaitable[Any], within: float | None = None) -> int | None:
    """Await *contestants* until the first finishes and return its index (``None`` if none
    finished *within* that many seconds).

    The winner's outcome stays in it (pass futures or tasks to read it); the others are
    cancelled and awaited before this returns. A contestant that fails wins like any other.
    """
    futures = [asyncio.ensure_future(contestant) for contestant in contestants]
    try:
        done, _ = await asyncio.wait(futures, timeout=within, return_when=asyncio.FIRST_COMPLETED)
    finally:
        await _cancel_and_await(futures)
    for index, future in enumerate(futures):
        if future in done:
            return index
    return None


class Interrupted(Exception):
    """What :func:`unless` raises when its event was set before the work finished."""


async def unless(work: Awaitable[T], event: asyncio.Event) -> T:
    """The result of *work*, unless *event* is set first: then *work* is cancelled and
    awaited and :class:`Interrupted` is raised. An event already set interrupts at once."""
    if event.is_set():
        _discard(work)
        raise Interrupted
    task = asyncio.ensure_future(work)
    if await race(task, event.wait()) == 0:
        return task.result()
    raise Interrupted


async def _cancel_and_await(futures: Sequence[asyncio.Future[Any]]) -> None:
    losers = [future for future in futures if not future.done()]
    for loser in losers:
        loser.cancel()
    if losers:
        # Cancelling the caller while this waits still propagates: gather raises then.
        await asyncio.gather(*losers, return_exceptions=True)
    for future in futures:
        if future.done() and not future.cancelled():
            future.exception()  # retrieved: a loser's failure is not "never retrieved"


def _discard(awaitable: Awaitable[Any]) -> None:
    if asyncio.iscoroutine(awaitable):
        awaitable.close()
    elif asyncio.isfuture(awaitable):
        awaitable.cancel()

"""What every live run of one supervisor shares: the store (behind the fail-stop rule), the
output journals, the configuration, the clock, the observers, the task owner and the hurry signal.

The supervisor builds one :class:`RunContext` and hands it to each :class:`~.live.LiveRun`; a run
reads it and never changes it. Only the supervisor sets :attr:`RunContext.hurry` (through
:meth:`~.supervisor.RunSupervisor.hurry`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar

from maka_runtime.common.aio import TaskOwner
from maka_runtime.resource.core.config import ShellRunConfig
from maka_runtime.resource.core.errors import (
    InternalFailureError,
    PersistenceFailedError,
    ResourceError,
    StoreClosedError,
)
from maka_runtime.resource.core.failstop import store_failure_reason
from maka_runtime.resource.core.journals import OutputJournals
from maka_runtime.resource.core.pending import PendingRecords
from maka_runtime.resource.core.records import ShellRunRecord
from maka_runtime.resource.core.sandbox.launch import Sandbox
from maka_runtime.resource.core.store import ShellRunStore

__all__ = ["Notify", "RunContext", "transient"]

log = logging.getLogger(__name__)

_T = TypeVar("_T")

#: Tells observers about a run: ``changed`` (a revision was committed) or ``closing``.
Notify = Callable[[Literal["changed", "closing"], ShellRunRecord], None]


class RunContext:
    """The supervisor's shared, read-only dependencies of its runs."""

    def __init__(
        self,
        *,
        store: ShellRunStore,
        config: ShellRunConfig,
        now: Callable[[], int],
        notify: Notify,
        fail: Callable[[str, BaseException], None],
        sandbox: Sandbox,
        journals: OutputJournals | None = None,
    ) -> None:
        self.store = store
        #: How runs are confined (probed once, when the supervisor opens).
        self.sandbox = sandbox
        self.config = config
        #: The runs' output journals (none: output is kept in memory only).
        self.journals = journals or OutputJournals(None, run_limit=0, total_limit=0)
        self.now = now
        self.notify = notify
        self.fail = fail
        #: Every task the runs start (supervision, kill sequences); awaited on close.
        self.tasks = TaskOwner(log)
        #: Set when the host can wait no longer (its shutdown grace ran out): every termination,
        #: running or to come, skips the rest of its grace period and goes straight to SIGKILL.
        self.hurry = asyncio.Event()
        #: Terminal records the store refused (a full disk), written again until it takes them.
        self.pending = PendingRecords(
            write=lambda record: self.store_call(store.update(record), record.ref, write=True),
            committed=lambda record: notify("changed", record),
        )

    def spawn(self, coro: Coroutine[Any, Any, _T], name: str) -> asyncio.Task[_T]:
        return self.tasks.spawn(coro, name=name)

    async def store_call(
        self, call: Coroutine[Any, Any, _T], ref: str | None, *, write: bool = False
    ) -> _T:
        """Await a store call; a failure that breaks the host's own state trips the fail-stop
        latch (:func:`.failstop.store_failure_reason`), any other fails this call only."""
        where = f" for {ref}" if ref else ""
        try:
            result = await call
        except (StoreClosedError, InternalFailureError) as error:
            reason = store_failure_reason(error, where)
            assert reason is not None
            self.fail(reason, error)
            raise
        except (ResourceError, asyncio.CancelledError):
            raise
        except Exception as error:
            log.exception("the shell-run store failed unexpectedly%s", where)
            raise InternalFailureError(f"the shell-run store failed unexpectedly{where}") from error
        if write:
            self.pending.store_accepts_writes()
        return result


def transient(error: BaseException) -> bool:
    """A write the store refused but may take later (not a lost store, not a divergence)."""
    return isinstance(error, PersistenceFailedError) and not isinstance(error, StoreClosedError)

"""Quarantine: when a session may not start turns because of what its last one left behind.

* **Stopped, not settled** (:class:`SessionQuarantinedError`): a stopped turn whose backend has
  not come back yet holds the session; the next turn is admitted once it settles.
* **A stopped run not confirmed ended** (:class:`RunUnconfirmedQuarantineError`): a stop could
  not confirm that a tool's run ended; the next turn is admitted once the kernel has confirmed
  it (see :mod:`.confirm`), in this process or the next.
* **Permanently quarantined** (:class:`SessionPermanentlyQuarantinedError`): a backend
  generation that failed to stop and then failed to dispose may still be running. The session
  never starts another turn in this process; its header says ``blocked`` (:func:`block`) and
  every later disposal attempt re-reports the stored failure instead of retrying.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from maka_runtime.kernel.core.errors import (
    RunUnconfirmedQuarantineError,
    SessionPermanentlyQuarantinedError,
    SessionQuarantinedError,
)
from maka_runtime.kernel.core.store import SessionStore

if TYPE_CHECKING:
    from maka_runtime.kernel.core.sessions import SessionRuntime


def permanently_quarantined(runtime: SessionRuntime) -> SessionPermanentlyQuarantinedError | None:
    failure = runtime.permanent_failure
    if failure is None:
        return None
    return SessionPermanentlyQuarantinedError(runtime.session_id, failure)


def stop_quarantined(runtime: SessionRuntime) -> SessionQuarantinedError | None:
    run = runtime.active_run
    if run is None or not run.stopped:
        return None
    return SessionQuarantinedError(
        runtime.session_id, f"stopped turn {run.turn_id!r} has not settled yet"
    )


def unconfirmed_quarantined(runtime: SessionRuntime) -> RunUnconfirmedQuarantineError | None:
    for run in runtime.unconfirmed_runs.values():
        return RunUnconfirmedQuarantineError(runtime.session_id, run.ref, run.turn_id)
    return None


async def block(store: SessionStore, now: Callable[[], int], session_id: str) -> Exception | None:
    """Header status ``blocked`` for a permanently quarantined session; return a failure."""
    try:
        await store.update_header(session_id, {"status": "blocked", "status_updated_at": now()})
    except asyncio.CancelledError:
        raise
    except Exception as failure:
        return failure
    return None

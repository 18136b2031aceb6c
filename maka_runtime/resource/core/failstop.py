"""Fail-stop: the host stops serving when, and only when, its own state can no longer be trusted.

What trips it: an invariant of the host's own state broke. The store's owner lease is gone
(``StoreClosedError``: this process no longer owns its data), the stored state diverged from
the host's (``InternalFailureError`` from the store), a process survived SIGKILL, or a run's
supervision crashed. Never anything a request carries: a bad value, a command that cannot
start, a write the store refuses for now (``PersistenceFailedError``: a full disk) fail that
request only.

What it does: the latch trips once and hands its reason to the host's ``request_drain`` (the
server reports NOT_SERVING and drains, see :mod:`.drain`); later failures are only logged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from maka_runtime.resource.core.errors import InternalFailureError, StoreClosedError

__all__ = ["FailStop", "store_failure_reason"]

log = logging.getLogger(__name__)


def store_failure_reason(error: BaseException, where: str) -> str | None:
    """Why a failed store call trips the latch (``None``: it fails that call only)."""
    if isinstance(error, StoreClosedError):
        return f"the shell-run store refuses every call{where}: {error}"
    if isinstance(error, InternalFailureError):
        return f"the shell-run store diverged{where}: {error}"
    return None


class FailStop:
    """The host's fail-stop latch."""

    def __init__(self, request_drain: Callable[[str], None]) -> None:
        self._request_drain = request_drain
        #: The first reason it tripped for; ``None`` while the host is healthy.
        self.reason: str | None = None

    @property
    def tripped(self) -> bool:
        return self.reason is not None

    def trip(self, reason: str, error: BaseException) -> None:
        log.error("fail-stop: %s (%s)", reason, error)
        if self.reason is not None:
            return
        self.reason = reason
        self._request_drain(reason)

"""What an unexpected error inside one request becomes: that request's internal failure.

Domain errors (:class:`~.errors.ResourceError`) pass through; anything else is logged with its
traceback and raised as :class:`~.errors.InternalFailureError` of that request only. It does not
trip the fail-stop latch: what one request carries must never take the host down (the latch is
for the host's own state, see :mod:`.errors`).

A class, not a ``contextlib.contextmanager`` generator: every call of the host enters one, and
a generator-based manager costs several times as much to enter and leave.
"""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Literal

from maka_runtime.resource.core.errors import InternalFailureError, ResourceError

__all__ = ["RequestFailures"]


class RequestFailures:
    """``with RequestFailures("get", log): ...`` (see the module docstring)."""

    __slots__ = ("log", "operation")

    def __init__(self, operation: str, log: logging.Logger) -> None:
        self.operation = operation
        self.log = log

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> Literal[False]:
        if error is None or isinstance(error, ResourceError) or not isinstance(error, Exception):
            return False
        self.log.error("%s failed unexpectedly", self.operation, exc_info=error)
        raise InternalFailureError(f"{self.operation} failed unexpectedly") from error

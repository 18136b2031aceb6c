"""Domain errors to gRPC status, in one place.

Every servicer method is wrapped by :func:`unary` or :func:`streaming`. A
:class:`~kernel_service.core.errors.KernelError` ends the call with the status of the table below
and a ``google.rpc.ErrorInfo`` (reason: the error's code in upper case; domain ``kernel.maka``;
metadata: the error's details, e.g. the offending ``field`` or the ``active_turn_id``). Cleanup
failures carry every cause in the message. Any other exception is a bug or a failure the domain
passed through untouched (a backend's own stop error): it is logged once with its traceback and
becomes INTERNAL / ``INTERNAL_FAILURE`` whose message still names it. ``CancelledError`` always
propagates.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

import grpc

from kernel_service.core.errors import KernelError, RuntimeOwnerCleanupError, describe
from maka_common.status import KERNEL_DOMAIN, make_status

log = logging.getLogger("maka.kernel.api")

_Request = TypeVar("_Request")
_Response = TypeVar("_Response")

#: Domain error code -> (gRPC status code, ErrorInfo reason).
STATUS_BY_CODE: Final[Mapping[str, tuple[grpc.StatusCode, str]]] = {
    "invalid_request": (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST"),
    "out_of_range": (grpc.StatusCode.OUT_OF_RANGE, "OUT_OF_RANGE"),
    "not_found": (grpc.StatusCode.NOT_FOUND, "NOT_FOUND"),
    "already_exists": (grpc.StatusCode.ALREADY_EXISTS, "ALREADY_EXISTS"),
    "message_queue_full": (grpc.StatusCode.RESOURCE_EXHAUSTED, "MESSAGE_QUEUE_FULL"),
    "session_archived": (grpc.StatusCode.FAILED_PRECONDITION, "SESSION_ARCHIVED"),
    "operation_conflict": (grpc.StatusCode.ABORTED, "OPERATION_CONFLICT"),
    "session_busy": (grpc.StatusCode.ABORTED, "SESSION_BUSY"),
    "already_resolved": (grpc.StatusCode.ABORTED, "ALREADY_RESOLVED"),
    "turn_not_started": (grpc.StatusCode.ABORTED, "TURN_NOT_STARTED"),
    "session_quarantined": (grpc.StatusCode.FAILED_PRECONDITION, "SESSION_QUARANTINED"),
    "host_draining": (grpc.StatusCode.UNAVAILABLE, "HOST_DRAINING"),
    "backend_unavailable": (grpc.StatusCode.FAILED_PRECONDITION, "BACKEND_UNAVAILABLE"),
    # A refused write (a full disk): the client may retry once the store takes writes again.
    "persistence_failed": (grpc.StatusCode.UNAVAILABLE, "PERSISTENCE_FAILED"),
    "store_closed": (grpc.StatusCode.UNAVAILABLE, "STORE_CLOSED"),
    "owner_cleanup_failed": (grpc.StatusCode.INTERNAL, "OWNER_CLEANUP_FAILED"),
    "interaction_fail_stop": (grpc.StatusCode.INTERNAL, "INTERACTION_FAIL_STOP"),
    "interaction_invariant": (grpc.StatusCode.FAILED_PRECONDITION, "INTERACTION_INVARIANT"),
}
INTERNAL: Final = (grpc.StatusCode.INTERNAL, "INTERNAL_FAILURE")


@dataclass(frozen=True)
class Failure:
    """What a failed call reports."""

    code: grpc.StatusCode
    reason: str
    message: str
    metadata: Mapping[str, str] = field(default_factory=dict)

    def status(self) -> grpc.Status:
        return make_status(
            self.code,
            self.message,
            reason=self.reason,
            domain=KERNEL_DOMAIN,
            metadata=self.metadata,
        )


def failure_of(error: Exception) -> Failure:
    """The status for *error* (logs unknown errors once, with their traceback)."""
    if isinstance(error, KernelError):
        code, reason = STATUS_BY_CODE.get(error.code, INTERNAL)
        metadata = dict(error.metadata())
        if isinstance(error, RuntimeOwnerCleanupError):
            metadata["causes"] = str(len(error.causes))
        return Failure(code, reason, str(error), metadata)
    log.error("unexpected error in a kernel service call", exc_info=error)
    return Failure(*INTERNAL, f"internal failure: {describe(error)}")


async def _abort(context: grpc.aio.ServicerContext[Any, Any], failure: Failure) -> None:
    await context.abort_with_status(failure.status())


def unary(
    method: Callable[[Any, _Request, Any], Awaitable[_Response]],
) -> Callable[[Any, _Request, Any], Awaitable[_Response]]:
    """Wrap a unary servicer method with the error mapping."""

    @functools.wraps(method)
    async def handler(self: Any, request: _Request, context: Any) -> _Response:
        try:
            return await method(self, request, context)
        except grpc.aio.AbortError:
            raise
        except Exception as error:
            await _abort(context, failure_of(error))
            raise AssertionError("abort returned") from error  # pragma: no cover

    return handler


def streaming(
    method: Callable[[Any, _Request, Any], AsyncIterator[_Response]],
) -> Callable[[Any, _Request, Any], AsyncIterator[_Response]]:
    """Wrap a server-streaming servicer method with the error mapping."""

    @functools.wraps(method)
    async def handler(self: Any, request: _Request, context: Any) -> AsyncIterator[_Response]:
        try:
            async for response in method(self, request, context):
                yield response
        except grpc.aio.AbortError:
            raise
        except Exception as error:
            await _abort(context, failure_of(error))
            raise AssertionError("abort returned") from error  # pragma: no cover

    return handler

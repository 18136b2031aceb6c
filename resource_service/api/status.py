"""Domain errors to gRPC status, in one place.

Every servicer method is wrapped by :func:`unary` or :func:`streaming`: a
:class:`~resource_service.core.errors.ResourceError` ends the call with the status and
``google.rpc.ErrorInfo`` of the table below (reason = the error's code in upper case, metadata
``field`` = the offending request field in the RPC's own spelling); any other exception is a
bug: it is logged once with its traceback and becomes INTERNAL / ``INTERNAL_FAILURE``. A failing
call never affects another; ``CancelledError`` always propagates.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

import grpc

from maka_common.status import RESOURCE_DOMAIN, make_status
from resource_service.core import ResourceError, ShellRunPtyControlClosedError

__all__ = ["Failure", "failure_of", "streaming", "unary"]

log = logging.getLogger("maka.resource.api")

_Request = TypeVar("_Request")
_Response = TypeVar("_Response")

#: Domain error code -> (gRPC status code, ErrorInfo reason).
STATUS_BY_CODE: Final[Mapping[str, tuple[grpc.StatusCode, str]]] = {
    "invalid_request": (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST"),
    "out_of_range": (grpc.StatusCode.OUT_OF_RANGE, "OUT_OF_RANGE"),
    "not_found": (grpc.StatusCode.NOT_FOUND, "NOT_FOUND"),
    "session_archived": (grpc.StatusCode.FAILED_PRECONDITION, "SESSION_ARCHIVED"),
    "operation_conflict": (grpc.StatusCode.ABORTED, "OPERATION_CONFLICT"),
    "host_draining": (grpc.StatusCode.UNAVAILABLE, "HOST_DRAINING"),
    "resource_exhausted": (grpc.StatusCode.RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED"),
    # A refused write (a full disk): the client may retry once the store takes writes again.
    "persistence_failed": (grpc.StatusCode.UNAVAILABLE, "PERSISTENCE_FAILED"),
    "internal_failure": (grpc.StatusCode.INTERNAL, "INTERNAL_FAILURE"),
}


@dataclass(frozen=True)
class Failure:
    """What a failed call reports."""

    code: grpc.StatusCode
    reason: str
    message: str
    metadata: Mapping[str, str] = field(default_factory=dict)

    @property
    def field(self) -> str:
        return self.metadata.get("field", "")

    def status(self) -> grpc.Status:
        return make_status(
            self.code,
            self.message,
            reason=self.reason,
            domain=RESOURCE_DOMAIN,
            metadata=self.metadata,
        )


def failure_of(error: Exception, fields: Mapping[str, str] | None = None) -> Failure:
    """The status for *error*; *fields* renames domain field names to the RPC's."""
    if isinstance(error, ResourceError):
        code, reason = STATUS_BY_CODE.get(error.code, STATUS_BY_CODE["internal_failure"])
        metadata: dict[str, str] = dict(error.details)
        if error.field:
            metadata["field"] = (fields or {}).get(error.field, error.field)
        if isinstance(error, ShellRunPtyControlClosedError):
            metadata["pty"] = "closed"
        return Failure(code, reason, error.message, metadata)
    log.error("unexpected error in a resource service call", exc_info=error)
    return Failure(grpc.StatusCode.INTERNAL, "INTERNAL_FAILURE", "internal error; see server log")


async def _abort(context: grpc.aio.ServicerContext[Any, Any], failure: Failure) -> None:
    await context.abort_with_status(failure.status())


def unary(
    fields: Mapping[str, str] | None = None,
) -> Callable[
    [Callable[[Any, _Request, Any], Awaitable[_Response]]],
    Callable[[Any, _Request, Any], Awaitable[_Response]],
]:
    """Wrap a unary servicer method with the error mapping."""

    def wrap(
        method: Callable[[Any, _Request, Any], Awaitable[_Response]],
    ) -> Callable[[Any, _Request, Any], Awaitable[_Response]]:
        @functools.wraps(method)
        async def handler(self: Any, request: _Request, context: Any) -> _Response:
            try:
                return await method(self, request, context)
            except grpc.aio.AbortError:
                raise
            except Exception as error:
                await _abort(context, failure_of(error, fields))
                raise AssertionError("abort returned") from error  # pragma: no cover

        return handler

    return wrap


def streaming(
    fields: Mapping[str, str] | None = None,
) -> Callable[
    [Callable[[Any, _Request, Any], AsyncIterator[_Response]]],
    Callable[[Any, _Request, Any], AsyncIterator[_Response]],
]:
    """Wrap a streaming (server or bidi) servicer method with the error mapping."""

    def wrap(
        method: Callable[[Any, _Request, Any], AsyncIterator[_Response]],
    ) -> Callable[[Any, _Request, Any], AsyncIterator[_Response]]:
        @functools.wraps(method)
        async def handler(self: Any, request: _Request, context: Any) -> AsyncIterator[_Response]:
            try:
                async for response in method(self, request, context):
                    yield response
            except grpc.aio.AbortError:
                raise
            except Exception as error:
                await _abort(context, failure_of(error, fields))

        return handler

    return wrap

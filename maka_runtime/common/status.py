"""gRPC status with ``google.rpc.ErrorInfo`` details: building them, and the one error mapping
both services wrap their servicer methods with.

Reasons are stable upper-case codes (``OPERATION_CONFLICT``, ``HOST_DRAINING`` …) taken from the
protocol's registry, ``maka.common.v1.ErrorReason`` (:func:`reason_name`); ``domain`` names the
service (``kernel.maka`` or ``resource.maka``); ``metadata`` carries specifics such as the
offending ``field``.

:class:`ErrorMapping` is the factory: a service gives its table (exception type → status code
and reason, most specific first), how to describe one of its errors (message and metadata), and
its logger; the mapping gives the ``unary`` and ``streaming`` decorators and ``failure_of``. One
policy for everything the table does not name: INTERNAL / ``INTERNAL_FAILURE``, logged once with
its traceback, and a message that does not show the error (a service may describe it instead,
see ``unknown_message``). ``CancelledError`` and ``grpc.aio.AbortError`` always propagate.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeAlias, TypeVar

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

# Reading ErrorInfo and naming reasons is the clients' business too; servers and tests use the
# SDK's functions, so that there is one of each.
from maka_runtime_client.errors import error_info, reason_name
from maka_runtime_proto.common.v1 import errors_pb2

__all__ = [
    "KERNEL_DOMAIN",
    "RESOURCE_DOMAIN",
    "ErrorMapping",
    "Failure",
    "MappedUnary",
    "Rule",
    "abort",
    "error_info",
    "make_status",
    "reason_name",
]

KERNEL_DOMAIN = "kernel.maka"
RESOURCE_DOMAIN = "resource.maka"

Reason: TypeAlias = errors_pb2.ErrorReason.ValueType
#: One row of a service's table: errors of this type end with this code and reason.
Rule = tuple[type[Exception], grpc.StatusCode, Reason]
#: How a service describes one of its errors: (error, request-field renames) -> (message, metadata).
Describe = Callable[[Exception, Mapping[str, str]], tuple[str, Mapping[str, str]]]
HIDDEN_MESSAGE = "internal error; see server log"

_Request = TypeVar("_Request")
_Response = TypeVar("_Response")
Unary = Callable[[Any, _Request, Any], Awaitable[_Response]]
Streaming = Callable[[Any, _Request, Any], AsyncIterator[_Response]]


def make_status(
    code: grpc.StatusCode,
    message: str,
    *,
    reason: str,
    domain: str,
    metadata: Mapping[str, str] | None = None,
) -> grpc.Status:
    """A ``grpc.Status`` carrying one ``ErrorInfo`` detail."""
    info = error_details_pb2.ErrorInfo(
        reason=reason, domain=domain, metadata={k: str(v) for k, v in (metadata or {}).items()}
    )
    detail = any_pb2.Any()
    detail.Pack(info)
    status: grpc.Status = rpc_status.to_status(
        status_pb2.Status(code=code.value[0], message=message, details=[detail])
    )
    return status


async def abort(
    context: grpc.aio.ServicerContext,  # type: ignore[type-arg]
    code: grpc.StatusCode,
    message: str,
    *,
    reason: str,
    domain: str,
    metadata: Mapping[str, str] | None = None,
) -> NoReturn:
    """End the RPC with *code*, *message* and an ``ErrorInfo``."""
    await context.abort_with_status(
        make_status(code, message, reason=reason, domain=domain, metadata=metadata)
    )
    raise AssertionError("abort_with_status returned")  # pragma: no cover


@dataclass(frozen=True)
class Failure:
    """What a failed call reports."""

    code: grpc.StatusCode
    reason: str
    message: str
    metadata: Mapping[str, str] = field(default_factory=dict)
    domain: str = ""

    @property
    def field(self) -> str:
        """The offending request field, or ``""``."""
        return self.metadata.get("field", "")

    def status(self) -> grpc.Status:
        return make_status(
            self.code, self.message, reason=self.reason, domain=self.domain, metadata=self.metadata
        )


def _shadowed(rules: Sequence[Rule]) -> str | None:
    for index, (kind, _, _) in enumerate(rules):
        for earlier, _, _ in rules[:index]:
            if issubclass(kind, earlier):
                return f"{kind.__name__} comes after {earlier.__name__}, which catches it"
    return None


@dataclass(frozen=True)
class MappedUnary:
    """A unary servicer method and the mapping :meth:`ErrorMapping.unary` wraps it with."""

    method: Callable[..., Awaitable[Any]]
    mapping: ErrorMapping
    fields: Mapping[str, str] | None
    #: The wrapper itself: a decorator around it copies ``mapped`` but is not the wrapper, so
    #: the pipeline does not skip it.
    wrapper: Callable[..., Awaitable[Any]]


class ErrorMapping:
    """One service's errors to gRPC status (see the module docstring)."""

    def __init__(
        self,
        *,
        service: str,
        domain: str,
        rules: Sequence[Rule],
        describe: Describe,
        log: logging.Logger,
        unknown_message: Callable[[Exception], str] = lambda _error: HIDDEN_MESSAGE,
    ) -> None:
        problem = _shadowed(rules)
        if problem is not None:
            raise ValueError(f"the {service} error table is not most specific first: {problem}")
        self.service = service
        self.domain = domain
        self.rules = tuple(rules)
        self._describe = describe
        self._log = log
        self._unknown_message = unknown_message

    def failure_of(self, error: Exception, fields: Mapping[str, str] | None = None) -> Failure:
        """The status for *error*; *fields* renames domain field names to the RPC's. Errors the
        table does not name are logged here, once, with their traceback."""
        for kind, code, reason in self.rules:
            if isinstance(error, kind):
                message, metadata = self._describe(error, fields or {})
                return Failure(code, reason_name(reason), message, dict(metadata), self.domain)
        self._log.exception("unexpected error in a %s service call", self.service, exc_info=error)
        return Failure(
            grpc.StatusCode.INTERNAL,
            reason_name(errors_pb2.ERROR_REASON_INTERNAL_FAILURE),
            self._unknown_message(error),
            {},
            self.domain,
        )

    def unary(
        self, fields: Mapping[str, str] | None = None
    ) -> Callable[[Unary[_Request, _Response]], Unary[_Request, _Response]]:
        """A decorator: a unary servicer method with this error mapping."""

        def wrap(method: Unary[_Request, _Response]) -> Unary[_Request, _Response]:
            @functools.wraps(method)
            async def handler(self_: Any, request: _Request, context: Any) -> _Response:
                try:
                    return await method(self_, request, context)
                except grpc.aio.AbortError:
                    raise
                except Exception as error:
                    await context.abort_with_status(self.failure_of(error, fields).status())
                    raise AssertionError("abort returned") from error  # pragma: no cover

            # The call pipeline (:mod:`.pipeline`) maps errors itself around *method*: one
            # coroutine less per call than awaiting this handler.
            handler.mapped = MappedUnary(method, self, fields, handler)  # type: ignore[attr-defined]
            return handler

        return wrap

    def streaming(
        self, fields: Mapping[str, str] | None = None
    ) -> Callable[[Streaming[_Request, _Response]], Streaming[_Request, _Response]]:
        """A decorator: a streaming (server or bidi) servicer method with this error mapping."""

        def wrap(method: Streaming[_Request, _Response]) -> Streaming[_Request, _Response]:
            @functools.wraps(method)
            async def handler(
                self_: Any, request: _Request, context: Any
            ) -> AsyncIterator[_Response]:
                try:
                    async for response in method(self_, request, context):
                        yield response
                except grpc.aio.AbortError:
                    raise
                except Exception as error:
                    await context.abort_with_status(self.failure_of(error, fields).status())
                    raise AssertionError("abort returned") from error  # pragma: no cover

            return handler

        return wrap

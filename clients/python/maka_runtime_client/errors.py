"""Typed exceptions built from a failed call's status and ``google.rpc.ErrorInfo``.

::

    MakaError                       any failed call; .code .reason .domain .metadata
    ├── InvalidRequestError         INVALID_REQUEST       your request is malformed (.field;
    │   │                                                 .metadata["limit"] for a limit)
    │   │                           REQUEST_UNDECODABLE   not a valid protobuf message (raw bytes)
    │   └── OutOfRangeError         OUT_OF_RANGE          a cursor beyond the end of the log
    ├── NotFoundError               NOT_FOUND             no such session / run / request
    ├── AlreadyExistsError          ALREADY_EXISTS        the id you chose is taken
    ├── ConflictError               OPERATION_CONFLICT    state forbids it now (someone holds it)
    │   ├── AlreadyResolvedError    ALREADY_RESOLVED      the request was answered already
    │   ├── SessionBusyError        SESSION_BUSY          another turn runs
    │   │                                                 (.metadata["active_turn_id"])
    │   └── LeaseLostError          (client side)         the lease ended: acquire again
    ├── SessionArchivedError        SESSION_ARCHIVED
    ├── SessionQuarantinedError     SESSION_QUARANTINED   a stopped run has not settled
    ├── DrainingError               HOST_DRAINING         the service is shutting down
    ├── ResourceExhaustedError      RESOURCE_EXHAUSTED    a limit (live runs, PTYs, runs per
    │   │                                                 session; .metadata["limit_name"])
    │   │                           REQUEST_TOO_LARGE     request message above --max-request-bytes
    │   │                                                 (.metadata["limit_bytes"], ["size_bytes"])
    │   └── MessageQueueFullError   MESSAGE_QUEUE_FULL    the turn's message queue is full
    ├── UnavailableError            (no reason)           transport: not reachable, deadline
    │   └── ResumeFailedError       (client side)         a stream could not be resumed in time
    ├── ClientClosedError           (client side)         you closed this client
    └── ServerError                 PERSISTENCE_FAILED, INTERNAL_FAILURE, anything else

Errors raised by the SDK itself (no call failed on the server) have an empty ``domain``.

The reasons come from the protocol's registry, the generated ``maka.common.v1.ErrorReason``
enum: :func:`reason_name` turns a value into the ``ErrorInfo`` reason string
(``ERROR_REASON_OPERATION_CONFLICT`` is sent as ``"OPERATION_CONFLICT"``); :data:`REASONS` is
every reason a service may send.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2
from maka_runtime_proto.common.v1 import errors_pb2

#: The prefix buf's lint puts on every value of the registry; the reason string has none.
REASON_PREFIX = "ERROR_REASON_"
ErrorReason = errors_pb2.ErrorReason


def reason_name(value: errors_pb2.ErrorReason.ValueType) -> str:
    """The ``ErrorInfo`` reason string of a registry value (``UNSPECIFIED`` is never sent)."""
    if value == errors_pb2.ERROR_REASON_UNSPECIFIED:
        raise ValueError("ERROR_REASON_UNSPECIFIED is not a reason")
    return ErrorReason.Name(value).removeprefix(REASON_PREFIX)


#: Every reason a Maka Runtime service may send (the registry without its zero value).
REASONS: frozenset[str] = frozenset(
    reason_name(value)
    for value in ErrorReason.values()
    if value != errors_pb2.ERROR_REASON_UNSPECIFIED
)


class MakaError(Exception):
    """A call failed; the status code, reason and detail say why."""

    def __init__(
        self,
        message: str,
        *,
        code: grpc.StatusCode,
        reason: str = "",
        domain: str = "",
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.reason = reason
        self.domain = domain
        self.metadata = dict(metadata or {})

    @property
    def field(self) -> str | None:
        """The offending request field, when the server named one."""
        return self.metadata.get("field")

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}({self.message!r}, code={self.code.name}, reason={self.reason!r})"


class InvalidRequestError(MakaError):
    pass


class OutOfRangeError(InvalidRequestError):
    """A cursor (``after_seq``, ``after_change_seq``, ``after_sequence``) is beyond the end."""


class NotFoundError(MakaError):
    pass


class AlreadyExistsError(MakaError):
    pass


class ConflictError(MakaError):
    pass


class AlreadyResolvedError(ConflictError):
    pass


class SessionBusyError(ConflictError):
    pass


class SessionArchivedError(MakaError):
    pass


class SessionQuarantinedError(MakaError):
    pass


class DrainingError(MakaError):
    pass


class ResourceExhaustedError(MakaError):
    pass


class MessageQueueFullError(ResourceExhaustedError):
    pass


class UnavailableError(MakaError):
    pass


class ResumeFailedError(UnavailableError):
    """A stream dropped and could not be resumed within the client's resume policy.

    ``__cause__`` is the last transport failure.
    """


class LeaseLostError(ConflictError):
    """The controller lease ended (released, or its connection closed): acquire it again."""


class ClientClosedError(MakaError):
    """The client was closed; create a new one."""


class ServerError(MakaError):
    pass


class UnauthenticatedError(MakaError):
    """The call carried no credential the service knows: pass a token (``token=``,
    ``MAKA_TOKEN``) or use the local credential of the service's data directory."""


class PermissionDeniedError(MakaError):
    """The caller is known but lacks the role the method needs (``error.metadata["needs"]``)."""


BY_REASON: dict[str, type[MakaError]] = {
    reason_name(errors_pb2.ERROR_REASON_INVALID_REQUEST): InvalidRequestError,
    reason_name(errors_pb2.ERROR_REASON_OUT_OF_RANGE): OutOfRangeError,
    reason_name(errors_pb2.ERROR_REASON_NOT_FOUND): NotFoundError,
    reason_name(errors_pb2.ERROR_REASON_ALREADY_EXISTS): AlreadyExistsError,
    reason_name(errors_pb2.ERROR_REASON_OPERATION_CONFLICT): ConflictError,
    reason_name(errors_pb2.ERROR_REASON_ALREADY_RESOLVED): AlreadyResolvedError,
    reason_name(errors_pb2.ERROR_REASON_SESSION_BUSY): SessionBusyError,
    reason_name(errors_pb2.ERROR_REASON_SESSION_ARCHIVED): SessionArchivedError,
    reason_name(errors_pb2.ERROR_REASON_SESSION_QUARANTINED): SessionQuarantinedError,
    reason_name(errors_pb2.ERROR_REASON_HOST_DRAINING): DrainingError,
    reason_name(errors_pb2.ERROR_REASON_RESOURCE_EXHAUSTED): ResourceExhaustedError,
    reason_name(errors_pb2.ERROR_REASON_REQUEST_TOO_LARGE): ResourceExhaustedError,
    reason_name(errors_pb2.ERROR_REASON_REQUEST_UNDECODABLE): InvalidRequestError,
    reason_name(errors_pb2.ERROR_REASON_MESSAGE_QUEUE_FULL): MessageQueueFullError,
    reason_name(errors_pb2.ERROR_REASON_UNAUTHENTICATED): UnauthenticatedError,
    reason_name(errors_pb2.ERROR_REASON_PERMISSION_DENIED): PermissionDeniedError,
}

BY_CODE: dict[grpc.StatusCode, type[MakaError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidRequestError,
    grpc.StatusCode.OUT_OF_RANGE: OutOfRangeError,
    grpc.StatusCode.NOT_FOUND: NotFoundError,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExistsError,
    grpc.StatusCode.ABORTED: ConflictError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhaustedError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
    grpc.StatusCode.DEADLINE_EXCEEDED: UnavailableError,
    grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedError,
}


def client_error(
    kind: type[MakaError], message: str, code: grpc.StatusCode = grpc.StatusCode.UNAVAILABLE
) -> MakaError:
    """An error the SDK raises itself (no server status behind it)."""
    return kind(message, code=code)


def is_transport_failure(error: grpc.RpcError) -> bool:
    """True when *error* is the connection failing (worth resuming), not a server decision.

    UNAVAILABLE without an ``ErrorInfo`` is the transport (``HOST_DRAINING`` carries one and is
    final); a server that refuses on purpose always attaches its reason.
    """
    code = error.code() if hasattr(error, "code") else None
    return code == grpc.StatusCode.UNAVAILABLE and error_info(error) is None


def from_rpc_error(error: grpc.RpcError) -> MakaError:
    """Translate a failed call into the matching :class:`MakaError` subclass."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    message = error.details() if hasattr(error, "details") else str(error)
    info = error_info(error)
    if info is not None and info.reason in BY_REASON:
        kind = BY_REASON[info.reason]
    else:
        kind = BY_CODE.get(code, ServerError)
    return kind(
        message or code.name,
        code=code,
        reason=info.reason if info else "",
        domain=info.domain if info else "",
        metadata=dict(info.metadata) if info else None,
    )


def error_info(error: grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    """The ``ErrorInfo`` attached to a failed call, if any (works for sync and aio errors)."""
    trailing: Any = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    for key, value in trailing or ():
        if key == "grpc-status-details-bin" and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                    info = error_details_pb2.ErrorInfo()
                    detail.Unpack(info)
                    return info
    return None

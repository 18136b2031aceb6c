"""The resource service's errors to gRPC status: its table for the shared
:class:`~maka_runtime.common.status.ErrorMapping`.

Every servicer method is wrapped by :func:`unary` or :func:`streaming`: a
:class:`~maka_runtime.resource.core.errors.ResourceError` ends the call with the status and
``google.rpc.ErrorInfo`` of the table below (reason from the protocol's registry, metadata
``field`` = the offending request field in the RPC's own spelling); any other exception is a
bug: it is logged once with its traceback and becomes INTERNAL / ``INTERNAL_FAILURE`` with a
message that does not show it. A failing call never affects another; ``CancelledError`` always
propagates.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Final

import grpc
from maka_runtime_proto.common.v1 import errors_pb2 as r

import maka_runtime.resource.core as e
from maka_runtime.common.status import RESOURCE_DOMAIN, ErrorMapping, Failure, Rule

__all__ = ["MAPPING", "RULES", "Failure", "failure_of", "streaming", "unary"]

log = logging.getLogger("maka.resource.api")
S = grpc.StatusCode

#: Resource error type -> (gRPC status code, ErrorInfo reason), most specific first.
RULES: Final[tuple[Rule, ...]] = (
    (e.OutOfRangeError, S.OUT_OF_RANGE, r.ERROR_REASON_OUT_OF_RANGE),
    (e.InvalidRequestError, S.INVALID_ARGUMENT, r.ERROR_REASON_INVALID_REQUEST),
    (e.NotFoundError, S.NOT_FOUND, r.ERROR_REASON_NOT_FOUND),
    (e.SessionArchivedError, S.FAILED_PRECONDITION, r.ERROR_REASON_SESSION_ARCHIVED),
    (e.PermissionDeniedError, S.PERMISSION_DENIED, r.ERROR_REASON_PERMISSION_DENIED),
    (e.OperationConflictError, S.ABORTED, r.ERROR_REASON_OPERATION_CONFLICT),
    (e.HostDrainingError, S.UNAVAILABLE, r.ERROR_REASON_HOST_DRAINING),
    (e.ResourceExhaustedError, S.RESOURCE_EXHAUSTED, r.ERROR_REASON_RESOURCE_EXHAUSTED),
    (e.SandboxUnavailableError, S.FAILED_PRECONDITION, r.ERROR_REASON_SANDBOX_UNAVAILABLE),
    # A refused write (a full disk): the client may retry once the store takes writes again.
    # A closed store (its owner lease lost) says the same: the service is going away.
    (e.PersistenceFailedError, S.UNAVAILABLE, r.ERROR_REASON_PERSISTENCE_FAILED),
    (e.ResourceError, S.INTERNAL, r.ERROR_REASON_INTERNAL_FAILURE),
)


def _describe(error: Exception, fields: Mapping[str, str]) -> tuple[str, Mapping[str, str]]:
    if not isinstance(error, e.ResourceError):
        return str(error), {}
    metadata = dict(error.details)
    if error.field:
        metadata["field"] = fields.get(error.field, error.field)
    if isinstance(error, e.ShellRunPtyControlClosedError):
        metadata["pty"] = "closed"
    return error.message, metadata


MAPPING: Final = ErrorMapping(
    service="resource", domain=RESOURCE_DOMAIN, rules=RULES, describe=_describe, log=log
)


def failure_of(error: Exception, fields: Mapping[str, str] | None = None) -> Failure:
    """The status for *error*; *fields* renames domain field names to the RPC's."""
    return MAPPING.failure_of(error, fields)


#: Decorators of the servicer's methods: ``@unary(fields)``, ``@streaming(fields)``.
unary: Final = MAPPING.unary
streaming: Final = MAPPING.streaming

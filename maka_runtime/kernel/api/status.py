"""The kernel's errors to gRPC status: its table for the shared
:class:`~maka_runtime.common.status.ErrorMapping`.

Every servicer method is wrapped by :func:`unary` or :func:`streaming`. A
:class:`~maka_runtime.kernel.core.errors.KernelError` ends the call with the status of the table
below and a ``google.rpc.ErrorInfo`` (reason from the protocol's registry; domain ``kernel.maka``;
metadata: the error's details, e.g. the offending ``field`` or the ``active_turn_id``). Cleanup
failures carry every cause in the message. Any other exception is a bug or a failure the domain
passed through untouched (a backend's own stop error): it is logged once with its traceback and
becomes INTERNAL / ``INTERNAL_FAILURE`` whose message still names it (the kernel describes what
it passed through, unlike the shared default). ``CancelledError`` always propagates.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Final

import grpc
from maka_runtime_proto.common.v1 import errors_pb2 as r

from maka_runtime.common.status import KERNEL_DOMAIN, ErrorMapping, Failure, Rule
from maka_runtime.kernel import core as e

__all__ = ["MAPPING", "RULES", "Failure", "failure_of", "streaming", "unary"]

log = logging.getLogger("maka.kernel.api")
S = grpc.StatusCode

#: Kernel error type -> (gRPC status code, ErrorInfo reason), most specific first.
RULES: Final[tuple[Rule, ...]] = (
    (e.OutOfRangeError, S.OUT_OF_RANGE, r.ERROR_REASON_OUT_OF_RANGE),
    (e.InvalidRequestError, S.INVALID_ARGUMENT, r.ERROR_REASON_INVALID_REQUEST),
    (e.NotFoundError, S.NOT_FOUND, r.ERROR_REASON_NOT_FOUND),
    (e.AlreadyExistsError, S.ALREADY_EXISTS, r.ERROR_REASON_ALREADY_EXISTS),
    (e.MessageQueueFullError, S.RESOURCE_EXHAUSTED, r.ERROR_REASON_MESSAGE_QUEUE_FULL),
    (e.SessionArchivedError, S.FAILED_PRECONDITION, r.ERROR_REASON_SESSION_ARCHIVED),
    (e.SessionBusyError, S.ABORTED, r.ERROR_REASON_SESSION_BUSY),
    (e.InteractionAlreadyResolvedError, S.ABORTED, r.ERROR_REASON_ALREADY_RESOLVED),
    (e.TurnNotStartedError, S.ABORTED, r.ERROR_REASON_TURN_NOT_STARTED),
    (e.OperationConflictError, S.ABORTED, r.ERROR_REASON_OPERATION_CONFLICT),
    (e.SessionQuarantinedError, S.FAILED_PRECONDITION, r.ERROR_REASON_SESSION_QUARANTINED),
    (e.HostDrainingError, S.UNAVAILABLE, r.ERROR_REASON_HOST_DRAINING),
    (e.BackendUnavailableError, S.FAILED_PRECONDITION, r.ERROR_REASON_BACKEND_UNAVAILABLE),
    # The store is closing with the service: UNAVAILABLE, like a refused write below.
    (e.StoreClosedError, S.UNAVAILABLE, r.ERROR_REASON_STORE_CLOSED),
    # A refused write (a full disk): the client may retry once the store takes writes again.
    (e.PersistenceFailedError, S.UNAVAILABLE, r.ERROR_REASON_PERSISTENCE_FAILED),
    # The resource service did not confirm a stopped run's end in time: transient, the kernel
    # keeps asking and lifts the session's quarantine once it answers.
    (e.RunEndUnconfirmedError, S.UNAVAILABLE, r.ERROR_REASON_OWNER_CLEANUP_FAILED),
    (e.RuntimeOwnerCleanupError, S.INTERNAL, r.ERROR_REASON_OWNER_CLEANUP_FAILED),
    (e.RuntimeInteractionFailStopError, S.INTERNAL, r.ERROR_REASON_INTERACTION_FAIL_STOP),
    (
        e.RuntimeInteractionInvariantError,
        S.FAILED_PRECONDITION,
        r.ERROR_REASON_INTERACTION_INVARIANT,
    ),
    (e.KernelError, S.INTERNAL, r.ERROR_REASON_INTERNAL_FAILURE),
)


def _describe(error: Exception, _fields: Mapping[str, str]) -> tuple[str, Mapping[str, str]]:
    metadata = dict(error.metadata()) if isinstance(error, e.KernelError) else {}
    if isinstance(error, e.RuntimeOwnerCleanupError):
        metadata["causes"] = str(len(error.causes))
    return str(error), metadata


MAPPING: Final = ErrorMapping(
    service="kernel",
    domain=KERNEL_DOMAIN,
    rules=RULES,
    describe=_describe,
    log=log,
    unknown_message=lambda error: f"internal failure: {e.describe(error)}",
)
failure_of = MAPPING.failure_of
#: Decorators of the servicer's unary and server-streaming methods.
unary: Final = MAPPING.unary()
streaming: Final = MAPPING.streaming()

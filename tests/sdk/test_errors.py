"""Typed SDK exceptions from status + ErrorInfo."""

from __future__ import annotations

import grpc
import pytest
from maka_runtime_client import errors
from maka_runtime_client.errors import SessionQuarantinedError

from maka_runtime.common.status import KERNEL_DOMAIN, make_status


class FakeCallError(grpc.RpcError):
    """Stands in for a failed call object: the real status bytes, no network."""

    def __init__(self, status: grpc.Status) -> None:
        self._status = status

    def code(self) -> grpc.StatusCode:
        return self._status.code

    def details(self) -> str:
        return self._status.details

    def trailing_metadata(self) -> object:  # type: ignore[override]  # stubs: unconstructible tuple type
        return self._status.trailing_metadata


@pytest.mark.parametrize(
    ("code", "reason", "expected"),
    [
        (grpc.StatusCode.ABORTED, "OPERATION_CONFLICT", errors.ConflictError),
        (grpc.StatusCode.ABORTED, "ALREADY_RESOLVED", errors.AlreadyResolvedError),
        (grpc.StatusCode.FAILED_PRECONDITION, "SESSION_QUARANTINED", SessionQuarantinedError),
        (grpc.StatusCode.FAILED_PRECONDITION, "SESSION_ARCHIVED", errors.SessionArchivedError),
        (grpc.StatusCode.UNAVAILABLE, "HOST_DRAINING", errors.DrainingError),
        (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST", errors.InvalidRequestError),
        (grpc.StatusCode.INTERNAL, "INTERNAL_FAILURE", errors.ServerError),
        (grpc.StatusCode.ABORTED, "SOMETHING_NEW", errors.ConflictError),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "REQUEST_TOO_LARGE", errors.ResourceExhaustedError),
        (grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_UNDECODABLE", errors.InvalidRequestError),
        (grpc.StatusCode.ALREADY_EXISTS, "ALREADY_EXISTS", errors.AlreadyExistsError),
        (grpc.StatusCode.OUT_OF_RANGE, "OUT_OF_RANGE", errors.OutOfRangeError),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "MESSAGE_QUEUE_FULL", errors.MessageQueueFullError),
        (grpc.StatusCode.OUT_OF_RANGE, "SOMETHING_NEW", errors.OutOfRangeError),
    ],
)
def test_reason_picks_the_exception(
    code: grpc.StatusCode, reason: str, expected: type[errors.MakaError]
) -> None:
    status = make_status(
        code, "it failed", reason=reason, domain=KERNEL_DOMAIN, metadata={"field": "text"}
    )
    error = errors.from_rpc_error(FakeCallError(status))
    assert type(error) is expected
    assert error.code == code
    assert error.reason == reason
    assert error.domain == KERNEL_DOMAIN
    assert error.field == "text"
    assert str(error) == "it failed"


def test_transport_failure_without_detail_is_unavailable() -> None:
    status = grpc.Status()
    status.code = grpc.StatusCode.UNAVAILABLE
    status.details = "connection refused"
    status.trailing_metadata = ()
    error = errors.from_rpc_error(FakeCallError(status))
    assert type(error) is errors.UnavailableError
    assert error.reason == ""

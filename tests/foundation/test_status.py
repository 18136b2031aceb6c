"""The one error-mapping factory both services use: a table most specific first, one policy for
unknown errors, cancellation never swallowed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from maka_runtime_proto.common.v1 import errors_pb2 as r

from maka_runtime.common.status import HIDDEN_MESSAGE, ErrorMapping, Failure, Rule, error_info
from maka_runtime.kernel.api import status as kernel_status
from maka_runtime.kernel.core import StoreClosedError as KernelStoreClosed
from maka_runtime.resource.api import status as resource_status
from maka_runtime.resource.core import StoreClosedError as ResourceStoreClosed

log = logging.getLogger("maka.test.status")


class Base(Exception):
    pass


class Special(Base):
    pass


def mapping(rules: tuple[Rule, ...]) -> ErrorMapping:
    return ErrorMapping(
        service="test",
        domain="test.maka",
        rules=rules,
        describe=lambda error, _fields: (str(error), {"kind": type(error).__name__}),
        log=log,
    )


def test_a_table_that_is_not_most_specific_first_is_refused() -> None:
    with pytest.raises(ValueError, match="Special comes after Base"):
        mapping(
            (
                (Base, grpc.StatusCode.ABORTED, r.ERROR_REASON_OPERATION_CONFLICT),
                (Special, grpc.StatusCode.NOT_FOUND, r.ERROR_REASON_NOT_FOUND),
            )
        )


def test_the_first_matching_rule_wins_and_the_status_carries_error_info() -> None:
    errors = mapping(
        (
            (Special, grpc.StatusCode.NOT_FOUND, r.ERROR_REASON_NOT_FOUND),
            (Base, grpc.StatusCode.ABORTED, r.ERROR_REASON_OPERATION_CONFLICT),
        )
    )
    special, base = errors.failure_of(Special("gone")), errors.failure_of(Base("taken"))
    assert (special.code, special.reason, special.message) == (
        grpc.StatusCode.NOT_FOUND,
        "NOT_FOUND",
        "gone",
    )
    assert (base.code, base.reason, dict(base.metadata)) == (
        grpc.StatusCode.ABORTED,
        "OPERATION_CONFLICT",
        {"kind": "Base"},
    )
    status = base.status()
    assert status.code == grpc.StatusCode.ABORTED and status.details == "taken"


def test_unknown_errors_are_internal_hidden_and_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    errors = mapping(())
    with caplog.at_level(logging.ERROR, logger=log.name):
        failure = errors.failure_of(KeyError("secret detail"))
    assert failure == Failure(
        grpc.StatusCode.INTERNAL, "INTERNAL_FAILURE", HIDDEN_MESSAGE, {}, "test.maka"
    )
    [logged] = caplog.records
    assert isinstance(logged.exc_info[1], KeyError)  # type: ignore[index]


async def test_cancellation_is_never_swallowed_by_the_wrappers() -> None:
    errors = mapping(((Exception, grpc.StatusCode.ABORTED, r.ERROR_REASON_OPERATION_CONFLICT),))

    @errors.unary()
    async def unary(_self: object, _request: object, _context: object) -> None:
        raise asyncio.CancelledError

    @errors.streaming()
    async def streaming(_self: object, _request: object, _context: object) -> AsyncIterator[int]:
        yield 1
        raise asyncio.CancelledError

    # No context is needed: a cancelled call never reaches the abort.
    with pytest.raises(asyncio.CancelledError):
        await unary(None, None, None)
    with pytest.raises(asyncio.CancelledError):
        async for _ in streaming(None, None, None):
            pass


def test_a_closed_store_is_unavailable_in_both_services() -> None:
    kernel = kernel_status.failure_of(KernelStoreClosed("the session store is closed"))
    resource = resource_status.failure_of(ResourceStoreClosed("the shell-run store is closed"))
    assert (kernel.code, kernel.reason) == (grpc.StatusCode.UNAVAILABLE, "STORE_CLOSED")
    assert (resource.code, resource.reason) == (grpc.StatusCode.UNAVAILABLE, "PERSISTENCE_FAILED")
    assert kernel.domain == "kernel.maka" and resource.domain == "resource.maka"


def test_error_info_reads_back_what_a_failure_builds() -> None:
    failure = resource_status.failure_of(ResourceStoreClosed("closed"))
    status = failure.status()

    class Call(grpc.RpcError):
        def trailing_metadata(self) -> Any:
            return status.trailing_metadata

    info = error_info(Call())
    assert info is not None and (info.reason, info.domain) == (
        "PERSISTENCE_FAILED",
        "resource.maka",
    )

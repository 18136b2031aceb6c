"""The controller-lease helper against a real ``maka-resource``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from maka_runtime_client import ConflictError, LeaseLostError, ResourceClient
from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from tests.support.processes import ServiceProcess

SESSION = "sdk-lease"


class LoseFirstControlAnswer(grpc.aio.UnaryUnaryClientInterceptor):
    """Lets the first ControlController reach the server, then loses its answer (UNAVAILABLE)."""

    def __init__(self) -> None:
        self.requests: list[pb.ControlControllerRequest] = []
        self.lost: list[pb.ControlControllerResponse] = []

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        call = await continuation(details, request)
        method = details.method.decode() if isinstance(details.method, bytes) else details.method
        if not method.endswith("/ControlController"):
            return call
        self.requests.append(request)
        if not self.lost:
            self.lost.append(await call)
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.UNAVAILABLE,
                grpc.aio.Metadata(),
                grpc.aio.Metadata(),
                details="answer lost on purpose",
            )
        return call


@pytest.fixture
async def resource(resource_server: ServiceProcess) -> AsyncIterator[ResourceClient]:
    async with ResourceClient(resource_server.address) as client:
        yield client


@pytest.fixture
async def pty_ref(resource: ResourceClient) -> AsyncIterator[str]:
    run = await resource.start_background(SESSION, "cat", pty=True, size=(80, 24))
    yield run.ref
    await resource.stop_run(SESSION, run.ref)


async def test_sequences_are_kept_for_the_caller(resource: ResourceClient, pty_ref: str) -> None:
    lease = await resource.acquire_controller(SESSION, pty_ref, "one")
    assert lease.next_sequence == 1
    assert lease.connection_id == await resource.connection_id()
    typed = await lease.send_input("hello\r")
    assert (typed.sequence, typed.input_bytes) == (1, 6)
    resized = await lease.resize(100, 30)
    assert resized.sequence == 2
    assert (resized.size.cols, resized.size.rows) == (100, 30)
    assert lease.next_sequence == 3

    # The same sequence with another payload is a conflict (and uses no sequence).
    lease.next_sequence = 2
    with pytest.raises(ConflictError):
        await lease.send_input("other")
    lease.next_sequence = 3
    assert (await lease.send_input("x")).sequence == 3

    assert await lease.release() is True
    assert await lease.release() is False
    with pytest.raises(LeaseLostError):
        await lease.send_input("after release")


async def test_a_lost_answer_is_retried_exactly(
    resource_server: ServiceProcess, resource: ResourceClient, pty_ref: str
) -> None:
    interceptor = LoseFirstControlAnswer()
    async with (
        ResourceClient(resource_server.address, interceptors=[interceptor]) as flaky,
        await flaky.acquire_controller(SESSION, pty_ref, "flaky") as lease,
    ):
        result = await lease.send_input("echo retried\r")
        assert len(interceptor.requests) == 2
        assert interceptor.requests[0] == interceptor.requests[1]
        assert result == interceptor.lost[0]
        assert result.sequence == 1
        assert lease.next_sequence == 2
        assert lease.pending is None
        assert (await lease.send_input("more")).sequence == 2


async def test_another_connection_is_refused_until_the_holder_closes(
    resource_server: ServiceProcess, pty_ref: str
) -> None:
    holder = ResourceClient(resource_server.address)
    other = ResourceClient(resource_server.address)
    try:
        lease = await holder.acquire_controller(SESSION, pty_ref, "holder")
        assert (await lease.send_input("a")).sequence == 1
        assert await holder.connection_id() != await other.connection_id()
        with pytest.raises(ConflictError) as caught:
            await other.acquire_controller(SESSION, pty_ref, "other")
        assert caught.value.reason == "OPERATION_CONFLICT"

        await holder.close()
        assert lease.lost
        taken = await other.acquire_controller(SESSION, pty_ref, "other")
        assert taken.next_sequence == 1
        assert (await taken.send_input("b")).sequence == 1
    finally:
        await holder.close()
        await other.close()

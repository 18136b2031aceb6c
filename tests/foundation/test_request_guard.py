"""The request guard on every shape of method, over a real in-process gRPC server: unary and
streaming requests, async-generator and ``context.write`` handlers. (The services' own RPCs are
covered in ``test_request_limits.py``; neither service has a client-streaming RPC.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2

from maka_runtime.common.request_guard import RequestGuard, RequestLimits
from maka_runtime.common.status import error_info

Request = health_pb2.HealthCheckRequest
Response = health_pb2.HealthCheckResponse
GOOD = Request(service="fine").SerializeToString()
BAD_UTF8 = b"\x0a\x02\xff\xfe"
TOO_LARGE = b"\x0a\x82\x08" + b"x" * 1026  # service: 1026 bytes, over a 1 KiB limit
SERVED = Response(status=Response.SERVING)


async def unary_unary(request: Any, context: Any) -> Any:
    return SERVED


async def unary_stream_generator(request: Any, context: Any) -> AsyncIterator[Any]:
    yield SERVED


async def unary_stream_writer(request: Any, context: Any) -> None:
    await context.write(SERVED)


async def stream_unary(requests: AsyncIterator[Any], context: Any) -> Any:
    async for _ in requests:
        pass
    return SERVED


async def stream_stream(requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
    async for _ in requests:
        yield SERVED


@pytest.fixture
async def address() -> AsyncIterator[str]:
    handlers = {
        "UnaryUnary": grpc.unary_unary_rpc_method_handler(
            unary_unary, Request.FromString, Response.SerializeToString
        ),
        "UnaryStreamGenerator": grpc.unary_stream_rpc_method_handler(
            unary_stream_generator, Request.FromString, Response.SerializeToString
        ),
        "UnaryStreamWriter": grpc.unary_stream_rpc_method_handler(
            unary_stream_writer, Request.FromString, Response.SerializeToString
        ),
        "StreamUnary": grpc.stream_unary_rpc_method_handler(
            stream_unary, Request.FromString, Response.SerializeToString
        ),
        "StreamStream": grpc.stream_stream_rpc_method_handler(
            stream_stream, Request.FromString, Response.SerializeToString
        ),
    }
    limits = RequestLimits(max_request_bytes=1024, max_transport_bytes=4096)
    server = grpc.aio.server(
        interceptors=[RequestGuard(limits, domain="test.maka")], options=limits.server_options()
    )
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("t.T", handlers)])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    yield f"127.0.0.1:{port}"
    await server.stop(None)


async def call(channel: grpc.aio.Channel, method: str, bodies: list[bytes]) -> list[bytes]:
    path = f"/t.T/{method}"  # no serializers: requests and answers are raw bytes
    if method == "UnaryUnary":
        unary_unary: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(path)
        return [await unary_unary(bodies[0], timeout=10)]
    if method.startswith("UnaryStream"):
        unary_stream: grpc.aio.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(path)
        return [item async for item in unary_stream(bodies[0], timeout=10)]
    if method == "StreamUnary":
        stream_unary: grpc.aio.StreamUnaryMultiCallable[bytes, bytes] = channel.stream_unary(path)
        return [await stream_unary(iter(bodies), timeout=10)]
    stream_stream: grpc.aio.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream(path)
    return [item async for item in stream_stream(iter(bodies), timeout=10)]


METHODS = ["UnaryUnary", "UnaryStreamGenerator", "UnaryStreamWriter", "StreamUnary", "StreamStream"]


@pytest.mark.parametrize("method", METHODS)
async def test_good_requests_pass(address: str, method: str) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        answers = await call(channel, method, [GOOD, GOOD])
    assert answers and all(Response.FromString(a) == SERVED for a in answers)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    ("body", "code", "reason"),
    [
        (TOO_LARGE, grpc.StatusCode.RESOURCE_EXHAUSTED, "REQUEST_TOO_LARGE"),
        (BAD_UTF8, grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_UNDECODABLE"),
    ],
)
async def test_refused_requests_keep_the_error_model(
    address: str, method: str, body: bytes, code: grpc.StatusCode, reason: str
) -> None:
    # On a request stream the bad message comes second, after a good one.
    bodies = [GOOD, body] if method.startswith("Stream") else [body]
    async with grpc.aio.insecure_channel(address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call(channel, method, bodies)
    assert refused.value.code() == code
    info = error_info(refused.value)
    assert info is not None and (info.reason, info.domain) == (reason, "test.maka")
    if reason == "REQUEST_TOO_LARGE":
        assert info.metadata["limit_bytes"] == "1024"
    else:
        assert info.metadata["message_type"] == "grpc.health.v1.HealthCheckRequest"
        assert "String field had bad UTF-8" in (refused.value.details() or "")

"""The request guard on every shape of method, over a real in-process gRPC server whose methods
go through the call pipeline: unary and streaming requests, async-generator and
``context.write`` handlers, generic and registered method handlers. (The services' own RPCs are
covered in ``test_request_limits.py``; neither service has a client-streaming RPC.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2

from maka_runtime.common.auth import Authenticator, Gate
from maka_runtime.common.pipeline import CallPipeline, Registrar
from maka_runtime.common.prometheus import ServiceMetrics
from maka_runtime.common.request_guard import RequestLimits
from maka_runtime.common.status import error_info
from tests.support import auth

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


def _handlers() -> dict[str, Any]:
    return {
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


LIMITS = RequestLimits(max_request_bytes=1024, max_transport_bytes=4096)


def pipeline(tmp_path: Any) -> CallPipeline:
    """The pipeline as the services build it, accepting the suite's credential."""
    authenticator = Authenticator(tmp_path, auth.TOKEN_FILE, local=False)
    authenticator.open()
    gate = Gate(authenticator, "test.maka")
    return CallPipeline(ServiceMetrics("test", tmp_path), gate, LIMITS, "test.maka")


@pytest.fixture(params=["generic", "registered"])
async def address(request: pytest.FixtureRequest, tmp_path: Any) -> AsyncIterator[str]:
    server = grpc.aio.server(options=LIMITS.server_options())
    registrar = Registrar(server, pipeline(tmp_path))
    if request.param == "generic":
        registrar.add_generic_rpc_handlers(
            [grpc.method_handlers_generic_handler("t.T", _handlers())]
        )
    else:
        registrar.add_registered_method_handlers("t.T", _handlers())
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


@pytest.mark.parametrize("method", METHODS)
async def test_an_anonymous_call_is_refused_before_its_request_is_decoded(
    address: str, method: str
) -> None:
    # Undecodable bytes without a credential: the answer is about the credential, never the
    # bytes (an anonymous caller learns nothing from the guard).
    async with auth.bare_aio_channel(address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call(channel, method, [BAD_UTF8])
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    info = error_info(refused.value)
    assert info is not None and info.reason == "UNAUTHENTICATED"


async def test_each_method_is_wrapped_once_at_registration_not_per_call(tmp_path: Any) -> None:
    built = pipeline(tmp_path)
    wraps: list[str] = []
    original = built.wrap

    def counting(method: str, handler: Any) -> Any:
        wraps.append(method)
        return original(method, handler)

    built.wrap = counting  # type: ignore[method-assign]
    server = grpc.aio.server(options=LIMITS.server_options())
    Registrar(server, built).add_generic_rpc_handlers(
        [grpc.method_handlers_generic_handler("t.T", _handlers())]
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            for _ in range(5):
                assert await call(channel, "UnaryUnary", [GOOD])
    finally:
        await server.stop(None)
    assert wraps == ["/t.T/UnaryUnary"]


async def test_every_call_is_counted_with_its_code_refused_ones_too(tmp_path: Any) -> None:
    built = pipeline(tmp_path)
    metrics = built.metrics
    assert isinstance(metrics, ServiceMetrics)
    server = grpc.aio.server(options=LIMITS.server_options())
    Registrar(server, built).add_registered_method_handlers("t.T", _handlers())
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    target = f"127.0.0.1:{port}"
    try:
        async with grpc.aio.insecure_channel(target) as channel:
            await call(channel, "UnaryStreamGenerator", [GOOD])
            with pytest.raises(grpc.aio.AioRpcError):
                await call(channel, "UnaryUnary", [BAD_UTF8])
        async with auth.bare_aio_channel(target) as channel:
            with pytest.raises(grpc.aio.AioRpcError):
                await call(channel, "UnaryUnary", [GOOD])
    finally:
        # A refusal's status reaches the client before its handler has unwound (and counted
        # it): a grace lets every handler finish before the counts are read.
        await server.stop(5)

    def handled(method: str, code: str) -> float | None:
        return metrics.registry.get_sample_value(
            "maka_grpc_server_handled_total",
            {"grpc_service": "t.T", "grpc_method": method, "grpc_code": code},
        )

    assert handled("UnaryStreamGenerator", "OK") == 1
    assert handled("UnaryUnary", "INVALID_ARGUMENT") == 1
    assert handled("UnaryUnary", "UNAUTHENTICATED") == 1

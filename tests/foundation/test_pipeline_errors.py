"""The call pipeline applies a unary method's error mapping itself: the method runs without its
:meth:`~maka_runtime.common.status.ErrorMapping.unary` wrapper's coroutine in between, with the
same statuses, over a real in-process gRPC server."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2
from maka_runtime_proto.common.v1 import errors_pb2

from maka_runtime.common.pipeline import Registrar
from maka_runtime.common.status import ErrorMapping, error_info
from tests.foundation.test_request_guard import LIMITS, pipeline

Request = health_pb2.HealthCheckRequest
Response = health_pb2.HealthCheckResponse
SERVED = Response(status=Response.SERVING)
NOT_SERVING = Response(status=Response.NOT_SERVING)


class Refused(Exception):
    pass


def _describe(error: Exception, fields: Mapping[str, str]) -> tuple[str, Mapping[str, str]]:
    return str(error), {"field": fields.get("what", "what")}


MAPPING = ErrorMapping(
    service="test",
    domain="test.maka",
    rules=[(Refused, grpc.StatusCode.FAILED_PRECONDITION, errors_pb2.ERROR_REASON_SESSION_BUSY)],
    describe=_describe,
    log=logging.getLogger("test.pipeline"),
)


def counted(calls: list[str]) -> Callable[[Any], Any]:
    """A decorator outside the mapping's, which must not be skipped."""

    def wrap(method: Any) -> Any:
        @functools.wraps(method)
        async def outer(self: Any, request: Any, context: Any) -> Any:
            calls.append(method.__name__)
            return await method(self, request, context)

        return outer

    return wrap


OUTER_CALLS: list[str] = []


def _awaiting_code_names() -> list[str]:
    frame = sys._getframe(1)
    names = []
    while frame is not None:
        names.append(f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}")
        frame = frame.f_back  # type: ignore[assignment]
    return names


class Servicer:
    def __init__(self) -> None:
        self.chains: list[list[str]] = []

    @MAPPING.unary({"what": "service"})
    async def Serve(self, request: Any, context: Any) -> Any:
        self.chains.append(_awaiting_code_names())
        if request.service == "refuse":
            raise Refused("refused on purpose")
        if request.service == "break":
            raise RuntimeError("secret detail")
        return SERVED

    @MAPPING.unary()
    async def Serialized(self, request: Any, context: Any) -> Any:
        """An answer kept serialized is sent as it is; a message is serialized as usual."""
        if request.service == "bytes":
            return NOT_SERVING.SerializeToString()
        return SERVED

    @counted(OUTER_CALLS)
    @MAPPING.unary()
    async def Counted(self, request: Any, context: Any) -> Any:
        self.chains.append(_awaiting_code_names())
        return SERVED


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[str, Servicer]]:
    servicer = Servicer()
    server = grpc.aio.server(options=LIMITS.server_options())
    handlers = {
        name: grpc.unary_unary_rpc_method_handler(
            getattr(servicer, name), Request.FromString, Response.SerializeToString
        )
        for name in ("Serve", "Serialized", "Counted")
    }
    Registrar(server, pipeline(tmp_path)).add_registered_method_handlers("t.T", handlers)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    yield f"127.0.0.1:{port}", servicer
    await server.stop(None)


async def _call(address: str, method: str, service: str) -> Any:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = channel.unary_unary(
            f"/t.T/{method}",
            request_serializer=Request.SerializeToString,
            response_deserializer=Response.FromString,
        )
        return await stub(Request(service=service), timeout=10)


async def test_the_pipeline_runs_a_mapped_method_without_its_wrapper(
    served: tuple[str, Servicer],
) -> None:
    address, servicer = served
    assert await _call(address, "Serve", "fine") == SERVED
    (chain,) = servicer.chains
    assert chain[0] == "test_pipeline_errors.py:Serve"
    assert "pipeline.py:unary" in chain[:3]
    assert not [name for name in chain if name.startswith("status.py:")], chain


async def test_a_unary_answer_may_be_handed_over_serialized(
    served: tuple[str, Servicer],
) -> None:
    address, _ = served
    assert await _call(address, "Serialized", "bytes") == NOT_SERVING
    assert await _call(address, "Serialized", "message") == SERVED


async def test_a_mapped_error_keeps_its_status(served: tuple[str, Servicer]) -> None:
    address, _ = served
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await _call(address, "Serve", "refuse")
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert refused.value.details() == "refused on purpose"
    info = error_info(refused.value)
    assert info is not None and info.reason == "SESSION_BUSY"
    assert info.domain == "test.maka" and info.metadata["field"] == "service"


async def test_an_unnamed_error_is_internal_and_hidden(served: tuple[str, Servicer]) -> None:
    address, _ = served
    with pytest.raises(grpc.aio.AioRpcError) as failed:
        await _call(address, "Serve", "break")
    assert failed.value.code() == grpc.StatusCode.INTERNAL
    assert "secret detail" not in (failed.value.details() or "")
    info = error_info(failed.value)
    assert info is not None and info.reason == "INTERNAL_FAILURE"


async def test_a_decorator_outside_the_mapping_is_not_skipped(
    served: tuple[str, Servicer],
) -> None:
    address, servicer = served
    OUTER_CALLS.clear()
    assert await _call(address, "Counted", "fine") == SERVED
    assert OUTER_CALLS == ["Counted"]
    (chain,) = servicer.chains
    assert "status.py:handler" in chain  # the whole decorated method ran, wrapper and all


class Waiting:
    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.left = asyncio.Event()

    async def Wait(self, request: Any, context: Any) -> Any:
        self.entered.set()
        try:
            await asyncio.get_running_loop().create_future()  # never answers
        finally:
            self.left.set()


@pytest.mark.parametrize("ends", ["deadline", "cancel"])
async def test_a_call_cut_short_is_counted_with_what_its_client_saw(
    tmp_path: Path, ends: str
) -> None:
    waiting = Waiting()
    built = pipeline(tmp_path)
    server = grpc.aio.server(options=LIMITS.server_options())
    handler = grpc.unary_unary_rpc_method_handler(
        waiting.Wait, Request.FromString, Response.SerializeToString
    )
    Registrar(server, built).add_registered_method_handlers("t.T", {"Wait": handler})
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = channel.unary_unary(
                "/t.T/Wait",
                request_serializer=Request.SerializeToString,
                response_deserializer=Response.FromString,
            )
            call = stub(Request(), timeout=0.3 if ends == "deadline" else 30)
            if ends == "cancel":
                await asyncio.wait_for(waiting.entered.wait(), 10)
                call.cancel()
            with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
                await call
            await asyncio.wait_for(waiting.left.wait(), 10)
    finally:
        await server.stop(None)
    code = "DEADLINE_EXCEEDED" if ends == "deadline" else "CANCELLED"
    value = built.metrics.registry.get_sample_value(  # type: ignore[attr-defined]
        "maka_grpc_server_handled_total",
        {"grpc_service": "t.T", "grpc_method": "Wait", "grpc_code": code},
    )
    assert value == 1

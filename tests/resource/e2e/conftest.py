"""A real ``maka-resource`` server on 127.0.0.1:0, in this process, and real channels.

The harness assembles the server the way ``maka_common.server.serve`` does (service, health,
reflection, the drain-then-stop tail) minus the process-wide signal handlers, so a test can look
at the service's counters the way the spec's fixture does. Tests that need a separate process
(kill -9, SIGTERM, a second owner) start ``maka-resource`` itself.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from maka.resource.v1 import resource_pb2 as pb
from maka.resource.v1 import resource_pb2_grpc

from maka_common.config import CommonConfig
from maka_common.reflection import enable_reflection
from maka_common.server import HEALTH_SERVICE_NAME, ServerHost
from maka_common.status import error_info
from resource_service.core import ShellRunConfig
from resource_service.server import SERVICE_NAME, ResourceConfig, ResourceService

E2E_CONFIG = ShellRunConfig(termination_grace=0.3, kill_timeout=5.0, output_drain_timeout=1.0)
SESSION_ID = "real-resource-session"


@dataclass
class Server:
    """A serving ``maka-resource`` and what a test may look at."""

    service: ResourceService
    host: ServerHost
    server: grpc.aio.Server
    address: str
    data_dir: Path
    stopped: asyncio.Event = field(default_factory=asyncio.Event)
    _stopper: asyncio.Task[None] | None = None
    channels: list[grpc.aio.Channel] = field(default_factory=list)

    def channel(self) -> grpc.aio.Channel:
        """A new channel: its own HTTP/2 connection to the server."""
        channel = grpc.aio.insecure_channel(self.address)
        self.channels.append(channel)
        return channel

    def stub(self, channel: grpc.aio.Channel | None = None) -> Any:
        return resource_pb2_grpc.ResourceServiceStub(channel or self.channel())

    @property
    def coordinator(self) -> Any:
        return self.service._coordinator

    @property
    def residencies(self) -> int:
        return self.service._residencies.active

    @property
    def failed(self) -> bool:
        return self.service._failed

    async def _stop_when_drained(self) -> None:
        # The tail of maka_common.server.serve: after a drain, stop the server, then close.
        await self.host.wait_drained()
        await self.server.stop(2.0)
        await self.service.close()
        self.stopped.set()


async def start_server(data_dir: Path, shell: ShellRunConfig = E2E_CONFIG) -> Server:
    common = CommonConfig(
        service="resource",
        listen="127.0.0.1:0",
        data_dir=data_dir,
        log_level="info",
        shutdown_grace=10.0,
    )
    service = ResourceService(ResourceConfig(common=common, shell=shell))
    host = ServerHost(common, service)
    await service.open(host)
    server = grpc.aio.server()
    service.register(server)
    health_pb2_grpc.add_HealthServicer_to_server(host.health, server)
    enable_reflection(server, (SERVICE_NAME, HEALTH_SERVICE_NAME))
    port = server.add_insecure_port("127.0.0.1:0")
    host.listen_address = f"127.0.0.1:{port}"
    await server.start()
    await host.set_serving(True)
    running = Server(service, host, server, host.listen_address, data_dir)
    running._stopper = asyncio.get_running_loop().create_task(running._stop_when_drained())
    return running


async def stop_server(running: Server) -> None:
    for channel in running.channels:
        await channel.close()
    if not running.stopped.is_set():
        running.host.shutdown("test teardown")
        await running.stopped.wait()
    assert running._stopper is not None
    await running._stopper


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    running = await start_server(tmp_path / "data")
    try:
        yield running
    finally:
        await stop_server(running)


async def open_connection(stub: Any, name: str) -> tuple[str, Any]:
    """OpenConnection: the connection id and the call that keeps the connection open."""
    call = stub.OpenConnection(pb.OpenConnectionRequest(client_name=name))
    first = await call.read()
    return first.connection_id, call


async def wait_until_ended(stub: Any, ref: str, session_id: str = SESSION_ID) -> pb.Run:
    """Attach (without a controller) and wait for the ``ended`` event."""
    call = stub.Attach()
    await call.write(pb.AttachRequest(start=pb.AttachStart(session_id=session_id, ref=ref)))
    await call.done_writing()
    async for response in call:
        if response.WhichOneof("event") == "ended":
            ended: pb.Run = response.ended
            return ended
    raise AssertionError(f"attach to {ref} ended without an ended event")


async def health_status(channel: grpc.aio.Channel) -> int:
    reply = await health_pb2_grpc.HealthStub(channel).Check(
        health_pb2.HealthCheckRequest(service=SERVICE_NAME)
    )
    return int(reply.status)


def reason_of(error: grpc.RpcError) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    info = error_info(error)
    assert info is not None, f"no ErrorInfo on {error!r}"
    assert info.domain == "resource.maka"
    return error.code(), info.reason, dict(info.metadata)


@contextlib.asynccontextmanager
async def raises_status(code: grpc.StatusCode, reason: str) -> AsyncIterator[dict[str, Any]]:
    """Expect the block to fail with *code* and ErrorInfo *reason*; yields the details."""
    details: dict[str, Any] = {}
    try:
        yield details
    except grpc.aio.AioRpcError as error:
        got_code, got_reason, metadata = reason_of(error)
        assert (got_code, got_reason) == (code, reason), error.details()
        details.update(metadata=metadata, message=error.details())
    else:
        raise AssertionError(f"expected {code.name}/{reason}")


async def read_output_until(stub: Any, ref: str, needle: bytes) -> bytes:
    """Attach (without a controller) and read output until *needle* has appeared."""
    call = stub.Attach()
    await call.write(pb.AttachRequest(start=pb.AttachStart(session_id=SESSION_ID, ref=ref)))
    seen: bytes = b""
    try:
        while (event := await call.read()) is not grpc.aio.EOF:
            if event.WhichOneof("event") == "output":
                data: bytes = event.output.data
                seen += data
                if needle in seen:
                    return seen
    finally:
        call.cancel()
    raise AssertionError(f"{ref} ended without printing {needle!r}: {seen[-300:]!r}")

"""A real ``maka-resource`` server on 127.0.0.1:0, in this process, and real channels.

The server runs through ``maka_runtime.common.server.serve`` itself, the path ``maka-resource``
takes (health, reflection, drain, stop, close), only without the process-wide signal handlers, by
the one in-process harness both services use (:mod:`tests.support.inprocess`), so a test can look
at the service's counters the way the spec's fixture does. Tests that need a
separate process (kill -9, SIGTERM, a second owner) start ``maka-resource`` itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc

from maka_runtime.common.config import CommonConfig
from maka_runtime.common.server import ServerHost
from maka_runtime.common.status import error_info
from maka_runtime.resource.core import ResourceHost, RunSupervisor, SessionDirectory, ShellRunConfig
from maka_runtime.resource.server import SERVICE_NAME, ResourceConfig, ResourceService
from tests.support import auth
from tests.support.inprocess import serve_in_process
from tests.support.sandbox import TEST_SANDBOX

E2E_CONFIG = ShellRunConfig(
    termination_grace=0.3, kill_timeout=5.0, output_drain_timeout=1.0, sandbox=TEST_SANDBOX
)
SESSION_ID = "real-resource-session"


class _Unexpected(logging.Handler):
    """Collects the "unexpected error" records of the API's status mapping."""

    logger = logging.getLogger("maka.resource.api")

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@dataclass
class Server:
    """A serving ``maka-resource`` and what a test may look at."""

    service: ResourceService
    host: ServerHost
    address: str
    data_dir: Path
    #: ``serve()`` itself; its result is the exit code ``maka-resource`` would exit with.
    serving: asyncio.Task[int]
    stopped: asyncio.Event = field(default_factory=asyncio.Event)
    channels: list[grpc.aio.Channel] = field(default_factory=list)
    #: Calls that failed with an exception the service did not expect (a bug, logged by the
    #: status mapping as INTERNAL): :func:`stop_server` fails the test if there are any.
    unexpected: _Unexpected = field(default_factory=_Unexpected)

    def channel(self) -> grpc.aio.Channel:
        """A new channel with its own TCP (HTTP/2) connection to the server: without a local
        subchannel pool, gRPC would share one connection between channels to one address."""
        channel = grpc.aio.insecure_channel(
            self.address, options=[("grpc.use_local_subchannel_pool", 1)]
        )
        self.channels.append(channel)
        return channel

    def stub(self, channel: grpc.aio.Channel | None = None) -> Any:
        return resource_pb2_grpc.ResourceServiceStub(channel or self.channel())

    @property
    def coordinator(self) -> Any:
        """The service's resource host (the core's façade), seen with its supervisor as
        ``manager``: the names the spec scenarios use."""
        return _SpecView(self.service.resources, self.service.supervisor)

    @property
    def residencies(self) -> int:
        return self.service.active_residencies

    @property
    def failed(self) -> bool:
        return self.service.failed


class _SpecView:
    """The resource host under the spec's names: itself, and its supervisor as ``manager``."""

    def __init__(self, resources: ResourceHost, supervisor: RunSupervisor) -> None:
        self._resources = resources
        self.manager = supervisor

    def __getattr__(self, name: str) -> Any:
        return getattr(self._resources, name)


async def start_server(
    data_dir: Path,
    shell: ShellRunConfig = E2E_CONFIG,
    *,
    sessions: SessionDirectory | None = None,
    shutdown_grace: float = 10.0,
    standalone: bool = True,
) -> Server:
    """Serve with *sessions*, or else the session registry in the store: standalone (any
    session id, as most tests use) unless *standalone* is false (kernel mode)."""
    common = CommonConfig(
        service="resource",
        listen="127.0.0.1:0",
        data_dir=data_dir,
        log_level="info",
        shutdown_grace=shutdown_grace,
        token_file=auth.TOKEN_FILE,
    )
    config = ResourceConfig(common=common, shell=shell, standalone=standalone)
    service = ResourceService(config, sessions=sessions)
    inprocess = await serve_in_process(common, service)
    running = Server(service, inprocess.host, inprocess.address, data_dir, inprocess.serving)
    running.stopped = inprocess.stopped
    _Unexpected.logger.addHandler(running.unexpected)
    return running


async def stop_server(running: Server) -> int:
    """Shut the server down (if it is not already) and return ``serve()``'s exit code."""
    for channel in running.channels:
        await channel.close()
    if not running.serving.done():
        running.host.shutdown("test teardown")
    try:
        code = await running.serving
    finally:
        _Unexpected.logger.removeHandler(running.unexpected)
    assert code == 0
    unexpected = [logging.Formatter().format(record) for record in running.unexpected.records]
    assert not unexpected, "calls failed unexpectedly:\n" + "\n".join(unexpected)
    return code


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

"""A real ``maka-kernel`` server on 127.0.0.1:0, in this process, and real channels.

The server is ``maka_runtime.common.server.serve`` itself, through the one in-process harness both
services use (:mod:`tests.support.inprocess`), so a test can register the spec's
fault-injecting backend in the service's registry. Tests that need a separate process
(kill -9, SIGTERM) start ``maka-kernel`` itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc

from maka_runtime.common.config import CommonConfig
from maka_runtime.common.server import ServerHost
from maka_runtime.common.status import error_info
from maka_runtime.common.storage_root import resolve_storage_root, try_acquire_root_owner
from maka_runtime.kernel.core import RuntimeKernel
from maka_runtime.kernel.server import KernelConfig, KernelService
from maka_runtime.kernel.store.sqlite import SqliteSessionStore
from tests.support import auth
from tests.support.inprocess import InProcess, serve_in_process

WORKSPACE = "/tmp/maka-kernel-e2e"
# Sessions need a workspace root that exists.
os.makedirs(WORKSPACE, exist_ok=True)


@dataclass
class Server:
    """A serving ``maka-kernel`` (the shared in-process harness) and what a test may look at."""

    service: KernelService
    running: InProcess
    data_dir: Path

    @property
    def host(self) -> ServerHost:
        return self.running.host

    @property
    def address(self) -> str:
        return self.running.address

    @property
    def stopped(self) -> asyncio.Event:
        return self.running.stopped

    def channel(self) -> grpc.aio.Channel:
        """A new channel: its own HTTP/2 connection to the server."""
        return self.running.channel()

    def stub(self, channel: grpc.aio.Channel | None = None) -> Any:
        return kernel_pb2_grpc.KernelServiceStub(channel or self.channel())

    @property
    def kernel(self) -> RuntimeKernel:
        assert self.service.kernel is not None
        return self.service.kernel


async def start_server(
    data_dir: Path,
    *,
    shutdown_grace: float = 5.0,
    answer_timeout: float | None = None,
    **settings: Any,
) -> Server:
    common = CommonConfig(
        service="kernel",
        listen="127.0.0.1:0",
        data_dir=data_dir,
        log_level="info",
        shutdown_grace=shutdown_grace,
        token_file=auth.TOKEN_FILE,
    )
    # A kernel on its own: scripted sessions by default, no resource service to shut down.
    config = KernelConfig(
        common=common,
        resource_address="127.0.0.1:1",
        answer_timeout=answer_timeout,
        default_backend="scripted",
        shutdown_resource=False,
        **settings,
    )
    service = KernelService(config)
    return Server(service, await serve_in_process(common, service), data_dir)


async def stop_server(running: Server) -> None:
    assert await running.running.stop() == 0


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    running = await start_server(tmp_path / "data")
    try:
        yield running
    finally:
        await stop_server(running)


async def create_session(stub: Any, **fields: Any) -> pb.Session:
    fields.setdefault("workspace_root", WORKSPACE)
    response = await stub.CreateSession(pb.CreateSessionRequest(**fields))
    session: pb.Session = response.session
    return session


def kind(event: pb.SessionEvent) -> str:
    return event.WhichOneof("event") or ""


async def read_until(call: Any, wanted: str) -> list[pb.SessionEvent]:
    """Read a StartTurn/WatchSession stream until an event of kind *wanted* (a sentinel)."""
    seen = []
    async for response in call:
        seen.append(response.event)
        if kind(response.event) == wanted:
            return seen
    pytest.fail(f"stream ended before {wanted}: {[kind(e) for e in seen]}")


async def failure(call: Any) -> grpc.aio.AioRpcError:
    """The error a call ends with (awaits unary calls, drains streams)."""
    try:
        if hasattr(call, "__aiter__"):
            async for _ in call:
                pass
        else:
            await call
    except grpc.aio.AioRpcError as error:
        return error
    pytest.fail("expected the call to fail")


def reason(error: grpc.aio.AioRpcError) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    info = error_info(error)
    assert info is not None, f"no ErrorInfo on {error.code()}: {error.details()}"
    assert info.domain == "kernel.maka"
    return error.code(), info.reason, dict(info.metadata)


def _dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        return {table: sorted(conn.execute(f"SELECT * FROM {table}"), key=repr) for table in tables}
    finally:
        conn.close()


async def database(server: Server) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the server's session database, read by a separate
    read-only connection: what is committed, whatever the kernel holds in memory."""
    store = server.service.store
    assert store is not None
    return await asyncio.to_thread(_dump, store.path)


@contextlib.asynccontextmanager
async def reopened_store(data_dir: Path) -> AsyncIterator[SqliteSessionStore]:
    """The session store a stopped server left in *data_dir*, opened by a new owner."""
    root = resolve_storage_root(data_dir / "kernel", "kernel")
    owner = try_acquire_root_owner(root)
    assert owner is not None, "the data directory is still owned"
    try:
        store = await SqliteSessionStore.open(owner.lease)
        try:
            yield store
        finally:
            await store.close()
    finally:
        owner.close()

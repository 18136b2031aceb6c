"""The keepalive policy (``maka_runtime_client.keepalive``) with its intervals shrunk: a client
pinging at the policy's rate keeps an idle stream up against a server built with the policy, where
gRPC's default server policy answers GOAWAY ``too_many_pings``. The same policy at full scale
is held for six idle minutes by ``tests/integration/test_idle_connections.py`` (slow)."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from maka_runtime_client.aio import ClientOptions
from maka_runtime_client.keepalive import (
    KEEPALIVE,
    LINK_MIN_PING_INTERVAL_MS,
    RESOURCE_SERVER,
    KeepalivePolicy,
    link_policy,
)

from maka_runtime.common.server import server_options
from maka_runtime.resource.server import ResourceService

ROOT = Path(__file__).resolve().parents[2]
#: The policy 30 times faster: pings every second (gRPC's shortest keepalive interval).
FAST = KeepalivePolicy(ping_interval_ms=1000, ping_timeout_ms=5_000)
#: A default gRPC server sends GOAWAY at the third early ping; the policy holds twice as many.
PINGS = 6


class HealthServer:
    def __init__(self, server: grpc.aio.Server, servicer: health.aio.HealthServicer, port: int):
        self.server, self.servicer, self.address = server, servicer, f"127.0.0.1:{port}"


async def start_health_server(options: Sequence[tuple[str, Any]]) -> HealthServer:
    server = grpc.aio.server(options=list(options))
    servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    await servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    return HealthServer(server, servicer, port)


@pytest.fixture
async def policy_server() -> AsyncIterator[HealthServer]:
    started = await start_health_server(server_options(FAST))
    yield started
    await started.server.stop(None)


@pytest.fixture
async def default_server() -> AsyncIterator[HealthServer]:
    started = await start_health_server([("grpc.so_reuseport", 0)])
    yield started
    await started.server.stop(None)


async def idle_watch(
    address: str, policy: KeepalivePolicy, seconds: float
) -> tuple[grpc.aio.Channel, Any]:
    """A health Watch on a channel with *policy*, left idle for up to *seconds*.

    Returns the channel and either the pending read of the next change (the stream is still
    open) or the error the stream ended with.
    """
    channel = grpc.aio.insecure_channel(address, options=list(policy.client_options()))
    call = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(service=""))
    first = await call.read()
    assert first.status == health_pb2.HealthCheckResponse.SERVING
    reader = asyncio.ensure_future(call.read())
    done, _ = await asyncio.wait({reader}, timeout=seconds)
    if not done:
        return channel, reader
    error = reader.exception()
    await channel.close()
    assert isinstance(error, grpc.aio.AioRpcError), f"the watch yielded {reader.result()}"
    return channel, error


async def test_an_idle_stream_survives_many_pings_under_the_policy(
    policy_server: HealthServer,
) -> None:
    idle = PINGS * FAST.ping_interval_ms / 1000 + 0.5
    channel, reader = await idle_watch(policy_server.address, FAST, idle)
    assert not isinstance(reader, grpc.aio.AioRpcError), reader
    # The stream carries on: a change made after the idle period arrives on it.
    await policy_server.servicer.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    changed = await asyncio.wait_for(reader, 10)
    assert changed.status == health_pb2.HealthCheckResponse.NOT_SERVING
    await channel.close()


async def test_the_same_pings_get_goaway_from_a_default_grpc_server(
    default_server: HealthServer,
) -> None:
    """Without the server side of the policy the very same client is cut off: the failure the
    policy fixes, and proof that the client really pings."""
    # It happens after about three pings; waiting longer only costs time when the test fails.
    _, outcome = await idle_watch(default_server.address, FAST, 4 * PINGS)
    assert isinstance(outcome, grpc.aio.AioRpcError), "a default server let early pings pass"
    assert outcome.code() == grpc.StatusCode.UNAVAILABLE
    assert "too many pings" in (outcome.details() or "").lower()


def test_the_policy_values_fit_together() -> None:
    # The server accepts pings well below the client's interval: a compliant client is never
    # struck, even when its timer fires early.
    assert KEEPALIVE.min_ping_interval_ms * 2 < KEEPALIVE.ping_interval_ms
    assert KEEPALIVE.ping_interval_ms == 30_000 and KEEPALIVE.ping_timeout_ms == 20_000
    assert KEEPALIVE.min_ping_interval_ms == 10_000
    assert KEEPALIVE.server_ping_interval_ms == 120_000
    server = dict(server_options())
    assert server["grpc.keepalive_permit_without_calls"] == 1
    assert server["grpc.http2.min_ping_interval_without_data_ms"] == 10_000
    assert server["grpc.http2.max_ping_strikes"] == 2
    assert server["grpc.keepalive_time_ms"] == 120_000
    assert server["grpc.keepalive_timeout_ms"] == 20_000
    client = dict(KEEPALIVE.client_options())
    assert client["grpc.keepalive_time_ms"] == 30_000
    assert client["grpc.keepalive_permit_without_calls"] == 1
    assert client["grpc.http2.max_pings_without_data"] == 0
    assert ClientOptions().keepalive == KEEPALIVE


def test_go_and_node_clients_use_the_policy_values() -> None:
    """The Go and Node clients cannot import the Python policy; they state the same values."""
    go = "".join(
        (ROOT / "clients" / "go" / "maka" / name).read_text()
        for name in ("client.go", "credentials.go")
    )
    seconds = {
        "Time": KEEPALIVE.ping_interval_ms // 1000,
        "Timeout": KEEPALIVE.ping_timeout_ms // 1000,
    }
    for name, value in seconds.items():
        assert re.search(rf"\b{name}:\s+{value} \* time\.Second", go), name
    assert re.search(r"PermitWithoutStream:\s+true", go)
    assert "grpc.WithKeepaliveParams(Keepalive)" in go
    node = (ROOT / "clients" / "node" / "index.js").read_text()
    millis = {
        "grpc.keepalive_time_ms": KEEPALIVE.ping_interval_ms,
        "grpc.keepalive_timeout_ms": KEEPALIVE.ping_timeout_ms,
        "grpc.keepalive_permit_without_calls": 1,
    }
    for name, value in millis.items():
        assert re.search(rf"'{re.escape(name)}': {value:_}\b|'{re.escape(name)}': {value}\b", node)
    # Both stubs of connect() get the same settings, which start from the policy.
    assert re.search(r"const settings = \{ \.\.\.KEEPALIVE_OPTIONS,", node)
    assert node.count("new KernelService(kernelAddress, credentials, settings)") == 1
    assert node.count("new ResourceService(resourceAddress, credentials, settings)") == 1


# A client whose pings a default server refuses: gRPC logs the GOAWAY it receives.
_GOAWAY_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    if sys.argv[1] == "cli":
        import maka_runtime_client.cli  # the command line's entry point
    import grpc
    from grpc_health.v1 import health, health_pb2, health_pb2_grpc
    from maka_runtime_client.keepalive import KeepalivePolicy

    async def main():
        server = grpc.aio.server()
        health_pb2_grpc.add_HealthServicer_to_server(health.aio.HealthServicer(), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        options = KeepalivePolicy(ping_interval_ms=1000).client_options()
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options) as channel:
            call = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest())
            await call.read()
            try:
                await asyncio.wait_for(call.read(), 20)
            except grpc.aio.AioRpcError as error:
                print("ended:", error.details())
        await server.stop(None)

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("entry", ["cli", "plain"])
def test_the_command_line_never_prints_grpc_log_lines(entry: str) -> None:
    env = {"PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", _GOAWAY_SCRIPT, entry],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "ended: Too many pings" in result.stdout, result
    grpc_lines = [line for line in result.stderr.splitlines() if "chttp2" in line]
    if entry == "cli":
        assert result.stderr == "", result.stderr
    else:
        # The control: the same program without the CLI's switch prints gRPC's GOAWAY lines.
        assert any("GOAWAY" in line for line in grpc_lines), result.stderr


@pytest.fixture
async def resource_policy_server() -> AsyncIterator[HealthServer]:
    started = await start_health_server(server_options(RESOURCE_SERVER))
    yield started
    await started.server.stop(None)


@pytest.fixture
async def shared_policy_server() -> AsyncIterator[HealthServer]:
    started = await start_health_server(server_options(KEEPALIVE))
    yield started
    await started.server.stop(None)


async def test_the_resource_service_accepts_the_kernel_links_fastest_pings(
    resource_policy_server: HealthServer,
) -> None:
    fastest = link_policy(0.1)
    assert fastest.ping_interval_ms == LINK_MIN_PING_INTERVAL_MS
    idle = PINGS * fastest.ping_interval_ms / 1000 + 0.5
    channel, reader = await idle_watch(resource_policy_server.address, fastest, idle)
    assert not isinstance(reader, grpc.aio.AioRpcError), reader
    reader.cancel()
    await channel.close()


async def test_the_kernel_links_pings_get_goaway_from_the_shared_server_policy(
    shared_policy_server: HealthServer,
) -> None:
    """The control: a server on the shared policy alone cuts the link's fast pings off."""
    _, outcome = await idle_watch(shared_policy_server.address, link_policy(0.1), 4 * PINGS)
    assert isinstance(outcome, grpc.aio.AioRpcError), "the shared policy let the link's pings pass"
    assert "too many pings" in (outcome.details() or "").lower()


def test_the_link_policy_finds_a_frozen_peer_within_the_resource_timeout() -> None:
    for seconds in (2, 10, 60, 600):
        policy = link_policy(seconds)
        assert policy.ping_interval_ms + policy.ping_timeout_ms <= seconds * 1000
        # The resource service accepts it; so would it an early timer by a third.
        assert RESOURCE_SERVER.min_ping_interval_ms * 3 <= policy.ping_interval_ms
    assert link_policy(10).ping_interval_ms == 5_000 and link_policy(10).ping_timeout_ms == 5_000
    # Apart from the link's pings, the resource service's policy is the shared one.
    assert RESOURCE_SERVER.ping_interval_ms == KEEPALIVE.ping_interval_ms
    assert RESOURCE_SERVER.server_ping_interval_ms == KEEPALIVE.server_ping_interval_ms
    assert dict(server_options(RESOURCE_SERVER))[
        "grpc.http2.min_ping_interval_without_data_ms"
    ] == (LINK_MIN_PING_INTERVAL_MS // 3)
    assert ResourceService.keepalive is RESOURCE_SERVER
    with pytest.raises(ValueError, match=r"accept the client.s own pings"):
        KeepalivePolicy(accept_ping_interval_ms=KEEPALIVE.ping_interval_ms)

"""The service pair as two real processes, started from their console entry points.

Each service gets its own data directory and a loopback port; the kernel reaches the resource
service only over gRPC (through a TCP proxy here, so a test can restart the resource service on
another port without restarting the kernel). Nothing is shared but the network.
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from maka_runtime_client.aio import KernelClient, ResourceClient
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb

from tests.sdk.proxy import Proxy
from tests.support.pids import alive, group_members
from tests.support.processes import ServiceProcess, spawn_service

#: The pid checks this package's tests import from here (the names this module defines are
#: public as well; only the re-exports need naming).
__all__ = ["alive", "group_members"]


@dataclass
class Pair:
    kernel: ServiceProcess
    resource: ServiceProcess
    proxy: Proxy
    kernel_dir: Path
    resource_dir: Path
    extra_kernel_args: tuple[str, ...] = ()

    def restart_resource(self) -> ServiceProcess:
        """Start the resource service again on its data directory (a new port)."""
        self.resource = spawn_service("resource", self.resource_dir)
        self.proxy.retarget(self.resource.wait_bound())
        return self.resource

    def stop(self) -> None:
        for process in (self.kernel, self.resource):
            if process.process.poll() is None:
                process.signal(signal.SIGTERM)
        for process in (self.kernel, self.resource):
            try:
                process.wait(20)
            except Exception:
                process.kill()


def start_pair(
    tmp: Path,
    *kernel_args: str,
    resource_args: tuple[str, ...] = (),
    kernel_env: dict[str, str] | None = None,
) -> Pair:
    kernel_dir, resource_dir = tmp / "kernel-data", tmp / "resource-data"
    kernel_dir.mkdir(exist_ok=True)
    resource_dir.mkdir(exist_ok=True)
    resource = spawn_service("resource", resource_dir, *resource_args)
    proxy = Proxy(resource.wait_bound())
    kernel = spawn_service(
        "kernel",
        kernel_dir,
        *("--default-backend", "shell", "--shutdown-resource", "yes"),
        *("--resource-address", proxy.address, "--shutdown-grace", "1"),
        *kernel_args,
        env=kernel_env,
    )
    kernel.wait_bound()
    return Pair(kernel, resource, proxy, kernel_dir, resource_dir, tuple(kernel_args))


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Pair]:
    started = start_pair(tmp_path)
    try:
        yield started
    finally:
        started.stop()
        started.proxy.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
async def kernel(pair: Pair) -> AsyncIterator[KernelClient]:
    async with KernelClient(pair.kernel.address) as client:
        yield client


@pytest.fixture
async def resource(pair: Pair) -> AsyncIterator[ResourceClient]:
    async with ResourceClient(pair.resource.address) as client:
        yield client


async def events_of(stream: object) -> list[kpb.SessionEvent]:
    return [event async for event in stream]  # type: ignore[attr-defined]


def kinds(events: list[kpb.SessionEvent]) -> list[str]:
    return [str(event.WhichOneof("event")) for event in events]


def first(events: list[kpb.SessionEvent], kind: str) -> kpb.SessionEvent:
    for event in events:
        if event.WhichOneof("event") == kind:
            return event
    raise AssertionError(f"no {kind} in {kinds(events)}")


def every(events: list[kpb.SessionEvent], kind: str) -> list[kpb.SessionEvent]:
    return [event for event in events if event.WhichOneof("event") == kind]

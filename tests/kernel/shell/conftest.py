"""Fixtures of the shell backend tests: a kernel in process, a real ``maka-resource`` process.

The kernel runs the shell backend (``shell_factory``) with a
:class:`~maka_runtime.kernel.resource_link.ResourceLink` to a ``maka-resource`` process in kernel
mode (the link registers each session before its first run). One resource process serves the
whole package; every test makes its own sessions, so nothing is shared but the process. A
separate :class:`~maka_runtime_client.aio.ResourceClient` inspects the runs, the way a client would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from maka_runtime_client.aio import ResourceClient
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb

from maka_runtime.kernel.backends.agent import SessionApprovals
from maka_runtime.kernel.backends.shell import KIND, ShellBackend, shell_factory
from maka_runtime.kernel.core import (
    BackendRegistry,
    SessionHeader,
    SessionStore,
    TurnStream,
)
from maka_runtime.kernel.core.log.events import SessionEvent, StoredMessage
from maka_runtime.kernel.core.tools import ToolHost
from maka_runtime.kernel.resource_link import ResourceLink
from tests.kernel.harness import Harness, build_harness
from tests.support.pids import alive, group_members
from tests.support.processes import ServiceProcess, running_service

#: The pid checks this package's tests import from here (the names this module defines are
#: public as well; only the re-exports need naming).
__all__ = ["alive", "group_members"]

#: The resource service's grace between SIGTERM and SIGKILL: a command that ignores SIGTERM
#: takes this long to stop, so a stop that returned before its processes were gone shows.
TERMINATION_GRACE = 0.5


@pytest.fixture(scope="package")
def resource_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    """One ``maka-resource`` (kernel mode, its own data directory) for the whole package."""
    data = tmp_path_factory.mktemp("resource-data")
    with running_service("resource", data, "--termination-grace", str(TERMINATION_GRACE)) as server:
        yield server


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@dataclass
class ShellHarness(Harness):
    """A kernel whose shell backend runs commands on *host*; *resource* inspects the runs."""

    host: ToolHost | None = None
    resource: ResourceClient | None = None
    #: Every shell backend the registry built, in order (one per session generation).
    built: list[ShellBackend] = field(default_factory=list)

    async def shell_session(self, workspace: Path, **fields: Any) -> SessionHeader:
        fields.setdefault("workspace_root", str(workspace))
        fields.setdefault("backend", KIND)
        return await self.session(**fields)

    async def log(self, session_id: str) -> list[StoredMessage]:
        return await self.kernel.read_messages(session_id)

    async def runs(self, session_id: str) -> list[rpb.Run]:
        assert self.resource is not None
        return list((await self.resource.list_runs(session_id)).runs)

    async def running_run(self, session_id: str) -> rpb.Run:
        """The session's first run once it runs (followed with WatchRuns: no polling)."""
        assert self.resource is not None
        watch = self.resource.watch_runs(session_id)
        try:
            async for run in watch:
                if run.status == rpb.RUN_STATUS_RUNNING:
                    return run
        finally:
            await watch.aclose()
        raise AssertionError("the watch ended before a run was running")


def make_shell_harness(
    store: SessionStore, host: ToolHost | None, resource: ResourceClient | None = None
) -> ShellHarness:
    backends = BackendRegistry()
    factory = shell_factory(host, SessionApprovals())
    built: list[ShellBackend] = []

    def build(header: SessionHeader) -> ShellBackend:
        backend = factory(header)
        built.append(backend)
        return backend

    backends.register(KIND, build)
    base = build_harness(store, backends, tool_host=host)
    return ShellHarness(
        base.kernel, store, base.interactions, base.messages, base.timers, host, resource, built
    )


@pytest.fixture
async def resource(resource_server: ServiceProcess) -> AsyncIterator[ResourceClient]:
    async with ResourceClient(resource_server.address) as client:
        yield client


@pytest.fixture
async def link(resource_server: ServiceProcess) -> AsyncIterator[ResourceLink]:
    link = ResourceLink(resource_server.address)
    yield link
    await link.close()


@pytest.fixture
async def shell(
    sqlite_store: SessionStore, link: ResourceLink, resource: ResourceClient
) -> AsyncIterator[ShellHarness]:
    """A kernel on SQLite whose shell backend runs commands on the real resource service."""
    h = make_shell_harness(sqlite_store, link, resource)
    yield h
    await h.close()


async def events_until(stream: TurnStream, event_type: str) -> list[SessionEvent]:
    seen = []
    async for event in stream:
        seen.append(event)
        if event.type == event_type:
            return seen
    pytest.fail(f"stream ended before a {event_type} event: {[e.type for e in seen]}")

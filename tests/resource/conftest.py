"""A real resource host for each test: storage root, SQLite store, manager, coordinator.

Grace periods are short so that tests which need SIGKILL stay fast; everything else (processes,
PTYs, SQLite files) is real.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from maka_runtime.common.storage_root import RootOwner, resolve_storage_root, try_acquire_root_owner
from maka_runtime.resource.core import (
    BashInput,
    ConnectionContext,
    ResourceHost,
    RunSupervisor,
    SessionAdmissionGate,
    ShellRunConfig,
    StandaloneSessionDirectory,
)
from maka_runtime.resource.core.sandbox import Sandbox
from maka_runtime.resource.core.sandbox.cgroups import RunCgroup
from maka_runtime.resource.store import SqliteShellRunStore
from tests.support.sandbox import TEST_SANDBOX

SESSION_ID = "real-resource-session"
HELPERS = Path(__file__).parent / "helpers"
PYTHON = sys.executable

TEST_CONFIG = ShellRunConfig(
    termination_grace=0.3, kill_timeout=5.0, output_drain_timeout=1.0, sandbox=TEST_SANDBOX
)


def helper(name: str, *args: str) -> str:
    """A shell command line running ``tests/resource/helpers/<name>``."""
    return " ".join([PYTHON, str(HELPERS / name), *args])


def bash_input(command: str, source_tool_call_id: str, **changes: object) -> BashInput:
    """The spec's ``bashInput``: a run in SESSION_ID from turn-1 in the current directory."""
    request = BashInput(
        session_id=SESSION_ID,
        source_turn_id="turn-1",
        source_tool_call_id=source_tool_call_id,
        cwd=os.getcwd(),
        command=command,
    )
    return dataclasses.replace(request, **changes)  # type: ignore[arg-type]


@dataclass
class _Residency:
    host: Host
    active: bool = True

    def release(self) -> None:
        if not self.active:
            return
        self.active = False
        self.host.active_residencies -= 1
        self.host.released_residencies += 1


@dataclass
class Host:
    """The spec's fixture: owner, writer, manager, coordinator and the two counters."""

    base: Path
    owner: RootOwner
    store: SqliteShellRunStore
    manager: RunSupervisor
    coordinator: ResourceHost
    sessions: StandaloneSessionDirectory
    active_residencies: int = 0
    released_residencies: int = 0
    drain_requests: list[str] = field(default_factory=list)

    def acquire_residency(self) -> _Residency:
        self.active_residencies += 1
        return _Residency(self)


async def open_host(
    base: Path,
    *,
    config: ShellRunConfig = TEST_CONFIG,
    admit_unknown: bool = True,
    sessions: StandaloneSessionDirectory | None = None,
) -> Host:
    root = resolve_storage_root(base / "interactive", "resource")
    owner = try_acquire_root_owner(root)
    assert owner is not None, "expected to own the storage root"
    store = await SqliteShellRunStore.open(owner.lease)
    if config.output_dir is None:
        config = dataclasses.replace(config, output_dir=str(root.path / "output"))
    manager = await RunSupervisor.open(store=store, config=config)
    if sessions is None:
        sessions = StandaloneSessionDirectory(admit_unknown=admit_unknown, default_cwd=str(base))
    host: Host
    coordinator = ResourceHost(
        supervisor=manager,
        admission=SessionAdmissionGate(sessions),
        acquire_residency=lambda: host.acquire_residency(),  # noqa: PLW0108 - bound later
        request_drain=lambda reason: host.drain_requests.append(reason),  # noqa: PLW0108
    )
    host = Host(base, owner, store, manager, coordinator, sessions)
    return host


async def close_host(host: Host) -> None:
    await host.coordinator.close()
    await host.manager.close()
    await host.store.close()
    host.owner.close()


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[Host]:
    opened = await open_host(tmp_path)
    try:
        yield opened
    finally:
        await close_host(opened)
        assert opened.manager.live_counts() == (0, 0)


@pytest.fixture
def cgroup() -> Iterator[RunCgroup]:
    """A fresh run cgroup under the service's own tree (as the service would make it).

    Skipped only on a host with no cgroup v2 tree this user may write (not root, no systemd
    delegation): the service itself contains runs by their process group there, so what needs
    a cgroup (the native spawner's start inside one, a cgroup's release) cannot happen and is
    not tested (README: Developing). CI runs as root and makes a missing tree a failure."""
    sandbox = Sandbox.open(TEST_SANDBOX)
    if sandbox.tree is None:
        why = (
            f"no cgroup v2 tree this user may write ({sandbox.capabilities.containment_reason}); "
            "runs here are contained by their process group, so nothing that needs a cgroup "
            "can be tested"
        )
        sandbox.close()
        if os.environ.get("MAKA_REQUIRE_TOOLCHAINS") == "1":
            pytest.fail(f"{why} (MAKA_REQUIRE_TOOLCHAINS=1)")
        pytest.skip(why)
    made = sandbox.tree.create(uuid.uuid4().hex, pids_max=None, memory_max=None)
    try:
        yield made
    finally:
        made.kill()
        made.remove()
        sandbox.close()


@pytest.fixture
def scratch_dir(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "scratch"
    path.mkdir()
    yield path


async def read_until(
    manager: RunSupervisor, ref: str, needle: bytes, *, session_id: str = SESSION_ID
) -> bytes:
    """Follow a live run's output until *needle* has appeared; returns everything read."""
    from maka_runtime.resource.core import OutputChunk

    seen = b""
    async for event in manager.follow_output(session_id, ref):
        if isinstance(event, OutputChunk):
            seen += event.data
            if needle in seen:
                return seen
    raise AssertionError(f"{ref} ended without printing {needle!r}; printed {seen[-500:]!r}")


def process_gone(pid: int) -> bool:
    """True if *pid* has exited (a zombie counts: it runs nothing)."""
    from maka_runtime.resource.core.process.procfs import read_stat

    stat = read_stat(pid)
    return stat is None or stat.zombie


FIRST_CONNECTION = ConnectionContext("connection-1")

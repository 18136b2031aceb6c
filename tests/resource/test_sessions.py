"""Sessions known to the host: the registry (kernel and standalone mode), the admission gate,
and archiving a session with live runs, on the domain core with real processes and SQLite."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from maka_runtime.common.storage_root import resolve_storage_root, try_acquire_root_owner
from maka_runtime.resource.core import (
    ControllerIdentity,
    InvalidRequestError,
    NotFoundError,
    PersistenceFailedError,
    ResourceHost,
    RunSupervisor,
    SessionAdmissionGate,
    SessionArchivedError,
    SessionInfo,
    SessionRegistry,
)
from maka_runtime.resource.store import SqliteShellRunStore
from tests.resource.conftest import FIRST_CONNECTION, TEST_CONFIG, bash_input, read_until

SESSION = "kernel-session"
OTHER = "other-session"


class RecordingStore:
    """A :class:`SessionStore` in memory that counts its writes; a save can be made to fail
    or to wait at a gate."""

    def __init__(self, entries: list[SessionInfo] | None = None) -> None:
        self.entries = {info.session_id: info for info in entries or []}
        self.saves: list[SessionInfo] = []
        self.fail: Exception | None = None
        self.gate: asyncio.Event | None = None
        self.saving = asyncio.Event()

    async def load_sessions(self) -> list[SessionInfo]:
        return list(self.entries.values())

    async def save_session(self, info: SessionInfo) -> None:
        self.saving.set()
        if self.gate is not None:
            await self.gate.wait()
        if self.fail is not None:
            raise self.fail
        self.saves.append(info)
        self.entries[info.session_id] = info


_ticks = itertools.count(1000)


def clock() -> int:
    return next(_ticks)


async def registry(
    store: RecordingStore | None = None, *, standalone: bool = False
) -> SessionRegistry:
    return await SessionRegistry.open(
        store or RecordingStore(), standalone=standalone, default_cwd="/home", now=clock
    )


async def test_kernel_mode_knows_only_registered_sessions_and_registering_again_writes_nothing(
    tmp_path: Path,
) -> None:
    store = RecordingStore()
    sessions = await registry(store)
    assert not sessions.standalone
    assert await sessions.lookup(SESSION) is None

    assert await sessions.register_session(SESSION, cwd=str(tmp_path))
    info = await sessions.lookup(SESSION)
    assert info is not None
    assert (info.cwd, info.archived, info.deleted) == (str(tmp_path), False, False)
    assert info.updated_at > 0
    assert len(store.saves) == 1

    # The kernel registers before every tool run: unchanged, nothing is stored.
    for _ in range(3):
        assert not await sessions.register_session(SESSION, cwd=str(tmp_path))
    assert len(store.saves) == 1
    assert await sessions.lookup(SESSION) == info

    # A new cwd (also none: the host's default) is a change.
    assert await sessions.register_session(SESSION, cwd="")
    assert (await sessions.lookup(SESSION)) == dataclasses.replace(
        info, cwd=None, updated_at=store.saves[-1].updated_at
    )
    assert len(store.saves) == 2


async def test_archive_delete_and_register_again(tmp_path: Path) -> None:
    store = RecordingStore()
    sessions = await registry(store)
    await sessions.register_session(SESSION, cwd=str(tmp_path))

    assert await sessions.archive_session(SESSION)
    archived = await sessions.lookup(SESSION)
    assert archived is not None and archived.archived and not archived.deleted
    assert archived.cwd == str(tmp_path)  # kept for when it is registered again
    assert not await sessions.archive_session(SESSION)  # idempotent, no write

    assert await sessions.archive_session(SESSION, deleted=True)
    deleted = await sessions.lookup(SESSION)
    assert deleted is not None and deleted.archived and deleted.deleted
    assert not await sessions.archive_session(SESSION)  # a deleted session stays deleted
    assert not await sessions.archive_session(SESSION, deleted=True)
    assert len(store.saves) == 3

    assert await sessions.register_session(SESSION, cwd=str(tmp_path))  # revived
    revived = await sessions.lookup(SESSION)
    assert revived is not None and not revived.archived and not revived.deleted
    assert len(store.saves) == 4

    # The kernel is the source of truth: archiving a session never registered records it.
    assert await sessions.archive_session(OTHER)
    unknown = await sessions.lookup(OTHER)
    assert unknown == SessionInfo(OTHER, archived=True, updated_at=store.saves[-1].updated_at)


async def test_standalone_mode_admits_any_id_but_registered_entries_still_apply() -> None:
    sessions = await registry(standalone=True)
    assert sessions.standalone
    # Not registered: admitted, and nobody's until a principal names it (see test_access).
    assert await sessions.lookup("anything-at-all") == SessionInfo(
        "anything-at-all", cwd="/home", origin="unclaimed"
    )
    await sessions.archive_session(SESSION)
    archived = await sessions.lookup(SESSION)
    assert archived is not None and archived.archived


async def test_entries_are_loaded_from_the_store_when_the_registry_opens() -> None:
    store = RecordingStore(
        [
            SessionInfo(SESSION, cwd="/work", updated_at=5),
            SessionInfo(OTHER, archived=True, deleted=True, updated_at=6),
        ]
    )
    sessions = await registry(store)
    assert sessions.known() == store.entries
    assert not await sessions.register_session(SESSION, cwd="/work")
    assert store.saves == []


async def test_a_failed_write_changes_nothing() -> None:
    store = RecordingStore()
    sessions = await registry(store)
    store.fail = PersistenceFailedError("disk full")
    with pytest.raises(PersistenceFailedError):
        await sessions.register_session(SESSION)
    assert await sessions.lookup(SESSION) is None
    store.fail = None
    assert await sessions.register_session(SESSION)  # a retry is still a change


@pytest.mark.parametrize(
    ("session_id", "cwd", "field"),
    [
        ("", "/", "session_id"),
        ("has space", "/", "session_id"),
        ("x" * 129, "/", "session_id"),
        (SESSION, "relative/dir", "cwd"),
        (SESSION, "/with\0nul", "cwd"),
        (SESSION, "/" + "d" * 5000, "cwd"),
    ],
    ids=["empty id", "bad id", "long id", "relative cwd", "nul in cwd", "long cwd"],
)
async def test_bad_registrations_are_refused_and_store_nothing(
    session_id: str, cwd: str, field: str
) -> None:
    store = RecordingStore()
    sessions = await registry(store)
    gate = SessionAdmissionGate(sessions)
    for attempt in (
        gate.register(session_id, cwd=cwd),
        sessions.register_session(session_id, cwd=cwd),
    ):
        with pytest.raises(InvalidRequestError) as refused:
            await attempt
        assert refused.value.field == field
    assert store.saves == []
    assert sessions.known() == {}


async def test_the_gate_says_why_a_session_is_refused() -> None:
    sessions = await registry()
    gate = SessionAdmissionGate(sessions)
    with pytest.raises(NotFoundError) as unknown:
        await gate.check(SESSION)
    assert unknown.value.field == "session_id"
    assert "not known to this resource service" in unknown.value.message
    assert "RegisterSession" in unknown.value.message
    assert "--standalone" in unknown.value.message

    await gate.register(SESSION, cwd="/work")
    assert (await gate.check(SESSION)).cwd == "/work"
    async with gate.archiving(SESSION) as changed:
        assert changed
    with pytest.raises(SessionArchivedError):
        await gate.check(SESSION)
    async with gate.archiving(SESSION, deleted=True):
        pass
    with pytest.raises(NotFoundError) as deleted:
        await gate.check(SESSION)
    assert "deleted" in deleted.value.message


async def test_a_start_waiting_at_the_gate_sees_the_archive_it_waited_for() -> None:
    store = RecordingStore()
    sessions = await registry(store)
    gate = SessionAdmissionGate(sessions)
    await gate.register(SESSION)
    store.gate, store.saving = asyncio.Event(), asyncio.Event()

    async def archive() -> None:
        async with gate.archiving(SESSION):
            pass

    archiving = asyncio.create_task(archive())
    await store.saving.wait()  # the archive holds the gate, its write not yet committed
    trying = asyncio.Event()

    async def start() -> SessionInfo:
        trying.set()
        async with gate.hold(SESSION) as info:
            return info

    starting = asyncio.create_task(start())
    # Runs until it must wait: without the gate it would already have been admitted.
    await trying.wait()
    store.gate.set()
    await archiving
    with pytest.raises(SessionArchivedError):
        await starting
    # And a registration queued behind an archive lifts it only afterwards.
    assert await gate.register(SESSION)
    async with gate.hold(SESSION) as info:
        assert not info.archived


# -- archiving a session with live runs -----------------------------------------------------


@dataclasses.dataclass
class KernelHost:
    store: SqliteShellRunStore
    sessions: SessionRegistry
    manager: RunSupervisor
    coordinator: ResourceHost


@pytest.fixture
async def kernel_host(tmp_path: Path) -> AsyncIterator[KernelHost]:
    """A host in kernel mode: the session registry in the host's own SQLite store."""
    owner = try_acquire_root_owner(resolve_storage_root(tmp_path / "data", "resource"))
    assert owner is not None
    store = await SqliteShellRunStore.open(owner.lease)
    sessions = await SessionRegistry.open(store, standalone=False)
    manager = await RunSupervisor.open(store=store, config=TEST_CONFIG)
    coordinator = ResourceHost(supervisor=manager, admission=SessionAdmissionGate(sessions))
    try:
        yield KernelHost(store, sessions, manager, coordinator)
    finally:
        await coordinator.close()
        await manager.close()
        await store.close()
        owner.close()


def pid_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_archive_stops_the_sessions_runs_and_no_start_gets_in(
    kernel_host: KernelHost, tmp_path: Path
) -> None:
    coordinator = kernel_host.coordinator
    await coordinator.register_session(SESSION, cwd=str(tmp_path))
    await coordinator.register_session(OTHER, cwd=str(tmp_path))
    sleeper = await coordinator.run_background_bash(
        bash_input("sleep 600", "call.sleep", session_id=SESSION)
    )
    pty = await coordinator.run_background_bash(
        bash_input("stty -echo; echo READY; cat", "call.pty", session_id=SESSION, pty=True)
    )
    await read_until(kernel_host.manager, pty.ref, b"READY", session_id=SESSION)
    await coordinator.acquire_controller(
        ControllerIdentity(SESSION, pty.ref, "kernel"), FIRST_CONNECTION
    )
    bystander = await coordinator.run_background_bash(
        bash_input("sleep 600", "call.other", session_id=OTHER)
    )

    stopped = await coordinator.archive_session(SESSION)

    assert [run.ref for run in stopped] == [sleeper.ref, pty.ref]
    assert all((run.status, run.exit_code) == ("cancelled", 130) for run in stopped)
    for run in (sleeper, pty):
        assert run.process is not None and pid_gone(run.process.pid)
    assert coordinator.controller_of(pty.ref) is None
    assert await coordinator.archive_session(SESSION) == ()  # idempotent
    with pytest.raises(SessionArchivedError):
        await coordinator.run_background_bash(bash_input("true", "call.late", session_id=SESSION))
    assert (await coordinator.get(OTHER, bystander.ref)).status == "running"
    assert bystander.process is not None and not pid_gone(bystander.process.pid)
    # The archive is in the store: a registry opened on it now knows it.
    reopened = await SessionRegistry.open(kernel_host.store, standalone=False)
    assert reopened.known() == kernel_host.sessions.known()
    assert reopened.known()[SESSION].archived
    await coordinator.stop(OTHER, bystander.ref)

"""Who may reach a session's runs, decided in the resource core's session lookup: the kernel
and admin everything; a client principal only the runs of its own sessions, and no starts in
a session the kernel registered; a standalone session belongs to whoever names it first. On
the domain core with real processes and SQLite."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from maka_runtime.common.principal import ADMIN, CLIENT, KERNEL, LOCAL, Principal, acting_as
from maka_runtime.common.storage_root import resolve_storage_root, try_acquire_root_owner
from maka_runtime.resource.core import (
    ControllerIdentity,
    NotFoundError,
    PermissionDeniedError,
    ResourceHost,
    RunSupervisor,
    SessionAdmissionGate,
    SessionArchivedError,
    SessionInfo,
    SessionRegistry,
)
from maka_runtime.resource.core.access import decide
from maka_runtime.resource.core.lease import ControlRequest, PtyControl
from maka_runtime.resource.store import SqliteShellRunStore
from tests.resource.conftest import FIRST_CONNECTION, TEST_CONFIG, bash_input, read_until
from tests.support.counting import count_calls

KERNEL_LINK = Principal("kernel-link", frozenset({KERNEL}))
ALICE = Principal("alice", frozenset({CLIENT}))
BOB = Principal("bob", frozenset({CLIENT}))
ROOT = Principal("root", frozenset({ADMIN}))
PLAIN_LOCAL = Principal(LOCAL, frozenset({CLIENT}))
NO_RUN = "maka://runtime/background-tasks/" + "0" * 32


@dataclass
class Opened:
    store: SqliteShellRunStore
    sessions: SessionRegistry
    supervisor: RunSupervisor
    host: ResourceHost


async def open_host(data: Path, *, standalone: bool) -> AsyncIterator[Opened]:
    owner = try_acquire_root_owner(resolve_storage_root(data, "resource"))
    assert owner is not None
    store = await SqliteShellRunStore.open(owner.lease)
    sessions = await SessionRegistry.open(store, standalone=standalone, default_cwd=str(data))
    supervisor = await RunSupervisor.open(store=store, config=TEST_CONFIG)
    host = ResourceHost(supervisor=supervisor, admission=SessionAdmissionGate(sessions))
    try:
        yield Opened(store, sessions, supervisor, host)
    finally:
        await host.close()
        await supervisor.close()
        await store.close()
        owner.close()


@pytest.fixture
async def kernel_mode(tmp_path: Path) -> AsyncIterator[Opened]:
    async for opened in open_host(tmp_path / "data", standalone=False):
        yield opened


@pytest.fixture
async def standalone(tmp_path: Path) -> AsyncIterator[Opened]:
    async for opened in open_host(tmp_path / "data", standalone=True):
        yield opened


def test_the_rule() -> None:
    kernel_session = SessionInfo("s", owner="alice")
    claimed = SessionInfo("s", owner="alice", origin="claimed")
    assert decide(kernel_session, ALICE, start=False) == "allowed"
    assert decide(kernel_session, ALICE, start=True) == "kernel_session"
    assert decide(claimed, ALICE, start=True) == "allowed"
    assert decide(kernel_session, BOB, start=False) == "hidden"
    assert decide(claimed, BOB, start=True) == "hidden"
    for trusted in (KERNEL_LINK, ROOT, None):
        assert decide(kernel_session, trusted, start=True) == "allowed"
    # Recorded without an owner (before owners were): the local principal's.
    assert decide(SessionInfo("s"), PLAIN_LOCAL, start=False) == "allowed"
    assert decide(SessionInfo("s"), ALICE, start=False) == "hidden"


def reads(host: ResourceHost, session_id: str, ref: str) -> dict[str, Callable[[], Awaitable[Any]]]:
    """Every host operation that reads or drives a session's runs (not starting one)."""

    async def watch() -> None:
        async for _ in host.watch(session_id):
            break

    identity = ControllerIdentity(session_id, ref, "ctl")
    return {
        "get": lambda: host.get(session_id, ref),
        "get_by_ref": lambda: host.get("", ref),
        "list": lambda: host.list_runs(session_id),
        "watch": watch,
        "attach": lambda: host.attach(session_id, ref),
        "acquire": lambda: host.acquire_controller(identity, FIRST_CONNECTION),
        "control": lambda: host.control_controller(
            ControlRequest(session_id, ref, "ctl", 1, PtyControl("input", "x")), FIRST_CONNECTION
        ),
        "release": lambda: host.release_controller(identity, FIRST_CONNECTION),
        "stop": lambda: host.stop(session_id, ref),
    }


async def not_found(call: Callable[[], Awaitable[Any]]) -> str:
    with pytest.raises(NotFoundError) as raised:
        await call()
    return str(raised.value)


async def stored(opened: Opened) -> tuple[Any, ...]:
    page = await opened.store.list_session(None, after=None, limit=1000)
    return tuple(page), await opened.store.load_sessions()


async def test_kernel_mode_the_owner_reads_and_drives_others_see_nothing(
    kernel_mode: Opened, tmp_path: Path
) -> None:
    host = kernel_mode.host
    with acting_as(KERNEL_LINK):
        await host.register_session("s1", cwd=str(tmp_path), owner="alice")
        pty = await host.run_background_bash(
            bash_input("stty -echo; echo READY; cat", "call.pty", session_id="s1", pty=True)
        )
    await read_until(kernel_mode.supervisor, pty.ref, b"READY", session_id="s1")
    before = await stored(kernel_mode)

    with acting_as(BOB):
        for name, call in reads(host, "s1", pty.ref).items():
            hidden = await not_found(call)
            unknown = await not_found(reads(host, "s-unknown", NO_RUN)[name])
            assert hidden == unknown.replace("s-unknown", "s1").replace(NO_RUN, pty.ref), name
        listed = await host.list_runs("")
        assert listed.runs == ()
        with pytest.raises(NotFoundError):
            await host.run_foreground_bash(bash_input("echo bypass", "call.bob", session_id="s1"))
    assert await stored(kernel_mode) == before
    assert (await host.get("s1", pty.ref)).status == "running"

    with acting_as(ALICE):
        assert (await host.get("", pty.ref)).session_id == "s1"
        assert [r.ref for r in (await host.list_runs("")).runs] == [pty.ref]
        await host.acquire_controller(ControllerIdentity("s1", pty.ref, "ctl"), FIRST_CONNECTION)
        stopped = await host.stop("s1", pty.ref)
        assert stopped.status == "cancelled"


async def test_a_client_principal_cannot_start_runs_in_a_kernel_session(
    kernel_mode: Opened, tmp_path: Path
) -> None:
    """The denied-approval bypass: the owner of a kernel session re-running a command
    directly on the resource service is refused, and nothing is recorded."""
    host = kernel_mode.host
    with acting_as(KERNEL_LINK):
        await host.register_session("s1", cwd=str(tmp_path), owner="alice")
    before = await stored(kernel_mode)
    marker = tmp_path / "ran"
    with acting_as(ALICE):
        with pytest.raises(PermissionDeniedError) as raised:
            await host.run_foreground_bash(
                bash_input(f"touch {marker}", "call.denied", session_id="s1")
            )
        assert raised.value.field == "session_id"
        with pytest.raises(PermissionDeniedError):
            await host.run_background_bash(
                bash_input(f"touch {marker}", "call.bg", session_id="s1")
            )
        with pytest.raises(PermissionDeniedError):
            stream = host.stream_foreground_bash(
                bash_input(f"touch {marker}", "call.stream", session_id="s1")
            )
            await stream.__anext__()
    assert await stored(kernel_mode) == before
    assert not marker.exists()
    with acting_as(ROOT):
        done = await host.run_foreground_bash(bash_input("true", "call.admin", session_id="s1"))
        assert done.status == "completed"


async def test_a_registration_from_before_owners_is_the_local_principals(
    kernel_mode: Opened, tmp_path: Path
) -> None:
    # As an older host stored it: a sessions row without an owner row.
    await kernel_mode.host.register_session("old", cwd=str(tmp_path), owner="alice")
    with sqlite3.connect(kernel_mode.store.path) as older:
        older.execute("DELETE FROM session_owners WHERE session_id = 'old'")
    reopened = await SessionRegistry.open(kernel_mode.store, standalone=False)
    old = reopened.known()["old"]
    assert (old.owner, old.origin) == ("", "kernel")
    gate = SessionAdmissionGate(reopened)
    with acting_as(PLAIN_LOCAL):
        assert (await gate.check("old")).session_id == "old"
    with acting_as(ALICE), pytest.raises(NotFoundError):
        await gate.check("old")


async def test_standalone_a_session_belongs_to_the_principal_that_names_it_first(
    standalone: Opened,
) -> None:
    host = standalone.host
    with acting_as(ALICE):
        run = await host.run_foreground_bash(bash_input("echo mine", "call.a", session_id="mine"))
        assert run.status == "completed"
    claimed = standalone.sessions.known()["mine"]
    assert (claimed.owner, claimed.origin) == ("alice", "claimed")
    # Durable: a registry opened on the store knows the claim.
    reopened = await SessionRegistry.open(standalone.store, standalone=True)
    assert reopened.known()["mine"] == claimed

    before = await stored(standalone)
    with acting_as(BOB):
        # A session another principal took is NOT_FOUND with the gate's "no session" (a free
        # id would be claimed: that it is taken is all a caller learns).
        for name, call in reads(host, "mine", run.ref).items():
            hidden = await not_found(call)
            assert hidden == (f"no run {run.ref}" if name == "get_by_ref" else "no session mine")
        with pytest.raises(NotFoundError):
            await host.run_foreground_bash(bash_input("echo no", "call.b", session_id="mine"))
        assert (await host.list_runs("")).runs == ()
    assert await stored(standalone) == before  # Bob's refused calls stored nothing

    with acting_as(ALICE):
        assert [r.ref for r in (await host.list_runs("mine")).runs] == [run.ref]
    with acting_as(ROOT):
        assert (await host.get("", run.ref)).ref == run.ref


async def test_standalone_concurrent_first_uses_have_one_owner(standalone: Opened) -> None:
    gate = SessionAdmissionGate(standalone.sessions)

    async def first_use(principal: Principal) -> str:
        with acting_as(principal):
            try:
                return (await gate.check("contested")).owner
            except NotFoundError:
                return "refused"

    results = await asyncio.gather(first_use(ALICE), first_use(BOB))
    owner = standalone.sessions.known()["contested"].owner
    assert owner in ("alice", "bob")
    assert sorted(results) == sorted([owner, "refused"])


async def test_a_listing_or_a_ref_does_not_claim(standalone: Opened) -> None:
    """Runs recorded before sessions had owners sit in unclaimed sessions: reaching them by
    ref or in a listing of every session claims nothing (they count as the local user's)."""
    host = standalone.host
    run = await host.run_foreground_bash(bash_input("echo old", "call.old", session_id="old"))
    with acting_as(ALICE):
        assert (await host.list_runs("")).runs == ()
        with pytest.raises(NotFoundError):
            await host.get("", run.ref)
    assert "old" not in standalone.sessions.known()
    with acting_as(PLAIN_LOCAL):
        assert (await host.get("", run.ref)).ref == run.ref


async def alices_finished_run(host: ResourceHost, cwd: Path) -> Any:
    """A finished run of ``true`` in session ``s1``, which the kernel registered for alice."""
    with acting_as(KERNEL_LINK):
        await host.register_session("s1", cwd=str(cwd), owner="alice")
        return await host.run_foreground_bash(bash_input("true", "call.k", session_id="s1"))


async def test_a_refusal_is_logged_once_with_its_principal(
    kernel_mode: Opened, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    host = kernel_mode.host
    run = await alices_finished_run(host, tmp_path)
    caplog.set_level("WARNING", logger="maka.auth")
    with acting_as(BOB):
        await not_found(lambda: host.get("", run.ref))
        await host.list_runs("")  # leaving runs out is no refusal
    with acting_as(ALICE), pytest.raises(PermissionDeniedError):
        await host.run_foreground_bash(bash_input("true", "call.a", session_id="s1"))
    lines = [r.getMessage() for r in caplog.records if r.name == "maka.auth"]
    assert lines == [
        "refused session s1 for bob: NOT_FOUND (not its owner)",
        "refused a start in session s1 for alice: PERMISSION_DENIED",
    ]


async def test_a_finished_run_from_memory_keeps_every_refusal(
    kernel_mode: Opened, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = kernel_mode.host
    done = await alices_finished_run(host, tmp_path)
    lookups = count_calls(monkeypatch, kernel_mode.sessions, "lookup")

    with acting_as(ALICE):  # the owner: answered from memory, no lookup awaited
        assert await host.get("s1", done.ref) == done
        assert await host.get("", done.ref) == done
    assert lookups == []

    with acting_as(BOB):  # another principal: exactly an unknown run's refusal
        for name in ("get", "get_by_ref"):
            hidden = await not_found(reads(host, "s1", done.ref)[name])
            unknown = await not_found(reads(host, "s-unknown", NO_RUN)[name])
            assert hidden == unknown.replace("s-unknown", "s1").replace(NO_RUN, done.ref), name
    with acting_as(ALICE):  # the wrong session named: not found, as for a live run
        assert "s2" in await not_found(lambda: host.get("s2", done.ref))

    with acting_as(KERNEL_LINK):
        await host.archive_session("s1")
    with acting_as(ALICE):
        for session_id in ("s1", ""):
            with pytest.raises(SessionArchivedError):
                await host.get(session_id, done.ref)

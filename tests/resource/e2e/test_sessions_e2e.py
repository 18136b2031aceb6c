"""Sessions known to the service, through the wire: kernel mode (only registered sessions),
standalone mode, RegisterSession / ArchiveSession, the registry across a restart of a real
``maka-resource`` process, and RunForeground's start announcement."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc

from maka_runtime.resource.store.sqlite import DATABASE_NAME
from tests.resource.e2e.conftest import (
    Server,
    open_connection,
    raises_status,
    start_server,
    stop_server,
)
from tests.support.processes import running_service, spawn_service

SESSION = "kernel-session-1"
OTHER = "kernel-session-2"
ARCHIVED = (grpc.StatusCode.FAILED_PRECONDITION, "SESSION_ARCHIVED")
MISSING = (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
INVALID = (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")


@pytest.fixture
async def kernel_mode(tmp_path: Path) -> AsyncIterator[Server]:
    """A serving ``maka-resource`` in kernel mode (no --standalone)."""
    running = await start_server(tmp_path / "data", standalone=False)
    try:
        yield running
    finally:
        await stop_server(running)


def pid_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def register(stub: Any, session_id: str, cwd: str = "") -> bool:
    response = await stub.RegisterSession(pb.RegisterSessionRequest(session_id=session_id, cwd=cwd))
    return bool(response.changed)


async def start(stub: Any, session_id: str, command: str, **fields: Any) -> pb.Run:
    request = pb.StartBackgroundRequest(session_id=session_id, command=command, **fields)
    run: pb.Run = (await stub.StartBackground(request)).run
    return run


async def foreground(stub: Any, session_id: str, command: str, **fields: Any) -> list[Any]:
    request = pb.RunForegroundRequest(session_id=session_id, command=command, **fields)
    return [event async for event in stub.RunForeground(request)]


def session_rows(server: Server) -> list[tuple[Any, ...]]:
    with sqlite3.connect(server.data_dir / "resource" / DATABASE_NAME) as db:
        return db.execute(
            "SELECT session_id, cwd, archived, deleted, updated_at FROM sessions "
            "ORDER BY session_id"
        ).fetchall()


# -- kernel mode -----------------------------------------------------------------------------


async def test_kernel_mode_refuses_unknown_sessions_until_the_kernel_registers_them(
    kernel_mode: Server, tmp_path: Path
) -> None:
    stub = kernel_mode.stub()
    info = await stub.GetServerInfo(pb.GetServerInfoRequest())
    assert not info.standalone

    async with raises_status(*MISSING) as unknown:
        await start(stub, SESSION, "true", cwd="/")
    assert unknown["metadata"] == {"field": "session_id"}
    message = unknown["message"]
    assert f"session {SESSION} is not known to this resource service" in message
    assert "the kernel registers its sessions" in message and "--standalone" in message
    async with raises_status(*MISSING):
        await foreground(stub, SESSION, "true", cwd="/")
    assert session_rows(kernel_mode) == []  # a refused session is not recorded

    workspace = tmp_path / "workspace"
    workspace.mkdir()
    assert await register(stub, SESSION, str(workspace))
    assert not await register(stub, SESSION, str(workspace))  # idempotent
    events = await foreground(stub, SESSION, "pwd")  # no cwd: the session's
    result = events[-1].result
    assert (result.status, result.cwd) == (pb.RUN_STATUS_COMPLETED, str(workspace))
    assert result.pipes.stdout == f"{workspace}\n"
    explicit = await foreground(stub, SESSION, "pwd", cwd="/")  # a given cwd still wins
    assert explicit[-1].result.pipes.stdout == "/\n"
    async with raises_status(*MISSING):  # other sessions are still unknown
        await start(stub, OTHER, "true", cwd="/")


async def test_archive_stops_every_run_of_the_session_and_refuses_it_from_then_on(
    kernel_mode: Server,
) -> None:
    channel = kernel_mode.channel()
    stub = kernel_mode.stub(channel)
    await register(stub, SESSION, "/")
    await register(stub, OTHER, "/")
    sleeper = await start(stub, SESSION, "sleep 600")
    pty = await start(stub, SESSION, "stty -echo; echo READY; cat", pty=True)
    connection, keepalive = await open_connection(stub, "kernel")
    await stub.AcquireController(
        pb.AcquireControllerRequest(
            session_id=SESSION, ref=pty.ref, controller_id="kernel", connection_id=connection
        )
    )
    bystander = await start(stub, OTHER, "sleep 600")
    # A foreground run in progress too, from another channel.
    running = stub.RunForeground(
        pb.RunForegroundRequest(session_id=SESSION, command="sleep 600", announce_start=True)
    )
    started = (await running.read()).started
    assert started.status == pb.RUN_STATUS_RUNNING
    await read_until(stub, SESSION, pty.ref, b"READY")

    archived = await kernel_mode.stub(kernel_mode.channel()).ArchiveSession(
        pb.ArchiveSessionRequest(session_id=SESSION)
    )

    stopped = {run.ref: run for run in archived.stopped}
    assert set(stopped) == {sleeper.ref, pty.ref, started.ref}
    for run in stopped.values():
        assert (run.status, run.exit_code) == (pb.RUN_STATUS_CANCELLED, 130)
        assert run.ended_at.ToMilliseconds() > 0
    for pid in (sleeper.pid, pty.pid, started.pid):
        assert pid_gone(pid)
    final = await read_rest(running)
    assert final[-1].result == stopped[started.ref]
    assert kernel_mode.coordinator.controller_of(pty.ref) is None
    # Recorded as they were reported.
    for ref, run in stopped.items():
        assert (await kernel_mode.coordinator.manager.inspect(SESSION, ref)).status == "cancelled"
        assert (
            run.revision == (await kernel_mode.coordinator.manager.inspect(SESSION, ref)).revision
        )

    again = await stub.ArchiveSession(pb.ArchiveSessionRequest(session_id=SESSION))
    assert list(again.stopped) == []  # idempotent

    async with raises_status(*ARCHIVED) as refused:
        await start(stub, SESSION, "true")
    assert refused["metadata"] == {"field": "session_id"}
    async with raises_status(*ARCHIVED):
        await foreground(stub, SESSION, "true")
    async with raises_status(*ARCHIVED):
        await stub.AcquireController(
            pb.AcquireControllerRequest(
                session_id=SESSION, ref=pty.ref, controller_id="kernel", connection_id=connection
            )
        )

    # The other session's run is untouched.
    other = (await stub.GetRun(pb.GetRunRequest(session_id=OTHER, ref=bystander.ref))).run
    assert other.status == pb.RUN_STATUS_RUNNING
    assert not pid_gone(bystander.pid)
    await stub.StopRun(pb.StopRunRequest(session_id=OTHER, ref=bystander.ref))
    keepalive.cancel()
    assert kernel_mode.residencies == 0
    assert not kernel_mode.failed


async def read_rest(call: Any) -> list[Any]:
    """The remaining messages of a server stream read with ``read()``."""
    rest = []
    while (event := await call.read()) is not grpc.aio.EOF:
        rest.append(event)
    return rest


async def read_until(stub: Any, session_id: str, ref: str, needle: bytes) -> None:
    """Attach (without a controller) and read output until *needle* has appeared."""
    call = stub.Attach()
    await call.write(pb.AttachRequest(start=pb.AttachStart(session_id=session_id, ref=ref)))
    seen = b""
    try:
        while needle not in seen:
            event = await call.read()
            assert event is not grpc.aio.EOF, f"{ref} ended before {needle!r}: {seen!r}"
            if event.WhichOneof("event") == "output":
                seen += event.output.data
    finally:
        call.cancel()


async def test_registering_again_unarchives_and_a_deleted_session_is_not_found(
    kernel_mode: Server,
) -> None:
    stub = kernel_mode.stub()
    await register(stub, SESSION, "/")
    await stub.ArchiveSession(pb.ArchiveSessionRequest(session_id=SESSION))
    async with raises_status(*ARCHIVED):
        await foreground(stub, SESSION, "true")

    assert await register(stub, SESSION, "/")  # unarchives
    assert (await foreground(stub, SESSION, "true"))[-1].result.status == pb.RUN_STATUS_COMPLETED

    await stub.ArchiveSession(pb.ArchiveSessionRequest(session_id=SESSION, deleted=True))
    async with raises_status(*MISSING) as deleted:
        await stub.ListRuns(pb.ListRunsRequest(session_id=SESSION))
    assert "deleted" in deleted["message"]
    async with raises_status(*MISSING):
        await foreground(stub, SESSION, "true")
    # Archiving a deleted session does not bring it back; registering does.
    await stub.ArchiveSession(pb.ArchiveSessionRequest(session_id=SESSION))
    async with raises_status(*MISSING):
        await foreground(stub, SESSION, "true")
    assert await register(stub, SESSION, "/")
    listed = await stub.ListRuns(pb.ListRunsRequest(session_id=SESSION))
    assert len(listed.runs) == 1  # its history is still there

    # The kernel is the source of truth: archiving a session never registered records it.
    assert (
        list((await stub.ArchiveSession(pb.ArchiveSessionRequest(session_id=OTHER))).stopped) == []
    )
    async with raises_status(*ARCHIVED):
        await foreground(stub, OTHER, "true", cwd="/")
    assert [row[:4] for row in session_rows(kernel_mode)] == [
        (SESSION, "/", 0, 0),
        (OTHER, "", 1, 0),
    ]


async def test_a_registration_that_changes_nothing_writes_nothing(kernel_mode: Server) -> None:
    stub = kernel_mode.stub()
    assert await register(stub, SESSION, "/tmp")
    before = session_rows(kernel_mode)
    database = kernel_mode.data_dir / "resource" / DATABASE_NAME
    with sqlite3.connect(database, isolation_level=None) as probe:

        def data_version() -> int:
            # Changes when another connection commits to the database.
            return int(probe.execute("PRAGMA data_version").fetchone()[0])

        version = data_version()
        for _ in range(5):
            assert not await register(stub, SESSION, "/tmp")
        assert data_version() == version
        assert session_rows(kernel_mode) == before  # updated_at too

        assert await register(stub, SESSION, "/")  # a change is written (the probe sees it)
        assert data_version() != version
    assert session_rows(kernel_mode)[0][1] == "/"


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (pb.RegisterSessionRequest(session_id="", cwd="/"), "session_id"),
        (pb.RegisterSessionRequest(session_id="has space", cwd="/"), "session_id"),
        (pb.RegisterSessionRequest(session_id=SESSION, cwd="relative/dir"), "cwd"),
        (pb.RegisterSessionRequest(session_id=SESSION, cwd="/nul\0here"), "cwd"),
        (pb.ArchiveSessionRequest(session_id=""), "session_id"),
        (pb.ArchiveSessionRequest(session_id="bad/id", deleted=True), "session_id"),
    ],
    ids=[
        "register no id",
        "register bad id",
        "register relative cwd",
        "register nul cwd",
        "archive no id",
        "archive bad id",
    ],
)
async def test_bad_session_requests_are_refused_with_their_field_and_write_nothing(
    kernel_mode: Server, request_: Any, field: str
) -> None:
    stub = kernel_mode.stub()
    await register(stub, "already-there", "/")
    before = session_rows(kernel_mode)
    method = (
        stub.RegisterSession
        if isinstance(request_, pb.RegisterSessionRequest)
        else stub.ArchiveSession
    )
    async with raises_status(*INVALID) as refused:
        await method(request_)
    assert refused["metadata"] == {"field": field}
    assert session_rows(kernel_mode) == before
    assert not kernel_mode.failed


async def test_registering_is_refused_while_draining_but_archiving_is_not(
    kernel_mode: Server,
) -> None:
    stub = kernel_mode.stub()
    await register(stub, SESSION, "/")
    run = await start(stub, SESSION, "sleep 600")
    kernel_mode.coordinator.begin_drain()
    async with raises_status(grpc.StatusCode.UNAVAILABLE, "HOST_DRAINING"):
        await register(stub, OTHER, "/")
    # Archiving only narrows what is admitted: the kernel's word is recorded during a drain.
    archived = await stub.ArchiveSession(pb.ArchiveSessionRequest(session_id=SESSION))
    assert [stopped.ref for stopped in archived.stopped] in ([run.ref], [])
    assert [row[:4] for row in session_rows(kernel_mode)] == [(SESSION, "/", 1, 0)]


# -- standalone mode -------------------------------------------------------------------------


async def test_standalone_admits_any_session_id_but_an_archive_still_refuses(
    tmp_path: Path,
) -> None:
    server = await start_server(tmp_path / "data", standalone=True)
    try:
        stub = server.stub()
        assert (await stub.GetServerInfo(pb.GetServerInfoRequest())).standalone
        run = await start(stub, "never-registered", "sleep 600", cwd="/")
        assert run.status == pb.RUN_STATUS_RUNNING
        archived = await stub.ArchiveSession(
            pb.ArchiveSessionRequest(session_id="never-registered")
        )
        assert [(r.ref, r.status) for r in archived.stopped] == [(run.ref, pb.RUN_STATUS_CANCELLED)]
        assert pid_gone(run.pid)
        async with raises_status(*ARCHIVED):
            await start(stub, "never-registered", "true", cwd="/")
        await stub.ArchiveSession(
            pb.ArchiveSessionRequest(session_id="never-registered", deleted=True)
        )
        async with raises_status(*MISSING):
            await start(stub, "never-registered", "true", cwd="/")
        assert await register(stub, "never-registered")
        assert (await start(stub, "never-registered", "true", cwd="/")).ref
        assert (await start(stub, "another-one", "true", cwd="/")).ref
    finally:
        await stop_server(server)


# -- across a restart of a real process ----------------------------------------------------


def test_the_registry_survives_a_restart_of_the_process(data_dir: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    flags = ("--termination-grace", "0.3")
    with (
        running_service("resource", data_dir, *flags) as first,
        grpc.insecure_channel(first.address) as channel,
    ):
        stub = resource_pb2_grpc.ResourceServiceStub(channel)
        assert not stub.GetServerInfo(pb.GetServerInfoRequest(), timeout=20).standalone
        for session_id in ("active", "archived", "deleted"):
            request = pb.RegisterSessionRequest(session_id=session_id, cwd=str(workspace))
            assert stub.RegisterSession(request, timeout=20).changed
        stub.ArchiveSession(pb.ArchiveSessionRequest(session_id="archived"), timeout=20)
        stub.ArchiveSession(
            pb.ArchiveSessionRequest(session_id="deleted", deleted=True), timeout=20
        )
        assert first.terminate() == 0

    def run_pwd(stub: Any, session_id: str) -> pb.Run:
        request = pb.RunForegroundRequest(session_id=session_id, command="pwd")
        result: pb.Run = list(stub.RunForeground(request, timeout=20))[-1].result
        return result

    def refused(stub: Any, session_id: str) -> tuple[grpc.StatusCode, str]:
        with pytest.raises(grpc.RpcError) as error:
            run_pwd(stub, session_id)
        return error.value.code(), error.value.details() or ""

    for args, env in (((), {}), ((), {"MAKA_RESOURCE_STANDALONE": "true"})):
        with (
            running_service("resource", data_dir, *flags, *args, env=env) as again,
            grpc.insecure_channel(again.address) as channel,
        ):
            stub = resource_pb2_grpc.ResourceServiceStub(channel)
            standalone = stub.GetServerInfo(pb.GetServerInfoRequest(), timeout=20).standalone
            assert standalone == bool(env)
            assert run_pwd(stub, "active").pipes.stdout == f"{workspace}\n"
            assert (
                stub.RegisterSession(
                    pb.RegisterSessionRequest(session_id="active", cwd=str(workspace)), timeout=20
                ).changed
                is False
            )  # known from before the restart
            assert refused(stub, "archived")[0] == grpc.StatusCode.FAILED_PRECONDITION
            assert refused(stub, "deleted")[0] == grpc.StatusCode.NOT_FOUND
            if standalone:
                assert run_pwd(stub, "unknown").status == pb.RUN_STATUS_COMPLETED
            else:
                code, message = refused(stub, "unknown")
                assert code == grpc.StatusCode.NOT_FOUND and "--standalone" in message
        expected_mode = "standalone" if standalone else "kernel"
        assert f"sessions: {expected_mode} mode; 3 registered or archived" in again.stderr


@pytest.mark.parametrize("value", ["maybe", "2"])
def test_a_bad_standalone_setting_exits_with_one_line(data_dir: Path, value: str) -> None:
    process = spawn_service("resource", data_dir, env={"MAKA_RESOURCE_STANDALONE": value})
    assert process.wait(timeout=30) == 2
    lines = process.stderr.strip().splitlines()
    assert len(lines) == 1, process.stderr
    assert lines[0].startswith("maka-resource: error: MAKA_RESOURCE_STANDALONE: ")
    assert repr(value) in lines[0]


# -- the start announcement of a foreground run --------------------------------------------


async def test_announce_start_sends_the_started_run_first(server: Server) -> None:
    stub = server.stub()
    events = await foreground(
        stub, "announcing", "printf one; printf two >&2", cwd="/", announce_start=True
    )
    kinds = [event.WhichOneof("event") for event in events]
    assert kinds[0] == "started" and kinds[-1] == "result"
    assert "started" not in kinds[1:]
    started, result = events[0].started, events[-1].result
    assert started.ref == result.ref
    assert (started.status, result.status) == (pb.RUN_STATUS_RUNNING, pb.RUN_STATUS_COMPLETED)
    assert started.pid > 0 and started.pid == result.pid
    assert started.revision < result.revision
    output = b"".join(event.output.data for event in events if event.HasField("output"))
    assert sorted(output.decode()) == sorted("onetwo")  # every chunk after the announcement


async def test_without_announce_start_the_stream_is_as_before(server: Server) -> None:
    events = await foreground(server.stub(), "quiet", "printf hi", cwd="/")
    kinds = [event.WhichOneof("event") for event in events]
    assert set(kinds[:-1]) <= {"output"} and kinds[-1] == "result"
    assert events[-1].result.pipes.stdout == "hi"


async def test_a_stop_from_another_channel_ends_an_announced_foreground_run(
    server: Server,
) -> None:
    stub = server.stub(server.channel())
    call = stub.RunForeground(
        pb.RunForegroundRequest(
            session_id="announcing",
            command="echo READY; sleep 600",
            cwd="/",
            announce_start=True,
        )
    )
    started = (await call.read()).started
    assert started.status == pb.RUN_STATUS_RUNNING
    await read_until(server.stub(), "announcing", started.ref, b"READY")

    other = server.stub(server.channel())
    stopped = (await other.StopRun(pb.StopRunRequest(session_id="announcing", ref=started.ref))).run
    assert (stopped.status, stopped.exit_code) == (pb.RUN_STATUS_CANCELLED, 130)

    rest = await read_rest(call)
    assert rest[-1].WhichOneof("event") == "result"
    assert rest[-1].result == stopped
    assert pid_gone(started.pid)

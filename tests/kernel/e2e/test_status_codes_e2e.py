"""The status codes a gRPC user expects (Google API design guide), over the wire."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import grpc
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from .conftest import WORKSPACE, Server, create_session, failure, read_until, reason

INVALID = (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")


async def expect(call: Any, code: grpc.StatusCode, why: str, **metadata: str) -> str:
    error = await failure(call)
    got_code, got_reason, got_metadata = reason(error)
    assert (got_code, got_reason) == (code, why), error.details()
    for key, value in metadata.items():
        assert got_metadata.get(key) == value, got_metadata
    return error.details() or ""


async def test_a_duplicate_session_id_is_already_exists(server: Server) -> None:
    stub = server.stub()
    await create_session(stub, session_id="mine")
    await expect(
        stub.CreateSession(pb.CreateSessionRequest(workspace_root=WORKSPACE, session_id="mine")),
        grpc.StatusCode.ALREADY_EXISTS,
        "ALREADY_EXISTS",
        id="mine",
    )


async def test_an_unknown_backend_is_invalid_argument(server: Server) -> None:
    message = await expect(
        server.stub().CreateSession(
            pb.CreateSessionRequest(workspace_root=WORKSPACE, backend="quantum")
        ),
        *INVALID,
        field="backend",
    )
    assert "scripted" in message  # names the known kinds


async def test_after_seq_beyond_the_end_is_out_of_range(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    last = (await stub.ReadMessages(pb.ReadMessagesRequest(session_id=session.id))).events[-1].seq
    at_end = await stub.ReadMessages(pb.ReadMessagesRequest(session_id=session.id, after_seq=last))
    assert list(at_end.events) == []
    for call in (
        stub.ReadMessages(pb.ReadMessagesRequest(session_id=session.id, after_seq=last + 1)),
        stub.WatchSession(pb.WatchSessionRequest(session_id=session.id, after_seq=last + 1)),
    ):
        await expect(
            call,
            grpc.StatusCode.OUT_OF_RANGE,
            "OUT_OF_RANGE",
            field="after_seq",
            last_seq=str(last),
        )
    # Watching from the end is still allowed: it follows what comes next.
    watch = stub.WatchSession(pb.WatchSessionRequest(session_id=session.id, after_seq=last))
    async for _ in stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text="hello")):
        pass
    events = await read_until(watch, "turn_state")
    assert events[0].seq == last + 1
    watch.cancel()


async def test_a_watch_on_a_deleted_session_ends_not_found(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    watch = stub.WatchSession(pb.WatchSessionRequest(session_id=session.id))
    await read_until(watch, "system_note")  # the session_start note: the watch is live
    await stub.DeleteSession(pb.DeleteSessionRequest(session_id=session.id))
    await expect(watch, grpc.StatusCode.NOT_FOUND, "NOT_FOUND", id=session.id)


async def test_create_session_during_a_drain_is_host_draining(server: Server) -> None:
    stub = server.stub()
    server.kernel.begin_drain()  # what the Shutdown RPC does first
    await expect(
        stub.CreateSession(pb.CreateSessionRequest(workspace_root=WORKSPACE)),
        grpc.StatusCode.UNAVAILABLE,
        "HOST_DRAINING",
    )
    listed = await stub.ListSessions(pb.ListSessionsRequest())
    assert list(listed.sessions) == []  # nothing half-written


async def test_workspace_root_and_cwd_are_checked_on_the_filesystem(
    server: Server, tmp_path: Path
) -> None:
    stub = server.stub()
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    (workspace / "file").write_text("")
    os.symlink("/etc", workspace / "escape")
    root = str(workspace)
    refused = [
        (pb.CreateSessionRequest(workspace_root=str(tmp_path / "missing")), "workspace_root"),
        (pb.CreateSessionRequest(workspace_root=str(workspace / "file")), "workspace_root"),
        (pb.CreateSessionRequest(workspace_root=root, cwd="/etc"), "cwd"),
        (pb.CreateSessionRequest(workspace_root=root, cwd=f"{root}/sub/../.."), "cwd"),
        (pb.CreateSessionRequest(workspace_root=root, cwd=f"{root}/escape"), "cwd"),
        (pb.CreateSessionRequest(workspace_root=root, cwd=f"{root}/missing"), "cwd"),
        (pb.CreateSessionRequest(workspace_root=root, cwd=f"{root}-sibling"), "cwd"),
    ]
    for request, field in refused:
        await expect(stub.CreateSession(request), *INVALID, field=field)
    session = await create_session(stub, workspace_root=root, cwd=f"{root}/sub")
    assert session.cwd == f"{root}/sub"
    for cwd in ("/etc", f"{root}/escape", f"{root}/sub/../../"):
        await expect(
            stub.UpdateSession(pb.UpdateSessionRequest(session_id=session.id, cwd=cwd)),
            *INVALID,
            field="cwd",
        )
    unchanged = await stub.GetSession(pb.GetSessionRequest(session_id=session.id))
    assert unchanged.session.cwd == f"{root}/sub"
    moved = await stub.UpdateSession(pb.UpdateSessionRequest(session_id=session.id, cwd=root))
    assert moved.session.cwd == root

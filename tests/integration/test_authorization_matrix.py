"""Who may do what, over real gRPC against both services: every RPC of both services (read
from the proto service descriptors: an RPC without a row here fails the test) x {no
credential, a wrong token, another principal, the owner, admin} → the expected status.

The kernel and a resource service in kernel mode serve in process on loopback ports, with a
token file of their own: ``alice`` (client) owns the sessions and runs the calls target,
``bob`` (client) is another principal, ``root`` has the admin role, and the kernel's link has
the kernel role. Every refused cell runs against one set of alice's things (a session whose
turn waits at a sandbox-boundary request, a live PTY run in it) and must leave both stores,
read straight from their SQLite files, exactly as they were. Every allowed cell gets fresh
things of its own, since many calls change or end what they act on; ``Shutdown`` by admin
comes last, as it ends the service."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor, message
from maka_runtime_client.errors import error_info
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb

from maka_runtime.common.auth import hash_token, new_token
from maka_runtime.common.config import CommonConfig
from maka_runtime.kernel.server import KernelConfig, KernelService
from maka_runtime.resource.server import ResourceConfig, ResourceService
from tests.resource.e2e.conftest import E2E_CONFIG
from tests.support import auth
from tests.support.inprocess import InProcess, serve_in_process

S = grpc.StatusCode
COLUMNS = ("none", "wrong", "other", "owner", "admin")
PRINCIPALS = {"alice": ["client"], "bob": ["client"], "root": ["admin"], "link": ["kernel"]}
TOKENS = {name: new_token() for name in PRINCIPALS}
COLUMN_TOKEN = {"wrong": new_token(), "other": TOKENS["bob"], "owner": TOKENS["alice"]}
COLUMN_TOKEN["admin"] = TOKENS["root"]
KERNEL_SERVICE = kpb.DESCRIPTOR.services_by_name["KernelService"]
RESOURCE_SERVICE = rpb.DESCRIPTOR.services_by_name["ResourceService"]
#: The turn the victim session runs: it waits at a sandbox-boundary request, then at a question.
WAITING_SCRIPT = "/script approve rm -rf /tmp/nothing; ask proceed? | yes | no; hang"


def metadata(column: str) -> tuple[tuple[str, str], ...]:
    token = COLUMN_TOKEN.get(column)
    return () if token is None else (("authorization", f"Bearer {token}"),)


def as_principal(name: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {TOKENS[name]}"),)


@dataclass
class Things:
    """What a call acts on: alice's session (its turn waiting at an interaction request) and a
    PTY run of hers on the resource service, with a connection holding no lease yet."""

    session_id: str
    turn_id: str = ""
    request_id: str = ""
    ref: str = ""
    connection_id: str = ""
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)


@dataclass
class Env:
    kernel: InProcess
    resource: InProcess
    kernel_channel: grpc.aio.Channel
    resource_channel: grpc.aio.Channel
    data: Path
    workspace: Path
    made: list[Things] = field(default_factory=list)

    def channel(self, method: descriptor.MethodDescriptor) -> grpc.aio.Channel:
        return (
            self.kernel_channel
            if method.containing_service is KERNEL_SERVICE
            else (self.resource_channel)
        )


# -- calling any RPC from its descriptor ----------------------------------------------------


def message_class(module: Any, desc: descriptor.Descriptor) -> type[message.Message]:
    cls: type[message.Message] = getattr(module, desc.name)
    return cls


def path_of(method: descriptor.MethodDescriptor) -> str:
    return f"/{method.containing_service.full_name}/{method.name}"


async def invoke(
    channel: grpc.aio.Channel,
    method: descriptor.MethodDescriptor,
    request: message.Message,
    md: tuple[tuple[str, str], ...],
) -> tuple[grpc.StatusCode, Any, str]:
    """Call *method* with *request*; a stream counts as answered at its first response. The
    status, the first (or only) response and the error's ErrorInfo reason."""
    module = kpb if method.containing_service is KERNEL_SERVICE else rpb
    out = message_class(module, method.output_type)
    kwargs: dict[str, Any] = {
        "request_serializer": type(request).SerializeToString,
        "response_deserializer": out.FromString,
    }
    path = path_of(method)
    call: Any = None
    try:
        if method.client_streaming:
            call = channel.stream_stream(path, **kwargs)(metadata=md, timeout=20)
            await call.write(request)
            response = await call.read()
        elif method.server_streaming:
            call = channel.unary_stream(path, **kwargs)(request, metadata=md, timeout=20)
            response = await call.read()
        else:
            response = await channel.unary_unary(path, **kwargs)(request, metadata=md, timeout=20)
    except grpc.aio.AioRpcError as error:
        return error.code(), None, reason_of(error)
    finally:
        if call is not None:
            call.cancel()
    assert response is not grpc.aio.EOF, f"{path}: the stream ended without a response"
    return S.OK, response, ""


def reason_of(error: grpc.aio.AioRpcError) -> str:
    info = error_info(error)
    return info.reason if info is not None else ""


# -- the rows: each RPC's request and the status each column expects ------------------------

Build = Callable[[Things], message.Message]


@dataclass(frozen=True)
class Row:
    build: Build
    expect: dict[str, grpc.StatusCode]
    #: Fresh things for an allowed cell need a waiting turn (else only a session and a run).
    turn: bool = False


def row(build: Build, *, turn: bool = False, **expect: grpc.StatusCode) -> Row:
    expected = {"none": S.UNAUTHENTICATED, "wrong": S.UNAUTHENTICATED, "other": S.NOT_FOUND}
    expected |= {"owner": S.OK, "admin": S.OK}
    expected |= expect
    return Row(build, expected, turn)


def shutdown_row(request: message.Message) -> Row:
    denied = S.PERMISSION_DENIED
    return row(lambda t: request, other=denied, owner=denied)


# A workspace clear of the kernel's data directory (under the test's tmp path, as /tmp is not).
WORKSPACE = "/tmp/maka-matrix-workspace"
os.makedirs(WORKSPACE, exist_ok=True)


def kernel_session(t: Things, **fields: Any) -> Any:
    return {"session_id": t.session_id, **fields}


KERNEL_ROWS: dict[str, Row] = {
    "GetServerInfo": row(lambda t: kpb.GetServerInfoRequest(), other=S.OK),
    "CreateSession": row(
        lambda t: kpb.CreateSessionRequest(workspace_root=WORKSPACE, backend="scripted"),
        other=S.OK,
    ),
    "GetSession": row(lambda t: kpb.GetSessionRequest(**kernel_session(t))),
    "ListSessions": row(lambda t: kpb.ListSessionsRequest(), other=S.OK),
    "UpdateSession": row(lambda t: kpb.UpdateSessionRequest(**kernel_session(t, name="mine"))),
    "DeleteSession": row(lambda t: kpb.DeleteSessionRequest(**kernel_session(t))),
    "ReadMessages": row(lambda t: kpb.ReadMessagesRequest(**kernel_session(t))),
    "ListTurns": row(lambda t: kpb.ListTurnsRequest(**kernel_session(t))),
    "ListInteractions": row(lambda t: kpb.ListInteractionsRequest(**kernel_session(t))),
    "StartTurn": row(lambda t: kpb.StartTurnRequest(**kernel_session(t, text="/script say hello"))),
    "StopSession": row(lambda t: kpb.StopSessionRequest(**kernel_session(t)), turn=True),
    "RespondToSandboxBoundary": row(
        lambda t: kpb.RespondToSandboxBoundaryRequest(
            **kernel_session(t, request_id=t.request_id),
            decision=kpb.SANDBOX_DECISION_ALLOW_ONCE,
        ),
        turn=True,
    ),
    "RespondToUserQuestion": row(
        lambda t: kpb.RespondToUserQuestionRequest(
            **kernel_session(t, request_id=t.request_id), answers=["yes"]
        ),
        turn=True,
    ),
    "SendMessage": row(
        lambda t: kpb.SendMessageRequest(**kernel_session(t, text="more")), turn=True
    ),
    "WatchSession": row(lambda t: kpb.WatchSessionRequest(**kernel_session(t))),
    "Shutdown": shutdown_row(kpb.ShutdownRequest()),
}


def run_of(t: Things, **fields: Any) -> Any:
    return {"session_id": t.session_id, "ref": t.ref, **fields}


def lease_of(t: Things) -> Any:
    return run_of(t, controller_id="ctl", connection_id=t.connection_id)


def kernel_only(build: Build) -> Row:
    """A call only the kernel's link may make: every other principal, admin too, is denied."""
    denied = S.PERMISSION_DENIED
    return row(build, other=denied, owner=denied, admin=denied)


RESOURCE_ROWS: dict[str, Row] = {
    "GetServerInfo": row(lambda t: rpb.GetServerInfoRequest(), other=S.OK),
    "OpenConnection": row(lambda t: rpb.OpenConnectionRequest(client_name="matrix"), other=S.OK),
    # The owner of a kernel session may not run commands in it directly (the denied-approval
    # bypass): PERMISSION_DENIED, while another principal does not even see the session.
    "RunForeground": row(
        lambda t: rpb.RunForegroundRequest(session_id=t.session_id, command="echo ran"),
        owner=S.PERMISSION_DENIED,
    ),
    "StartBackground": row(
        lambda t: rpb.StartBackgroundRequest(session_id=t.session_id, command="echo ran"),
        owner=S.PERMISSION_DENIED,
    ),
    "GetRun": row(lambda t: rpb.GetRunRequest(**run_of(t))),
    "ListRuns": row(lambda t: rpb.ListRunsRequest(session_id=t.session_id)),
    "StopRun": row(lambda t: rpb.StopRunRequest(**run_of(t))),
    "WatchRuns": row(lambda t: rpb.WatchRunsRequest(session_id=t.session_id)),
    "ReadRunOutput": row(lambda t: rpb.ReadRunOutputRequest(**run_of(t))),
    "AcquireController": row(lambda t: rpb.AcquireControllerRequest(**lease_of(t))),
    "ControlController": row(
        lambda t: rpb.ControlControllerRequest(**lease_of(t), sequence=1, input="typed")
    ),
    "ReleaseController": row(lambda t: rpb.ReleaseControllerRequest(**lease_of(t))),
    "Attach": row(lambda t: rpb.AttachRequest(start=rpb.AttachStart(**run_of(t)))),
    "Shutdown": shutdown_row(rpb.ShutdownRequest()),
    "RegisterSession": kernel_only(
        lambda t: rpb.RegisterSessionRequest(session_id=t.session_id, owner="bob")
    ),
    "ArchiveSession": kernel_only(
        lambda t: rpb.ArchiveSessionRequest(session_id=t.session_id, deleted=True)
    ),
}


def cells() -> list[tuple[descriptor.MethodDescriptor, Row]]:
    """Every RPC of both services with its row (an RPC without one fails here)."""
    found = []
    for service, rows in ((KERNEL_SERVICE, KERNEL_ROWS), (RESOURCE_SERVICE, RESOURCE_ROWS)):
        missing = [m.name for m in service.methods if m.name not in rows]
        assert not missing, f"{service.full_name} RPCs without an authorization row: {missing}"
        assert set(rows) == {m.name for m in service.methods}, "rows for RPCs that do not exist"
        found += [(m, rows[m.name]) for m in service.methods]
    return found


# -- the services and alice's things --------------------------------------------------------


def write_token_file(path: Path) -> None:
    tokens = [
        {"principal": name, "roles": roles, "sha256": hash_token(TOKENS[name])}
        for name, roles in PRINCIPALS.items()
    ]
    path.write_text(json.dumps({"tokens": tokens}))
    path.chmod(0o600)


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    tokens = tmp_path / "tokens.json"
    write_token_file(tokens)
    link = tmp_path / "link.token"
    link.write_text(TOKENS["link"])
    workspace = tmp_path / "workspace"
    workspace.mkdir()

    def common(service: str) -> CommonConfig:
        return CommonConfig(
            service=service,
            listen="127.0.0.1:0",
            data_dir=tmp_path / f"{service}-data",
            log_level="info",
            shutdown_grace=2.0,
            token_file=tokens,
        )

    resource_service = ResourceService(ResourceConfig(common=common("resource"), shell=E2E_CONFIG))
    resource = await serve_in_process(common("resource"), resource_service)
    config = KernelConfig(
        common=common("kernel"),
        resource_address=resource.address,
        default_backend="scripted",
        shutdown_resource=False,
        resource_token_file=str(link),
    )
    kernel = await serve_in_process(config.common, KernelService(config))
    kernel_channel = auth.bare_aio_channel(kernel.address)
    resource_channel = auth.bare_aio_channel(resource.address)
    channels = [kernel_channel, resource_channel]
    running = Env(kernel, resource, kernel_channel, resource_channel, tmp_path, workspace)
    try:
        yield running
    finally:
        for things in running.made:
            for task in things.tasks:
                task.cancel()
        for channel in channels:
            await channel.close()
        await kernel.stop()
        await resource.stop()


async def ok(env: Env, method: descriptor.MethodDescriptor, request: Any, who: str) -> Any:
    code, response, reason = await invoke(env.channel(method), method, request, as_principal(who))
    assert code == S.OK, f"{method.name} as {who}: {code} {reason}"
    return response


def kernel_rpc(name: str) -> descriptor.MethodDescriptor:
    return KERNEL_SERVICE.methods_by_name[name]


def resource_rpc(name: str) -> descriptor.MethodDescriptor:
    return RESOURCE_SERVICE.methods_by_name[name]


async def waiting_turn(env: Env, things: Things, wanted: str) -> None:
    """Start alice's waiting turn and return once it waits at a *wanted* request (the stream
    stays open in a task: closing it would stop the turn)."""
    call = kpb_stub(env).StartTurn(
        kpb.StartTurnRequest(session_id=things.session_id, turn_id="t1", text=WAITING_SCRIPT),
        metadata=as_principal("alice"),
    )
    reached: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def follow() -> None:
        with contextlib.suppress(grpc.aio.AioRpcError):
            await answer_until(call)

    async def answer_until(call: Any) -> None:
        async for response in call:
            kind = response.event.WhichOneof("event")
            if kind in ("sandbox_boundary_request", "user_question_request"):
                request_id = getattr(response.event, kind).request_id
                if kind == wanted and not reached.done():
                    reached.set_result(request_id)
                elif kind == "sandbox_boundary_request":
                    await kpb_stub(env).RespondToSandboxBoundary(
                        kpb.RespondToSandboxBoundaryRequest(
                            session_id=things.session_id,
                            request_id=request_id,
                            decision=kpb.SANDBOX_DECISION_ALLOW_ONCE,
                        ),
                        metadata=as_principal("alice"),
                    )

    things.tasks.append(asyncio.create_task(follow()))
    things.turn_id = "t1"
    things.request_id = await asyncio.wait_for(reached, 20)


def kpb_stub(env: Env) -> Any:
    return kernel_pb2_grpc.KernelServiceStub(env.kernel_channel)


async def alices_things(env: Env, *, turn: str = "", run: bool = True) -> Things:
    """A session of alice's (registered on the resource service as the kernel does, with
    her as owner), a live PTY run in it and an open connection; with *turn*, its turn waits
    at a request of that kind."""
    created = await ok(
        env,
        kernel_rpc("CreateSession"),
        kpb.CreateSessionRequest(workspace_root=str(env.workspace), backend="scripted"),
        "alice",
    )
    things = Things(created.session.id)
    env.made.append(things)
    assert created.session.owner == "alice"
    await ok(
        env,
        resource_rpc("RegisterSession"),
        rpb.RegisterSessionRequest(
            session_id=things.session_id, cwd=str(env.workspace), owner="alice"
        ),
        "link",
    )
    if turn:
        await waiting_turn(env, things, turn)
    if not run:
        return things
    started = await ok(
        env,
        resource_rpc("StartBackground"),
        rpb.StartBackgroundRequest(session_id=things.session_id, command="cat", pty=True),
        "link",
    )
    things.ref = started.run.ref
    connection = resource_rpc("OpenConnection")
    opened: Any = env.resource_channel.unary_stream(
        path_of(connection),
        request_serializer=rpb.OpenConnectionRequest.SerializeToString,
        response_deserializer=rpb.OpenConnectionResponse.FromString,
    )(rpb.OpenConnectionRequest(client_name="alice"), metadata=as_principal("alice"))
    things.connection_id = (await opened.read()).connection_id
    things.tasks.append(asyncio.create_task(hold(opened)))
    return things


async def hold(call: Any) -> None:
    """Keep a connection open until the test ends (or the service does)."""
    try:
        with contextlib.suppress(grpc.aio.AioRpcError):
            await call.read()
    finally:
        call.cancel()


async def prepare(env: Env, method: descriptor.MethodDescriptor, row: Row, who: str) -> Things:
    """Fresh things for an allowed cell of *method* (what the call needs already there)."""
    name = method.name
    turn = "user_question_request" if name == "RespondToUserQuestion" else ""
    if row.turn and not turn:
        turn = "sandbox_boundary_request"
    things = await alices_things(env, turn=turn, run=method.containing_service is RESOURCE_SERVICE)
    if name in ("ControlController", "ReleaseController"):
        acquire = rpb.AcquireControllerRequest(**lease_of(things))
        await ok(env, resource_rpc("AcquireController"), acquire, who)
    return things


async def dispose(env: Env, things: Things) -> None:
    """End what an allowed cell's things left running (its PTY, its turn, its connection)."""
    if things.ref:
        await invoke(
            env.resource_channel,
            resource_rpc("StopRun"),
            rpb.StopRunRequest(ref=things.ref),
            as_principal("link"),
        )
    for task in things.tasks:
        task.cancel()
    await asyncio.gather(*things.tasks, return_exceptions=True)
    things.tasks.clear()


def snapshot(data: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of every SQLite store under *data*."""
    tables: dict[str, list[tuple[Any, ...]]] = {}
    for path in sorted(data.rglob("*.sqlite3")):
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            for name in names:
                rows = db.execute(f'SELECT * FROM "{name}"').fetchall()
                tables[f"{path.name}:{name}"] = sorted(rows, key=repr)
    return tables


# -- the matrix -----------------------------------------------------------------------------


async def test_every_rpc_for_every_kind_of_caller(env: Env) -> None:
    matrix = cells()
    assert len(matrix) == len(KERNEL_SERVICE.methods) + len(RESOURCE_SERVICE.methods)
    outcome: dict[tuple[str, str], grpc.StatusCode] = {}

    # Refused cells: all against one set of alice's things, nothing may change.
    victim = await alices_things(env, turn="sandbox_boundary_request")
    before = snapshot(env.data)
    for method, r in matrix:
        for column in COLUMNS:
            if r.expect[column] == S.OK:
                continue
            code, _, reason = await invoke(
                env.channel(method), method, r.build(victim), metadata(column)
            )
            outcome[(path_of(method), column)] = code
            assert code == r.expect[column], f"{path_of(method)} as {column}: {code} {reason}"
            if code == S.NOT_FOUND:
                assert reason == "NOT_FOUND", f"{path_of(method)} as {column}: {reason}"
    assert snapshot(env.data) == before, "a refused call changed a store"
    # Still alice's, untouched: her turn waits, her run lives.
    info = await ok(
        env, kernel_rpc("GetSession"), kpb.GetSessionRequest(session_id=victim.session_id), "alice"
    )
    assert info.session.status == kpb.SESSION_STATUS_WAITING_FOR_USER
    run = await ok(env, resource_rpc("GetRun"), rpb.GetRunRequest(ref=victim.ref), "alice")
    assert run.run.status == rpb.RUN_STATUS_RUNNING

    # Allowed cells: fresh things each; Shutdown by admin last (it ends the service).
    last: list[tuple[descriptor.MethodDescriptor, Row]] = []
    for method, r in matrix:
        for column in COLUMNS:
            if r.expect[column] != S.OK:
                continue
            if method.name == "Shutdown":
                last.append((method, r))
                continue
            who = {"other": "bob", "owner": "alice", "admin": "root"}[column]
            things = await prepare(env, method, r, who)
            code, response, reason = await invoke(
                env.channel(method), method, r.build(things), metadata(column)
            )
            outcome[(path_of(method), column)] = code
            await dispose(env, things)
            assert code == S.OK, f"{path_of(method)} as {column} ({who}): {code} {reason}"
            if method.name == "ListSessions":
                listed = {s.id: s.owner for s in response.sessions}
                if column == "other":
                    assert things.session_id not in listed and set(listed.values()) <= {"bob"}
                else:
                    assert listed[things.session_id] == "alice"
    for method, r in last:
        code, _, reason = await invoke(
            env.channel(method), method, r.build(victim), metadata("admin")
        )
        outcome[(path_of(method), "admin")] = code
        assert code == S.OK, f"{path_of(method)} as admin: {code} {reason}"

    assert len(outcome) == len(matrix) * len(COLUMNS)
    print(
        f"authorization matrix: {len(matrix)} RPCs x {len(COLUMNS)} callers = {len(outcome)} cells"
    )


async def turn_answering(env: Env, session_id: str, text: str, decision: Any) -> list[Any]:
    """Run a turn of alice's to its end, answering its sandbox-boundary request with
    *decision*; its events."""
    events = []
    call = kpb_stub(env).StartTurn(
        kpb.StartTurnRequest(session_id=session_id, text=text), metadata=as_principal("alice")
    )
    async for response in call:
        events.append(response.event)
        if response.event.WhichOneof("event") == "sandbox_boundary_request":
            await ok(
                env,
                kernel_rpc("RespondToSandboxBoundary"),
                kpb.RespondToSandboxBoundaryRequest(
                    session_id=session_id,
                    request_id=response.event.sandbox_boundary_request.request_id,
                    decision=decision,
                ),
                "alice",
            )
    return events


async def test_a_denied_command_cannot_be_run_on_the_resource_service_directly(
    env: Env,
) -> None:
    created = await ok(
        env,
        kernel_rpc("CreateSession"),
        kpb.CreateSessionRequest(
            workspace_root=str(env.workspace),
            backend="shell",
            permission_mode=kpb.PERMISSION_MODE_ASK,
        ),
        "alice",
    )
    session_id = created.session.id
    # An approved command: the kernel registers the session with its owner, then runs it.
    allowed = await turn_answering(
        env, session_id, "echo approved", kpb.SANDBOX_DECISION_ALLOW_ONCE
    )
    assert any(e.WhichOneof("event") == "tool_result" for e in allowed)
    resource_db = next((env.data / "resource-data").rglob("*.sqlite3"))
    with sqlite3.connect(f"file:{resource_db}?mode=ro", uri=True) as db:
        owners = db.execute(
            "SELECT owner, origin FROM session_owners WHERE session_id = ?", (session_id,)
        ).fetchall()
    assert owners == [("alice", "kernel")]

    marker = env.workspace / "denied-ran"
    denied = await turn_answering(env, session_id, f"touch {marker}", kpb.SANDBOX_DECISION_DENY)
    assert any(e.WhichOneof("event") == "sandbox_boundary_request" for e in denied)
    assert not marker.exists()
    before = snapshot(env.data / "resource-data")
    for name, request in (
        (
            "RunForeground",
            rpb.RunForegroundRequest(session_id=session_id, command=f"touch {marker}"),
        ),
        (
            "StartBackground",
            rpb.StartBackgroundRequest(session_id=session_id, command=f"touch {marker}"),
        ),
    ):
        method = resource_rpc(name)
        for who, expected in (("alice", S.PERMISSION_DENIED), ("bob", S.NOT_FOUND)):
            code, _, reason = await invoke(env.resource_channel, method, request, as_principal(who))
            assert (code, reason) == (expected, expected.name), f"{name} as {who}"
    assert not marker.exists()
    assert snapshot(env.data / "resource-data") == before  # no run was recorded


async def test_standalone_runs_belong_to_the_principal_that_names_the_session_first(
    tmp_path: Path,
) -> None:
    tokens = tmp_path / "tokens.json"
    write_token_file(tokens)
    common = CommonConfig(
        service="resource",
        listen="127.0.0.1:0",
        data_dir=tmp_path / "resource-data",
        log_level="info",
        shutdown_grace=2.0,
        token_file=tokens,
    )
    config = ResourceConfig(common=common, shell=E2E_CONFIG, standalone=True)
    resource = await serve_in_process(common, ResourceService(config))
    channel = auth.bare_aio_channel(resource.address)
    try:
        run = resource_rpc("RunForeground")
        request = rpb.RunForegroundRequest(session_id="alices", command="echo mine")
        # Read to its end: the run has ended and its final state is stored before the snapshot.
        call: Any = channel.unary_stream(
            path_of(run),
            request_serializer=rpb.RunForegroundRequest.SerializeToString,
            response_deserializer=rpb.RunForegroundResponse.FromString,
        )(request, metadata=as_principal("alice"), timeout=20)
        responses = [response async for response in call]
        assert responses[-1].WhichOneof("event") == "result"
        before = snapshot(tmp_path)
        for name, req in (
            ("RunForeground", request),
            ("ListRuns", rpb.ListRunsRequest(session_id="alices")),
            ("WatchRuns", rpb.WatchRunsRequest(session_id="alices")),
        ):
            code, _, reason = await invoke(channel, resource_rpc(name), req, as_principal("bob"))
            assert (code, reason) == (S.NOT_FOUND, "NOT_FOUND"), name
        assert snapshot(tmp_path) == before
        code, listed, _ = await invoke(
            channel, resource_rpc("ListRuns"), rpb.ListRunsRequest(), as_principal("bob")
        )
        assert code == S.OK and list(listed.runs) == []
        code, listed, _ = await invoke(
            channel,
            resource_rpc("ListRuns"),
            rpb.ListRunsRequest(session_id="alices"),
            as_principal("alice"),
        )
        assert code == S.OK and [r.session_id for r in listed.runs] == ["alices"]
    finally:
        await channel.close()
        await resource.stop()

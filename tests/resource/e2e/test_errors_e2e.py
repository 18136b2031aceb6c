"""Bad input through the wire: status code, ErrorInfo reason, the offending field; nothing
changes. And the fail-stop latch: lost state turns health NOT_SERVING and drains."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from maka_runtime.resource.api.status import failure_of
from maka_runtime.resource.core import NotFoundError, SessionInfo, StandaloneSessionDirectory
from maka_runtime.resource.server import SERVICE_NAME
from tests.resource.e2e.conftest import (
    E2E_CONFIG,
    SESSION_ID,
    Server,
    health_status,
    open_connection,
    raises_status,
    start_server,
    stop_server,
)

UNKNOWN = "maka://runtime/background-tasks/0123456789abcdef"
INVALID = (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
MISSING = (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")


def foreground(**fields: Any) -> Callable[[Any, dict[str, Any]], Awaitable[Any]]:
    fields = {"session_id": SESSION_ID, "command": "true", "cwd": "/", **fields}

    async def call(stub: Any, _: dict[str, Any]) -> Any:
        return [event async for event in stub.RunForeground(pb.RunForegroundRequest(**fields))]

    return call


def background(**fields: Any) -> Callable[[Any, dict[str, Any]], Awaitable[Any]]:
    fields = {"session_id": SESSION_ID, "command": "true", "cwd": "/", **fields}
    return lambda stub, _: stub.StartBackground(pb.StartBackgroundRequest(**fields))


def control(**fields: Any) -> Callable[[Any, dict[str, Any]], Awaitable[Any]]:
    def call(stub: Any, live: dict[str, Any]) -> Awaitable[Any]:
        request = {
            "session_id": SESSION_ID,
            "ref": live["ref"],
            "controller_id": "k",
            "connection_id": live["connection"],
            "sequence": 1,
            "input": "x",
            **fields,
        }
        response: Awaitable[Any] = stub.ControlController(pb.ControlControllerRequest(**request))
        return response

    return call


def attach(**start: Any) -> Callable[[Any, dict[str, Any]], Awaitable[Any]]:
    async def call(stub: Any, live: dict[str, Any]) -> Any:
        fields = {"session_id": SESSION_ID, "ref": live["ref"], **start}
        stream = stub.Attach()
        await stream.write(pb.AttachRequest(start=pb.AttachStart(**fields)))
        return await stream.read()

    return call


def acquire(**fields: Any) -> Callable[[Any, dict[str, Any]], Awaitable[Any]]:
    def call(stub: Any, live: dict[str, Any]) -> Awaitable[Any]:
        request = {
            "session_id": SESSION_ID,
            "ref": live["ref"],
            "controller_id": "k",
            "connection_id": live["connection"],
            **fields,
        }
        response: Awaitable[Any] = stub.AcquireController(pb.AcquireControllerRequest(**request))
        return response

    return call


def release(**fields: Any) -> Callable[[Any, dict[str, Any]], Awaitable[Any]]:
    def call(stub: Any, live: dict[str, Any]) -> Awaitable[Any]:
        request = {
            "session_id": SESSION_ID,
            "ref": live["ref"],
            "controller_id": "k",
            "connection_id": live["connection"],
            **fields,
        }
        response: Awaitable[Any] = stub.ReleaseController(pb.ReleaseControllerRequest(**request))
        return response

    return call


async def _watch(stub: Any, **fields: Any) -> Any:
    return await stub.WatchRuns(pb.WatchRunsRequest(**fields)).read()


CASES: list[tuple[str, Callable[[Any, dict[str, Any]], Awaitable[Any]], tuple[Any, str], str]] = [
    ("empty command", foreground(command=""), INVALID, "command"),
    ("foreground pty", foreground(pty=True), INVALID, "pty"),
    ("missing cwd", background(cwd="/no/such/dir"), INVALID, "cwd"),
    ("cwd is a file", background(cwd="/etc/hostname"), INVALID, "cwd"),
    ("zero timeout", background(timeout_ms=0), INVALID, "timeout_ms"),
    ("negative timeout", foreground(timeout_ms=-1), INVALID, "timeout_ms"),
    ("oversized timeout", background(timeout_ms=86_400_001), INVALID, "timeout_ms"),
    (
        "narrow pty",
        background(pty=True, size=pb.TerminalSize(cols=1, rows=24)),
        INVALID,
        "size.cols",
    ),
    (
        "tall pty",
        background(pty=True, size=pb.TerminalSize(cols=80, rows=101)),
        INVALID,
        "size.rows",
    ),
    ("no session", background(session_id=""), INVALID, "session_id"),
    ("bad env", background(env={"1BAD": "x"}), INVALID, "env"),
    (
        "unknown ref",
        lambda s, _: s.GetRun(pb.GetRunRequest(session_id=SESSION_ID, ref=UNKNOWN)),
        MISSING,
        "ref",
    ),
    (
        "stop unknown",
        lambda s, _: s.StopRun(pb.StopRunRequest(session_id=SESSION_ID, ref=UNKNOWN)),
        MISSING,
        "ref",
    ),
    (
        "bad ref",
        lambda s, _: s.GetRun(pb.GetRunRequest(session_id=SESSION_ID, ref="42")),
        INVALID,
        "ref",
    ),
    (
        "bad page size",
        lambda s, _: s.ListRuns(pb.ListRunsRequest(session_id=SESSION_ID, page_size=-1)),
        INVALID,
        "page_size",
    ),
    (
        "unknown connection",
        lambda s, live: s.AcquireController(
            pb.AcquireControllerRequest(
                session_id=SESSION_ID, ref=live["ref"], controller_id="k", connection_id="conn-nope"
            )
        ),
        MISSING,
        "connection_id",
    ),
    ("oversized input", control(input="x" * (32 * 1024 + 1)), INVALID, "input"),
    ("zero sequence", control(sequence=0), INVALID, "sequence"),
    ("negative sequence", control(sequence=-3), INVALID, "sequence"),
    (
        "narrow resize",
        control(input="", resize=pb.TerminalSize(cols=241, rows=24)),
        INVALID,
        "resize.cols",
    ),
    (
        "short resize",
        control(input="", resize=pb.TerminalSize(cols=80, rows=0)),
        INVALID,
        "resize.rows",
    ),
    ("empty control", control(input=""), INVALID, "input"),
    ("relative cwd", background(cwd="tmp"), INVALID, "cwd"),
    ("foreground over 10 min", foreground(timeout_ms=600_001), INVALID, "timeout_ms"),
    ("negative background timeout", background(timeout_ms=-1), INVALID, "timeout_ms"),
    ("blank command", background(command=" \n "), INVALID, "command"),
    ("bad session id", background(session_id="has space"), INVALID, "session_id"),
    ("acquire unknown ref", acquire(ref=UNKNOWN), MISSING, "ref"),
    ("acquire bad ref", acquire(ref="maka://elsewhere/1"), INVALID, "ref"),
    ("acquire bad controller id", acquire(controller_id="has space"), INVALID, "controller_id"),
    ("control unknown ref", control(ref=UNKNOWN), MISSING, "ref"),
    ("release unknown ref", release(ref=UNKNOWN), MISSING, "ref"),
    ("release bad ref", release(ref=""), INVALID, "ref"),
    ("attach unknown ref", attach(ref=UNKNOWN), MISSING, "start.ref"),
    ("attach bad ref", attach(ref="42"), INVALID, "start.ref"),
    ("attach before the start", attach(after_sequence=-1), INVALID, "start.after_sequence"),
    (
        "attach beyond the output",
        attach(after_sequence=1000),
        (grpc.StatusCode.OUT_OF_RANGE, "OUT_OF_RANGE"),
        "start.after_sequence",
    ),
    (
        "watch from a negative change",
        lambda s, _: _watch(s, session_id=SESSION_ID, after_change_seq=-1),
        INVALID,
        "after_change_seq",
    ),
    (
        "bad page token",
        lambda s, _: s.ListRuns(pb.ListRunsRequest(session_id=SESSION_ID, page_token="x")),
        INVALID,
        "page_token",
    ),
]


@pytest.mark.parametrize(
    ("call", "expected", "field"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
async def test_bad_input_gets_error_info_with_its_field_and_changes_nothing(
    server: Server,
    call: Callable[[Any, dict[str, Any]], Awaitable[Any]],
    expected: tuple[grpc.StatusCode, str],
    field: str,
) -> None:
    stub = server.stub()
    connection, keepalive = await open_connection(stub, "bad-input")
    run = (
        await stub.StartBackground(
            pb.StartBackgroundRequest(session_id=SESSION_ID, command="cat", cwd="/", pty=True)
        )
    ).run
    await stub.AcquireController(
        pb.AcquireControllerRequest(
            session_id=SESSION_ID, ref=run.ref, controller_id="k", connection_id=connection
        )
    )
    before = await stub.ListRuns(pb.ListRunsRequest(session_id=SESSION_ID))
    async with raises_status(*expected) as refused:
        await call(stub, {"ref": run.ref, "connection": connection})
    # A limit that was broken (or the newest cursor, past the end) is named too.
    extra = {"limit", "last"}
    assert {k: v for k, v in refused["metadata"].items() if k not in extra} == {"field": field}
    after = await stub.ListRuns(pb.ListRunsRequest(session_id=SESSION_ID))
    assert [r.ref for r in after.runs] == [r.ref for r in before.runs]
    retry = await stub.AcquireController(
        pb.AcquireControllerRequest(
            session_id=SESSION_ID, ref=run.ref, controller_id="k", connection_id=connection
        )
    )
    assert retry.next_sequence == 1  # no control was consumed
    assert not server.failed
    await stub.StopRun(pb.StopRunRequest(session_id=SESSION_ID, ref=run.ref))
    keepalive.cancel()


async def test_foreground_pty_refusal_says_to_use_a_background_run(server: Server) -> None:
    async with raises_status(*INVALID) as refused:
        await foreground(pty=True)(server.stub(), {})
    assert "background run" in refused["message"]


async def test_losing_the_store_trips_fail_stop_health_and_drain(server: Server) -> None:
    channel = server.channel()
    stub = server.stub(channel)
    run = (
        await stub.StartBackground(
            pb.StartBackgroundRequest(session_id=SESSION_ID, command="sleep 60", cwd="/")
        )
    ).run
    assert server.service.storage_owner is not None
    server.service.storage_owner.close()  # from now on the store refuses every call: state is lost
    async with raises_status(grpc.StatusCode.UNAVAILABLE, "PERSISTENCE_FAILED"):
        await stub.StopRun(pb.StopRunRequest(session_id=SESSION_ID, ref=run.ref))
    assert server.failed
    watch = _watch_health(channel)
    async for reply in watch:
        if reply.status == health_pb2.HealthCheckResponse.NOT_SERVING:
            break
    watch.cancel()
    assert await health_status(channel) == health_pb2.HealthCheckResponse.NOT_SERVING
    async with raises_status(grpc.StatusCode.UNAVAILABLE, "HOST_DRAINING"):
        await stub.StartBackground(
            pb.StartBackgroundRequest(session_id=SESSION_ID, command="true", cwd="/")
        )
    assert server.residencies == 0


def _watch_health(channel: grpc.aio.Channel) -> Any:
    return health_pb2_grpc.HealthStub(channel).Watch(
        health_pb2.HealthCheckRequest(service=SERVICE_NAME)
    )


def test_unknown_errors_are_internal_and_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="maka.resource.api"):
        failure = failure_of(RuntimeError("a bug"))
    assert (failure.code, failure.reason) == (grpc.StatusCode.INTERNAL, "INTERNAL_FAILURE")
    assert "a bug" not in failure.message
    assert len(caplog.records) == 1 and caplog.records[0].exc_info is not None
    known = failure_of(NotFoundError("no run", field="ref"))
    assert (known.code, known.reason, dict(known.metadata)) == (
        grpc.StatusCode.NOT_FOUND,
        "NOT_FOUND",
        {"field": "ref"},
    )


class FaultySessions(StandaloneSessionDirectory):
    """Standalone sessions whose next lookup can be made to raise an unexpected exception: a
    bug inside one request, injected where the service asks about sessions."""

    def __init__(self) -> None:
        super().__init__()
        self.fault: Exception | None = None

    async def lookup(self, session_id: str) -> SessionInfo | None:
        fault, self.fault = self.fault, None
        if fault is not None:
            raise fault
        return await super().lookup(session_id)


async def _start_crashing(stub: Any) -> Any:
    return await stub.StartBackground(
        pb.StartBackgroundRequest(session_id=SESSION_ID, command="true", cwd="/")
    )


async def _foreground_crashing(stub: Any) -> Any:
    request = pb.RunForegroundRequest(session_id=SESSION_ID, command="true", cwd="/")
    return [event async for event in stub.RunForeground(request)]


async def _watch_crashing(stub: Any) -> Any:
    return await _watch(stub, session_id=SESSION_ID)


@pytest.mark.parametrize(
    "crashing",
    [_start_crashing, _foreground_crashing, _watch_crashing],
    ids=["unary", "server stream", "watch stream"],
)
async def test_a_crash_inside_a_request_is_internal_failure_of_that_request_only(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    crashing: Callable[[Any], Awaitable[Any]],
) -> None:
    sessions = FaultySessions()
    server = await start_server(tmp_path / "data", sessions=sessions)
    try:
        channel = server.channel()
        stub = server.stub(channel)
        earlier = (
            await stub.StartBackground(
                pb.StartBackgroundRequest(session_id=SESSION_ID, command="sleep 60", cwd="/")
            )
        ).run

        sessions.fault = RuntimeError("a bug in one request")
        with caplog.at_level(logging.ERROR):
            async with raises_status(grpc.StatusCode.INTERNAL, "INTERNAL_FAILURE") as crashed:
                await crashing(stub)
        assert "a bug" not in crashed["message"]  # the details stay in the server's log
        assert crashed["metadata"] == {}
        tracebacks = [record for record in caplog.records if record.exc_info]
        assert len(tracebacks) == 1, "logged once, with its traceback"
        assert str(tracebacks[0].exc_info[1]) == "a bug in one request"  # type: ignore[index]

        # What one request carries never trips the fail-stop latch: the host keeps serving,
        # the earlier run keeps running, and the next start is admitted.
        assert not server.failed
        assert await health_status(channel) == health_pb2.HealthCheckResponse.SERVING
        info = await stub.GetServerInfo(pb.GetServerInfoRequest())
        assert not info.draining
        listed = await stub.ListRuns(pb.ListRunsRequest(session_id=SESSION_ID))
        assert [run.ref for run in listed.runs] == [earlier.ref]  # the crash changed nothing
        assert [run.status for run in listed.runs] == [pb.RUN_STATUS_RUNNING]
        started = await _start_crashing(stub)
        assert started.run.ref != earlier.ref
        stopped = await stub.StopRun(pb.StopRunRequest(session_id=SESSION_ID, ref=earlier.ref))
        assert (stopped.run.status, stopped.run.exit_code) == (pb.RUN_STATUS_CANCELLED, 130)
    finally:
        await stop_server(server)


async def test_live_run_and_pty_limits_are_resource_exhausted(tmp_path: Path) -> None:
    limits = dataclasses.replace(
        E2E_CONFIG, max_live_runs=2, max_live_ptys=1, max_live_runs_per_session=2
    )
    server = await start_server(tmp_path / "data", limits)
    try:
        stub = server.stub()

        def start(pty: bool) -> Awaitable[Any]:
            request = pb.StartBackgroundRequest(
                session_id=SESSION_ID, command="sleep 60", cwd="/", pty=pty
            )
            response: Awaitable[Any] = stub.StartBackground(request)
            return response

        pty = (await start(True)).run
        async with raises_status(grpc.StatusCode.RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED") as ptys:
            await start(True)
        assert "PTY runs are live (limit 1)" in ptys["message"]
        await start(False)
        async with raises_status(grpc.StatusCode.RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED") as runs:
            await start(False)
        assert "shell runs are live (limit 2)" in runs["message"]
        async with raises_status(grpc.StatusCode.RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED"):
            await _foreground_crashing(stub)
        listed = await stub.ListRuns(pb.ListRunsRequest(session_id=SESSION_ID))
        assert len(listed.runs) == 2  # refused starts recorded nothing
        assert server.residencies == 2  # and returned their residency
        await stub.StopRun(pb.StopRunRequest(session_id=SESSION_ID, ref=pty.ref))
        again = (await start(True)).run  # an ended run frees its slot
        assert again.status == pb.RUN_STATUS_RUNNING
        assert not server.failed
    finally:
        await stop_server(server)


async def test_unknown_and_archived_sessions_are_refused(tmp_path: Path) -> None:
    # As with a kernel: only sessions the directory knows are admitted.
    sessions = StandaloneSessionDirectory(admit_unknown=False)
    sessions.register(SESSION_ID, cwd=str(tmp_path))
    server = await start_server(tmp_path / "data", sessions=sessions)
    try:
        stub = server.stub()
        run = (
            await stub.StartBackground(
                pb.StartBackgroundRequest(session_id=SESSION_ID, command="cat", pty=True)
            )
        ).run
        assert run.cwd == str(tmp_path)  # an empty cwd means the session's directory
        live = {"ref": run.ref, "connection": ""}

        def calls(session_id: str) -> list[tuple[Callable[[Any, dict[str, Any]], Any], str]]:
            return [
                (background(session_id=session_id), "session_id"),
                (foreground(session_id=session_id), "session_id"),
                (
                    lambda s, live: s.GetRun(pb.GetRunRequest(session_id=session_id, ref=run.ref)),
                    "session_id",
                ),
                (
                    lambda s, _: s.ListRuns(pb.ListRunsRequest(session_id=session_id)),
                    "session_id",
                ),
                (
                    lambda s, _: s.StopRun(pb.StopRunRequest(session_id=session_id, ref=run.ref)),
                    "session_id",
                ),
                (lambda s, _: _watch(s, session_id=session_id), "session_id"),
                (acquire(session_id=session_id), "session_id"),
                (attach(session_id=session_id), "start.session_id"),
            ]

        for call, field in calls("no-such-session"):
            async with raises_status(grpc.StatusCode.NOT_FOUND, "NOT_FOUND") as unknown:
                await call(stub, live)
            assert unknown["metadata"] == {"field": field}

        sessions.archive(SESSION_ID)
        for call, field in calls(SESSION_ID):
            async with raises_status(
                grpc.StatusCode.FAILED_PRECONDITION, "SESSION_ARCHIVED"
            ) as archived:
                await call(stub, live)
            assert archived["metadata"] == {"field": field}
        assert server.coordinator.controller_of(run.ref) is None
        assert (await server.coordinator.manager.inspect(SESSION_ID, run.ref)).status == "running"
        assert not server.failed
    finally:
        await stop_server(server)


async def test_a_bad_control_on_the_attach_stream_is_rejected_with_its_field(
    server: Server,
) -> None:
    stub = server.stub()
    run = (
        await stub.StartBackground(
            pb.StartBackgroundRequest(
                session_id=SESSION_ID, command="stty -echo; echo READY; cat", cwd="/", pty=True
            )
        )
    ).run
    stream = stub.Attach()
    await stream.write(
        pb.AttachRequest(
            start=pb.AttachStart(session_id=SESSION_ID, ref=run.ref, controller_id="attached")
        )
    )
    assert (await stream.read()).attached.next_sequence == 1
    bad = [
        pb.AttachControl(sequence=1, input="x" * (32 * 1024 + 1)),
        pb.AttachControl(sequence=1, resize=pb.TerminalSize(cols=80, rows=101)),
        pb.AttachControl(sequence=0, input="x"),
        pb.AttachControl(sequence=1),
    ]
    for control in [*bad, pb.AttachControl(sequence=1, input="ok\r")]:
        await stream.write(pb.AttachRequest(control=control))
    outcomes: list[pb.ControlOutcome] = []
    while len(outcomes) < len(bad) + 1:
        event = await stream.read()
        if event.WhichOneof("event") == "control":
            outcomes.append(event.control)
    rejected = [
        (outcome.rejected.code, outcome.rejected.reason, outcome.rejected.field)
        for outcome in outcomes[:-1]
    ]
    invalid = grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert rejected == [
        (invalid, "INVALID_REQUEST", "control.input"),
        (invalid, "INVALID_REQUEST", "control.resize.rows"),
        (invalid, "INVALID_REQUEST", "sequence"),
        (invalid, "INVALID_REQUEST", "control.input"),
    ]
    # None of them used up sequence 1.
    assert outcomes[-1].applied.sequence == 1
    assert outcomes[-1].applied.input_bytes == 3
    stream.cancel()
    await stub.StopRun(pb.StopRunRequest(session_id=SESSION_ID, ref=run.ref))

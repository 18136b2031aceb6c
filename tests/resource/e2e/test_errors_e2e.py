"""Bad input through the wire: status code, ErrorInfo reason, the offending field; nothing
changes. And the fail-stop latch: lost state turns health NOT_SERVING and drains."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from maka.resource.v1 import resource_pb2 as pb

from resource_service.api.status import failure_of
from resource_service.core import NotFoundError
from resource_service.server import SERVICE_NAME
from tests.resource.e2e.conftest import (
    SESSION_ID,
    Server,
    health_status,
    open_connection,
    raises_status,
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
    assert refused["metadata"] == {"field": field}
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
    assert server.service._owner is not None
    server.service._owner.close()  # from now on the store refuses every call: state is lost
    async with raises_status(grpc.StatusCode.INTERNAL, "PERSISTENCE_FAILED"):
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

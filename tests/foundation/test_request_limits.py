"""Oversized and undecodable requests keep the error model, on both services, over real gRPC
with crafted bytes: unary and streaming RPCs (server streams, the bidi Attach, OpenConnection),
health and reflection alike. Each refusal has its status code and ``ErrorInfo`` reason, and the
service stays SERVING with nothing changed (``maka_runtime/common/request_guard.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc

from maka_runtime.common.request_guard import DEFAULT_MAX_REQUEST_BYTES
from maka_runtime.common.status import error_info
from maka_runtime.resource.server import parse_config
from tests.support.processes import ServiceProcess, running_service

FIVE_MB = 5 * 1000 * 1000
SESSION = "limits-session"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    with running_service("kernel", tmp_path_factory.mktemp("kernel")) as server:
        yield server


@pytest.fixture(scope="module")
def resource(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    with running_service("resource", tmp_path_factory.mktemp("resource"), "--standalone") as s:
        yield s


def string_field(number: int, raw: bytes) -> bytes:
    """A length-delimited field (wire type 2) with *raw* as its bytes."""
    return _varint(number << 3 | 2) + _varint(len(raw)) + raw


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def bad_bodies(valid: bytes, string_number: int) -> dict[str, tuple[bytes, grpc.StatusCode, str]]:
    """Crafted request bodies, with the status code and reason each must get."""
    bad_utf8 = string_field(string_number, b"ok \xff\xfe not utf-8")
    return {
        "five-megabytes": (
            string_field(string_number, b"x" * FIVE_MB),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "REQUEST_TOO_LARGE",
        ),
        # A valid message, then a string field cut short (its length says more than follows).
        "truncated": (
            valid + string_field(string_number, b"cut short here")[:-4],
            grpc.StatusCode.INVALID_ARGUMENT,
            "REQUEST_UNDECODABLE",
        ),
        # A string field sent as a varint.
        "wrong-wire-type": (
            _varint(string_number << 3 | 0) + _varint(5),
            grpc.StatusCode.INVALID_ARGUMENT,
            "REQUEST_UNDECODABLE",
        ),
        "invalid-utf-8": (bad_utf8, grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_UNDECODABLE"),
    }


def check_refusal(
    error: grpc.RpcError, code: grpc.StatusCode, reason: str, domain: str
) -> dict[str, str]:
    assert error.code() == code, (error.code(), error.details())
    info = error_info(error)
    assert info is not None, f"no ErrorInfo: {error.code()} {error.details()}"
    assert (info.reason, info.domain) == (reason, domain)
    if reason == "REQUEST_TOO_LARGE":
        assert info.metadata["limit_bytes"] == str(DEFAULT_MAX_REQUEST_BYTES)
        assert int(info.metadata["size_bytes"]) > FIVE_MB
        assert "larger than the limit" in (error.details() or "")
    else:
        assert "is not a valid maka." in (error.details() or "") or "grpc." in (
            error.details() or ""
        ), error.details()
    return dict(info.metadata)


def serving(address: str) -> None:
    with grpc.insecure_channel(address) as channel:
        answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert answer.status == health_pb2.HealthCheckResponse.SERVING


def raw_unary(channel: grpc.Channel, method: str, body: bytes) -> bytes:
    call: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
        method, request_serializer=None, response_deserializer=None
    )
    return call(body, timeout=30)


def raw_server_stream(channel: grpc.Channel, method: str, body: bytes) -> list[bytes]:
    call: grpc.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(
        method, request_serializer=None, response_deserializer=None
    )
    return list(call(body, timeout=30))


def raw_bidi(channel: grpc.Channel, method: str, bodies: list[bytes]) -> list[bytes]:
    call: grpc.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream(
        method, request_serializer=None, response_deserializer=None
    )
    return list(call(iter(bodies), timeout=30))


KERNEL = "/maka.kernel.v1.KernelService"
RESOURCE = "/maka.resource.v1.ResourceService"

# (method, kind, a valid body, the number of one of its string fields)
KERNEL_CALLS = [
    (
        f"{KERNEL}/CreateSession",
        "unary",
        kpb.CreateSessionRequest(workspace_root="/tmp", name="n").SerializeToString(),
        4,
    ),
    (
        f"{KERNEL}/StartTurn",
        "server-stream",
        kpb.StartTurnRequest(session_id="s", text="hello there").SerializeToString(),
        3,
    ),
    (
        f"{KERNEL}/WatchSession",
        "server-stream",
        kpb.WatchSessionRequest(session_id="some-session").SerializeToString(),
        1,
    ),
    (
        "/grpc.health.v1.Health/Check",
        "unary",
        health_pb2.HealthCheckRequest(service="maka.kernel.v1.KernelService").SerializeToString(),
        1,
    ),
]
RESOURCE_CALLS = [
    (
        f"{RESOURCE}/StartBackground",
        "unary",
        rpb.StartBackgroundRequest(session_id=SESSION, command="echo hi").SerializeToString(),
        2,
    ),
    (
        f"{RESOURCE}/RunForeground",
        "server-stream",
        rpb.RunForegroundRequest(session_id=SESSION, command="echo hi").SerializeToString(),
        2,
    ),
    (
        f"{RESOURCE}/OpenConnection",
        "server-stream",
        rpb.OpenConnectionRequest(client_name="a client").SerializeToString(),
        1,
    ),
    (
        f"{RESOURCE}/Attach",
        "bidi",
        rpb.AttachRequest(
            start=rpb.AttachStart(session_id=SESSION, ref="maka://runtime/background-tasks/x")
        ).SerializeToString(),
        # AttachRequest's fields are messages: the string goes inside ``start``.
        0,
    ),
]


def attach_body(inner: bytes) -> bytes:
    """An AttachRequest whose ``start`` (field 1) carries *inner* as its bytes."""
    return string_field(1, inner)


def send(channel: grpc.Channel, method: str, kind: str, body: bytes) -> None:
    if kind == "unary":
        raw_unary(channel, method, body)
    elif kind == "server-stream":
        raw_server_stream(channel, method, body)
    else:
        raw_bidi(channel, method, [body])


def cases(calls: list[tuple[str, str, bytes, int]]) -> list[Any]:
    params = []
    for method, kind, valid, number in calls:
        if method.endswith("/Attach"):
            start = rpb.AttachStart(session_id=SESSION, ref="r").SerializeToString()
            bodies = {
                name: (attach_body(body), code, reason)
                for name, (body, code, reason) in bad_bodies(start, 1).items()
            }
            bodies["truncated"] = (valid + attach_body(b"cut short")[:-3], *bodies["truncated"][1:])
        else:
            bodies = bad_bodies(valid, number)
        for name, (body, code, reason) in bodies.items():
            case = Case(method, kind, body, code, reason)
            params.append(pytest.param(case, id=f"{method}-{name}"))
    return params


@dataclass(frozen=True)
class Case:
    method: str
    kind: str
    body: bytes
    code: grpc.StatusCode
    reason: str


@pytest.mark.parametrize("case", cases(KERNEL_CALLS))
def test_kernel_refusals_keep_the_error_model(kernel: ServiceProcess, case: Case) -> None:
    with grpc.insecure_channel(kernel.address) as channel:
        before = kernel_pb2_grpc.KernelServiceStub(channel).ListSessions(
            kpb.ListSessionsRequest(), timeout=10
        )
        with pytest.raises(grpc.RpcError) as refused:
            send(channel, case.method, case.kind, case.body)
        check_refusal(refused.value, case.code, case.reason, "kernel.maka")
        after = kernel_pb2_grpc.KernelServiceStub(channel).ListSessions(
            kpb.ListSessionsRequest(), timeout=10
        )
    assert list(after.sessions) == list(before.sessions)
    serving(kernel.address)


@pytest.mark.parametrize("case", cases(RESOURCE_CALLS))
def test_resource_refusals_keep_the_error_model(resource: ServiceProcess, case: Case) -> None:
    with grpc.insecure_channel(resource.address) as channel:
        stub = resource_pb2_grpc.ResourceServiceStub(channel)
        before = stub.ListRuns(rpb.ListRunsRequest(session_id=SESSION), timeout=10)
        with pytest.raises(grpc.RpcError) as refused:
            send(channel, case.method, case.kind, case.body)
        check_refusal(refused.value, case.code, case.reason, "resource.maka")
        after = stub.ListRuns(rpb.ListRunsRequest(session_id=SESSION), timeout=10)
        info = stub.GetServerInfo(rpb.GetServerInfoRequest(), timeout=10)
    assert list(after.runs) == list(before.runs)
    assert not info.draining  # the fail-stop would drain
    serving(resource.address)


def test_the_wrong_wire_type_names_the_field(kernel: ServiceProcess) -> None:
    body = _varint(3 << 3 | 0) + _varint(7)  # StartTurnRequest.text as a varint
    with grpc.insecure_channel(kernel.address) as channel, pytest.raises(grpc.RpcError) as refused:
        raw_server_stream(channel, f"{KERNEL}/StartTurn", body)
    metadata = check_refusal(
        refused.value, grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_UNDECODABLE", "kernel.maka"
    )
    assert metadata["field"] == "text"
    assert metadata["message_type"] == "maka.kernel.v1.StartTurnRequest"
    assert "field text (number 3) was sent as varint" in (refused.value.details() or "")


def test_a_bad_message_later_in_the_attach_stream_ends_only_that_stream(
    resource: ServiceProcess,
) -> None:
    """A valid start, then an oversized control: the stream ends REQUEST_TOO_LARGE, the run and
    the service go on (the next attach types into the same run)."""
    with grpc.insecure_channel(resource.address) as channel:
        stub = resource_pb2_grpc.ResourceServiceStub(channel)
        run = stub.StartBackground(
            rpb.StartBackgroundRequest(session_id=SESSION, command="cat", pty=True), timeout=10
        ).run
        start = rpb.AttachRequest(
            start=rpb.AttachStart(session_id=SESSION, ref=run.ref, controller_id="c1")
        ).SerializeToString()
        huge = string_field(2, string_field(2, b"y" * FIVE_MB))  # control.input, 5 MB
        call: grpc.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream(
            f"{RESOURCE}/Attach", request_serializer=None, response_deserializer=None
        )
        with pytest.raises(grpc.RpcError) as refused:
            list(call(iter([start, huge]), timeout=30))
        check_refusal(
            refused.value, grpc.StatusCode.RESOURCE_EXHAUSTED, "REQUEST_TOO_LARGE", "resource.maka"
        )
        again = stub.GetRun(rpb.GetRunRequest(session_id=SESSION, ref=run.ref), timeout=10).run
        assert again.status == rpb.RUN_STATUS_RUNNING
        stub.StopRun(rpb.StopRunRequest(session_id=SESSION, ref=run.ref), timeout=30)
    serving(resource.address)


@pytest.mark.slow
def test_the_limits_are_settings(tmp_path_factory: pytest.TempPathFactory) -> None:
    data = tmp_path_factory.mktemp("small-limits")
    args = ("--standalone", "--max-request-bytes", "1KiB", "--max-transport-bytes", "64KiB")
    with (
        running_service("resource", data, *args) as small,
        grpc.insecure_channel(small.address) as channel,
    ):
        stub = resource_pb2_grpc.ResourceServiceStub(channel)
        assert stub.RegisterSession(
            rpb.RegisterSessionRequest(session_id="ok", cwd="/tmp"), timeout=10
        ).changed
        with pytest.raises(grpc.RpcError) as refused:
            stub.RegisterSession(
                rpb.RegisterSessionRequest(session_id="big", cwd="/" + "d" * 2000), timeout=10
            )
        info = error_info(refused.value)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert info is not None and info.reason == "REQUEST_TOO_LARGE"
        assert info.metadata["limit_bytes"] == "1024"
        # Above the transport's ceiling gRPC itself refuses, before the service sees anything.
        with pytest.raises(grpc.RpcError) as ceiling:
            stub.RegisterSession(
                rpb.RegisterSessionRequest(session_id="huge", cwd="/" + "d" * 100_000), timeout=10
            )
        assert ceiling.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert error_info(ceiling.value) is None
        serving(small.address)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--max-request-bytes", "lots"), "expected a size in bytes"),
        (("--max-request-bytes", "10"), "expected 1KiB to 1024MiB"),
        (
            ("--max-request-bytes", "8MiB", "--max-transport-bytes", "4MiB"),
            "--max-transport-bytes (4194304) must be at least --max-request-bytes (8388608)",
        ),
    ],
)
def test_bad_limit_settings_exit_2(
    args: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        parse_config(list(args))
    assert exited.value.code == 2
    assert message in capsys.readouterr().err


def test_limit_settings_and_their_defaults() -> None:
    assert parse_config([]).common.max_request_bytes == 4 * 1024 * 1024
    assert parse_config([]).common.max_transport_bytes == 16 * 1024 * 1024
    config = parse_config(["--max-request-bytes", "1MiB", "--max-transport-bytes", "2097152"])
    assert (config.common.max_request_bytes, config.common.max_transport_bytes) == (2**20, 2**21)

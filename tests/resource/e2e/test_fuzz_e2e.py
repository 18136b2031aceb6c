"""No request can disable the resource service: every unary RPC, any request message.

Arbitrary messages (see :mod:`tests.support.fuzz`) go to a real server over a real channel;
whatever they hold, the answer is never INTERNAL or UNKNOWN, health stays SERVING and the
fail-stop latch stays open. ``Shutdown`` is left out: ending service is what it is for (its
drain is tested in test_shutdown_e2e.py).
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

import grpc
import pytest
from google.protobuf import message as message_module
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, example, given, settings
from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from maka_runtime.common.status import error_info
from maka_runtime.resource.server import SERVICE_NAME
from tests.resource.e2e.conftest import E2E_CONFIG, SESSION_ID, Server, start_server, stop_server
from tests.support.fuzz import LoopThread, messages

SERVICE = pb.DESCRIPTOR.services_by_name["ResourceService"]
UNARY = [
    method.name
    for method in SERVICE.methods
    if not method.client_streaming and not method.server_streaming and method.name != "Shutdown"
]
NEVER = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)


@dataclasses.dataclass
class Target:
    loop: LoopThread
    server: Server
    channel: grpc.Channel
    ids: dict[str, list[str]]
    #: The OpenConnection call whose connection the leases name, kept open for the whole module.
    connection: object = None

    def call(self, method: str, request: message_module.Message) -> grpc.StatusCode:
        call: grpc.UnaryUnaryMultiCallable[message_module.Message, bytes] = (
            self.channel.unary_unary(
                f"/{SERVICE.full_name}/{method}",
                request_serializer=lambda message: message.SerializeToString(),
                response_deserializer=lambda data: data,
            )
        )
        try:
            call(request, timeout=30)
        except grpc.RpcError as error:
            return error.code()
        return grpc.StatusCode.OK

    def serving(self) -> bool:
        reply = health_pb2_grpc.HealthStub(self.channel).Check(
            health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=10
        )
        return reply.status == health_pb2.HealthCheckResponse.SERVING and not self.server.failed


async def _prepare(server: Server) -> tuple[dict[str, list[str]], object]:
    """Objects that exist, so that generated ids hit them as well as miss."""
    stub = server.stub()
    other = "fuzz-other-session"
    await stub.RegisterSession(pb.RegisterSessionRequest(session_id=other, cwd="/tmp"))
    pty = await stub.StartBackground(
        pb.StartBackgroundRequest(session_id=SESSION_ID, command="sleep 600", cwd="/", pty=True)
    )
    pipes = await stub.StartBackground(
        pb.StartBackgroundRequest(session_id=other, command="sleep 600", cwd="/")
    )
    done = await stub.StartBackground(
        pb.StartBackgroundRequest(session_id=SESSION_ID, command="true", cwd="/")
    )
    call = stub.OpenConnection(pb.OpenConnectionRequest(client_name="fuzz"))
    connection = (await call.read()).connection_id
    await stub.AcquireController(
        pb.AcquireControllerRequest(
            session_id=SESSION_ID, ref=pty.run.ref, controller_id="fuzz", connection_id=connection
        )
    )
    ids = {
        "session_id": [SESSION_ID, other],
        "ref": [pty.run.ref, pipes.run.ref, done.run.ref],
        "controller_id": ["fuzz"],
        "connection_id": [connection],
        "cwd": ["/", "/tmp"],
    }
    return ids, call  # the call stays open for the whole module (in the Target)


@pytest.fixture(scope="module")
def target() -> Iterator[Target]:
    loop = LoopThread()
    data = Path(tempfile.mkdtemp(prefix="maka-fuzz-resource-"))
    config = dataclasses.replace(E2E_CONFIG, termination_grace=0.05, max_live_runs=16)
    server = loop.run(start_server(data / "data", config))
    channel = grpc.insecure_channel(server.address)
    try:
        ids, connection = loop.run(_prepare(server))
        yield Target(loop, server, channel, ids, connection)
    finally:
        channel.close()
        try:
            loop.run(stop_server(server))
        finally:
            loop.close()


class LeaseFields(TypedDict):
    session_id: str
    ref: str
    controller_id: str


def _templates(target: Target, method: str) -> list[message_module.Message]:
    """Valid requests of *method* for the objects that exist: what the mutations start from."""
    ids = target.ids
    session, ref, connection = SESSION_ID, ids["ref"][0], ids["connection_id"][0]
    pipes_session, pipes_ref = ids["session_id"][1], ids["ref"][1]
    lease: LeaseFields = {"session_id": session, "ref": ref, "controller_id": "fuzz"}
    templates: dict[str, list[message_module.Message]] = {
        "StartBackground": [
            pb.StartBackgroundRequest(session_id=session, command="true", cwd="/"),
            pb.StartBackgroundRequest(
                session_id=session, command="true", pty=True, size=pb.TerminalSize(cols=80, rows=24)
            ),
        ],
        "GetRun": [pb.GetRunRequest(session_id=pipes_session, ref=pipes_ref)],
        "ListRuns": [pb.ListRunsRequest(session_id=session, page_size=1)],
        "StopRun": [pb.StopRunRequest(session_id=session, ref=ids["ref"][2])],
        "AcquireController": [pb.AcquireControllerRequest(**lease, connection_id=connection)],
        "ControlController": [
            pb.ControlControllerRequest(**lease, connection_id=connection, sequence=1, input="x")
        ],
        "ReleaseController": [pb.ReleaseControllerRequest(**lease, connection_id="other")],
        "RegisterSession": [pb.RegisterSessionRequest(session_id="fuzz-new", cwd="/tmp")],
        "ArchiveSession": [pb.ArchiveSessionRequest(session_id="fuzz-archived")],
    }
    return templates.get(method, [])


def _check(target: Target, method: str, request: message_module.Message) -> None:
    code = target.call(method, request)
    assert code not in NEVER, f"{method}({request!r}) answered {code.name}"
    assert target.serving(), f"{method}({request!r}) took the service out of SERVING"


_SETTINGS = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.mark.parametrize("method", UNARY)
def test_no_request_answers_internal_or_unknown_or_disables_the_service(
    target: Target, method: str
) -> None:
    descriptor = SERVICE.methods_by_name[method].input_type

    @_SETTINGS
    @given(messages(descriptor, ids=target.ids, templates=_templates(target, method)))
    def property_(request: Any) -> None:
        _check(target, method, request)

    for request in REGRESSIONS.get(method, ()):
        property_ = example(request)(property_)
    property_()


#: Requests that once answered INTERNAL or tripped the fail-stop, always tried first.
REGRESSIONS: dict[str, list[message_module.Message]] = {
    "ListRuns": [
        pb.ListRunsRequest(session_id=SESSION_ID, page_token="99999999999999999999.x"),
        pb.ListRunsRequest(
            session_id=SESSION_ID, page_token="99999999999999999999.0123456789abcdef"
        ),
    ],
}


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("method", UNARY)
def test_no_request_answers_internal_or_unknown_many_examples(target: Target, method: str) -> None:
    descriptor = SERVICE.methods_by_name[method].input_type

    @settings(_SETTINGS, max_examples=1000)
    @given(messages(descriptor, ids=target.ids, templates=_templates(target, method)))
    def property_(request: Any) -> None:
        _check(target, method, request)

    property_()


def test_the_bad_page_token_of_the_issue_is_invalid_argument_and_changes_nothing(
    target: Target,
) -> None:
    session = "fuzz-page-session"

    async def two_runs() -> None:
        stub = target.server.stub()
        await stub.RegisterSession(pb.RegisterSessionRequest(session_id=session, cwd="/"))
        for _ in range(2):
            await stub.StartBackground(
                pb.StartBackgroundRequest(session_id=session, command="true")
            )

    target.loop.run(two_runs())
    list_runs: grpc.UnaryUnaryMultiCallable[pb.ListRunsRequest, pb.ListRunsResponse]
    list_runs = target.channel.unary_unary(
        f"/{SERVICE.full_name}/ListRuns",
        request_serializer=lambda message: message.SerializeToString(),
        response_deserializer=pb.ListRunsResponse.FromString,
    )
    with pytest.raises(grpc.RpcError) as raised:
        list_runs(pb.ListRunsRequest(session_id=session, page_token="99999999999999999999.x"))
    info = error_info(raised.value)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert info is not None and (info.reason, dict(info.metadata)) == (
        "INVALID_REQUEST",
        {"field": "page_token"},
    )
    assert target.serving()
    # A token this service issued still pages.
    first = list_runs(pb.ListRunsRequest(session_id=session, page_size=1), timeout=10)
    assert first.next_page_token
    second = list_runs(
        pb.ListRunsRequest(session_id=session, page_size=1, page_token=first.next_page_token),
        timeout=10,
    )
    assert len(second.runs) == 1 and second.runs[0].ref != first.runs[0].ref
    assert not second.next_page_token

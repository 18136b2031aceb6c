"""No request can disable the kernel: every unary RPC, any request message.

Arbitrary messages (see :mod:`tests.support.fuzz`) go to a real kernel over a real channel;
whatever they hold, the answer is never INTERNAL or UNKNOWN and health stays SERVING.
``Shutdown`` is left out: ending service is what it is for (tested in test_process_e2e.py).
"""

from __future__ import annotations

import base64
import dataclasses
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import message as message_module
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, example, given, settings
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from maka_runtime.kernel.server import SERVICE_NAME
from tests.kernel.e2e.conftest import WORKSPACE, Server, read_until, start_server, stop_server
from tests.support.fuzz import LoopThread, messages

SERVICE = pb.DESCRIPTOR.services_by_name["KernelService"]
UNARY = [
    method.name
    for method in SERVICE.methods
    if not method.client_streaming and not method.server_streaming and method.name != "Shutdown"
]
NEVER = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)
OVERFLOWING = base64.urlsafe_b64encode(b"99999999999999999999:x").decode()


@dataclasses.dataclass
class Target:
    loop: LoopThread
    server: Server
    channel: grpc.Channel
    ids: dict[str, list[str]]
    waiting: Any = None

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
        return reply.status == health_pb2.HealthCheckResponse.SERVING  # type: ignore[no-any-return]


async def _prepare(server: Server, target: Target) -> None:
    """Objects that exist: an idle session with a finished turn, and a session whose turn
    waits for a sandbox-boundary answer."""
    stub = server.stub()
    idle = (
        await stub.CreateSession(
            pb.CreateSessionRequest(workspace_root=WORKSPACE, backend="scripted")
        )
    ).session
    async for _ in stub.StartTurn(
        pb.StartTurnRequest(session_id=idle.id, turn_id="done-turn", text="/script say hi")
    ):
        pass
    busy = (
        await stub.CreateSession(
            pb.CreateSessionRequest(
                workspace_root=WORKSPACE,
                backend="scripted",
                permission_mode=pb.PERMISSION_MODE_ASK,
            )
        )
    ).session
    turn = stub.StartTurn(
        pb.StartTurnRequest(
            session_id=busy.id, turn_id="waiting-turn", text="/script approve rm -rf x; hang"
        )
    )
    [*_, asked] = await read_until(turn, "sandbox_boundary_request")
    request_id = asked.sandbox_boundary_request.request_id
    target.waiting = turn  # kept open: the turn waits for its answer
    target.ids.update(
        session_id=[idle.id, busy.id],
        turn_id=["done-turn", "waiting-turn"],
        request_id=[request_id],
        workspace_root=[WORKSPACE],
        cwd=[WORKSPACE],
        backend=["scripted", "shell", "llm"],
    )


@pytest.fixture(scope="module")
def target() -> Iterator[Target]:
    Path(WORKSPACE).mkdir(parents=True, exist_ok=True)
    loop = LoopThread()
    data = Path(tempfile.mkdtemp(prefix="maka-fuzz-kernel-"))
    server = loop.run(start_server(data / "data"))
    channel = grpc.insecure_channel(server.address)
    running = Target(loop, server, channel, {})
    try:
        loop.run(_prepare(server, running))
        yield running
    finally:
        channel.close()
        try:
            if running.waiting is not None:
                running.waiting.cancel()
            loop.run(stop_server(server))
        finally:
            loop.close()


def _templates(target: Target, method: str) -> list[message_module.Message]:
    idle, busy = target.ids["session_id"]
    request_id = target.ids["request_id"][0]
    templates: dict[str, list[message_module.Message]] = {
        "CreateSession": [pb.CreateSessionRequest(workspace_root=WORKSPACE, backend="scripted")],
        "GetSession": [pb.GetSessionRequest(session_id=idle)],
        "ListSessions": [pb.ListSessionsRequest(page_size=1)],
        "UpdateSession": [pb.UpdateSessionRequest(session_id=idle, name="n")],
        "ReadMessages": [pb.ReadMessagesRequest(session_id=idle, after_seq=0, limit=2)],
        "ListTurns": [pb.ListTurnsRequest(session_id=idle)],
        "ListInteractions": [
            pb.ListInteractionsRequest(session_id=busy, limit=1),
            pb.ListInteractionsRequest(session_id=busy, pending_only=True),
        ],
        "StopSession": [pb.StopSessionRequest(session_id=idle, source="fuzz")],
        "RespondToSandboxBoundary": [
            pb.RespondToSandboxBoundaryRequest(session_id=busy, request_id=request_id)
        ],
        "RespondToUserQuestion": [
            pb.RespondToUserQuestionRequest(session_id=busy, request_id=request_id)
        ],
        "SendMessage": [pb.SendMessageRequest(session_id=busy, text="hello")],
    }
    return templates.get(method, [])


#: Requests that once answered INTERNAL, always tried first.
REGRESSIONS: dict[str, list[message_module.Message]] = {
    "ListSessions": [pb.ListSessionsRequest(page_token=OVERFLOWING)],
    "ListInteractions": [pb.ListInteractionsRequest(session_id="x", page_token=OVERFLOWING)],
}

_SETTINGS = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _check(target: Target, method: str, request: message_module.Message) -> None:
    code = target.call(method, request)
    assert code not in NEVER, f"{method}({request!r}) answered {code.name}"
    assert target.serving(), f"{method}({request!r}) took the kernel out of SERVING"


def _run(target: Target, method: str, examples: int | None) -> None:
    descriptor = SERVICE.methods_by_name[method].input_type
    chosen = _SETTINGS if examples is None else settings(_SETTINGS, max_examples=examples)

    @chosen
    @given(messages(descriptor, ids=target.ids, templates=_templates(target, method)))
    def property_(request: Any) -> None:
        _check(target, method, request)

    for request in REGRESSIONS.get(method, ()):
        property_ = example(request)(property_)
    property_()


@pytest.mark.parametrize("method", UNARY)
def test_no_request_answers_internal_or_unknown_or_disables_the_kernel(
    target: Target, method: str
) -> None:
    _run(target, method, None)


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("method", UNARY)
def test_no_request_answers_internal_or_unknown_many_examples(target: Target, method: str) -> None:
    _run(target, method, 1000)


def test_an_overflowing_page_token_is_invalid_argument_on_page_token(target: Target) -> None:
    from maka_runtime.common.status import error_info

    call: grpc.UnaryUnaryMultiCallable[pb.ListSessionsRequest, pb.ListSessionsResponse]
    call = target.channel.unary_unary(
        f"/{SERVICE.full_name}/ListSessions",
        request_serializer=lambda message: message.SerializeToString(),
        response_deserializer=pb.ListSessionsResponse.FromString,
    )
    with pytest.raises(grpc.RpcError) as raised:
        call(pb.ListSessionsRequest(page_token=OVERFLOWING), timeout=10)
    info = error_info(raised.value)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert info is not None and (info.reason, dict(info.metadata)) == (
        "INVALID_REQUEST",
        {"field": "page_token"},
    )
    first = call(pb.ListSessionsRequest(page_size=1), timeout=10)
    assert first.next_page_token
    second = call(pb.ListSessionsRequest(page_size=1, page_token=first.next_page_token))
    assert second.sessions and second.sessions[0].id != first.sessions[0].id

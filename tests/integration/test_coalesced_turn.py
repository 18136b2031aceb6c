"""StartTurn's ``coalesce_events``: a client that asks for it and lags behind gets the events
that piled up together in one response, every one with its own seq; a client that does not
ask (every client written before the field) gets exactly one event per response."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from maka_runtime_client.aio import KernelClient
from maka_runtime_client.credentials import bearer_interceptors
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc

from maka_runtime.common.config import CommonConfig
from maka_runtime.kernel.server import KernelConfig, KernelService
from tests.support import auth
from tests.support.inprocess import InProcess, serve_in_process

WORDS = 20000


@pytest.fixture
async def kernel(tmp_path: Path) -> AsyncIterator[InProcess]:
    common = CommonConfig(
        service="kernel",
        listen="127.0.0.1:0",
        data_dir=tmp_path / "kernel-data",
        log_level="info",
        shutdown_grace=5.0,
        token_file=auth.TOKEN_FILE,
    )
    config = KernelConfig(
        common=common,
        resource_address="127.0.0.1:9",
        default_backend="scripted",
        shutdown_resource=False,
    )
    served = await serve_in_process(common, KernelService(config))
    try:
        yield served
    finally:
        assert await served.stop() == 0


async def _lagging_turn(kernel: InProcess, *, coalesce: bool) -> list[pb.StartTurnResponse]:
    """Start a long turn, read nothing of it until it has ended, then read all of it."""
    stub = kernel_pb2_grpc.KernelServiceStub(kernel.channel())
    workspace = tempfile.mkdtemp(prefix="maka-coalesce-")
    session = (
        await stub.CreateSession(pb.CreateSessionRequest(workspace_root=workspace))
    ).session.id
    call = stub.StartTurn(
        pb.StartTurnRequest(
            session_id=session, text=f"/script words {WORDS}", coalesce_events=coalesce
        )
    )
    first = await call.read()  # the turn has started
    assert isinstance(first, pb.StartTurnResponse)
    responses = [first]
    async for watched in stub.WatchSession(pb.WatchSessionRequest(session_id=session)):
        entry = watched.event
        if entry.WhichOneof("event") == "turn_state" and entry.turn_state.status != (
            pb.TURN_STATUS_RUNNING
        ):
            break
    responses += [response async for response in call]
    return responses


def _seqs(responses: list[pb.StartTurnResponse]) -> list[int]:
    return [e.seq for r in responses for e in [r.event, *r.more_events]]


async def test_a_lagging_client_that_asks_gets_every_event_in_fewer_messages(
    kernel: InProcess,
) -> None:
    responses = await _lagging_turn(kernel, coalesce=True)
    seqs = _seqs(responses)
    assert len(seqs) == WORDS + 2  # every delta, complete, the terminal turn_state
    assert seqs == sorted(set(seqs))
    assert len(responses) < len(seqs) // 2
    assert all(len(r.more_events) <= 255 for r in responses)


async def test_a_client_that_does_not_ask_gets_one_event_per_message(
    kernel: InProcess,
) -> None:
    responses = await _lagging_turn(kernel, coalesce=False)
    seqs = _seqs(responses)
    assert len(seqs) == WORDS + 2
    assert seqs == sorted(set(seqs))
    assert len(responses) == len(seqs)
    assert not any(r.more_events for r in responses)


async def test_the_sdk_reads_coalesced_turns_event_by_event(kernel: InProcess) -> None:
    workspace = tempfile.mkdtemp(prefix="maka-coalesce-")
    async with KernelClient(kernel.address, interceptors=bearer_interceptors(auth.TOKEN)) as client:
        session = await client.create_session(workspace)
        seqs = [event.seq async for event in client.start_turn(session.id, "/script words 3000")]
    assert len(seqs) == 3002  # 3000 deltas, complete, the terminal turn_state
    assert seqs == sorted(set(seqs))

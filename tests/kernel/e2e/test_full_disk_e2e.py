"""A full data disk under the kernel: a turn whose writes are refused ends UNAVAILABLE /
PERSISTENCE_FAILED, its end is recorded by itself once space is freed (or at the next
start), and a turn of another session is untouched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc

from maka_runtime.common.status import error_info
from maka_runtime.kernel.server import SERVICE_NAME
from tests.kernel.e2e.conftest import (
    WORKSPACE,
    create_session,
    kind,
    read_until,
    start_server,
    stop_server,
)
from tests.support.disk import small_disk

REFUSED = (grpc.StatusCode.UNAVAILABLE, "PERSISTENCE_FAILED")
RUNNING = pb.TURN_STATUS_RUNNING
HANG = "/script say a; hang"
#: Says something, then pauses (the disk fills meanwhile), then writes a lot.
LONG = "/script say hello; sleep 200; words 500 x"


def _refused(error: grpc.aio.AioRpcError) -> tuple[grpc.StatusCode, str]:
    info = error_info(error)
    assert info is not None, error
    return error.code(), info.reason


async def _ends_refused(call: Any) -> str:
    try:
        async for _ in call:
            pass
    except grpc.aio.AioRpcError as error:
        assert _refused(error) == REFUSED, error.details()
        return error.details() or ""
    raise AssertionError("the turn ended without an error")


async def _turn_status(
    stub: kernel_pb2_grpc.KernelServiceAsyncStub, session_id: str, turn_id: str
) -> int:
    turns = (await stub.ListTurns(pb.ListTurnsRequest(session_id=session_id))).turns
    return next(turn.status for turn in turns if turn.turn_id == turn_id)


async def test_a_turn_whose_writes_are_refused_gets_its_end_recorded_once_space_is_freed(
    tmp_path: Path,
) -> None:
    Path(WORKSPACE).mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240
    with small_disk(tmp_path / "disk") as disk:
        server = await start_server(disk.path / "data")
        try:
            channel = server.channel()
            stub = server.stub(channel)
            other = await create_session(stub, backend="scripted")
            unrelated = stub.StartTurn(
                pb.StartTurnRequest(
                    session_id=other.id, turn_id="other", text="/script say a; hang"
                )
            )
            await read_until(unrelated, "text_delta")
            session = await create_session(stub, backend="scripted")
            turn = stub.StartTurn(
                pb.StartTurnRequest(
                    session_id=session.id,
                    turn_id="full",
                    text="/script say hello; sleep 200; words 500 x",
                )
            )
            seen = await read_until(turn, "text_delta")
            watch = stub.WatchSession(
                pb.WatchSessionRequest(session_id=session.id, after_seq=seen[-1].seq)
            )
            disk.fill()

            await _ends_refused(turn)
            assert await _turn_status(stub, session.id, "full") == pb.TURN_STATUS_RUNNING
            try:
                await stub.StartTurn(
                    pb.StartTurnRequest(session_id=session.id, text="/script say again")
                ).read()
            except grpc.aio.AioRpcError as error:
                assert _refused(error) == REFUSED
                assert "not recorded yet" in (error.details() or "")
            else:
                raise AssertionError("a new turn was admitted before the last one's end")
            health = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=SERVICE_NAME)
            )
            assert health.status == health_pb2.HealthCheckResponse.SERVING

            disk.free()
            ended = None
            async for response in watch:
                event = response.event
                if (
                    kind(event) == "turn_state"
                    and event.turn_state.status != pb.TURN_STATUS_RUNNING
                ):
                    ended = event.turn_state.status
                    break
            watch.cancel()
            assert ended == pb.TURN_STATUS_FAILED
            assert await _turn_status(stub, session.id, "full") == pb.TURN_STATUS_FAILED
            log = (await stub.ReadMessages(pb.ReadMessagesRequest(session_id=session.id))).events
            assert any("recorded late" in str(event) for event in log)

            # The other session's turn was never touched; the session takes turns again.
            assert await _turn_status(stub, other.id, "other") == pb.TURN_STATUS_RUNNING
            again = [
                response
                async for response in stub.StartTurn(
                    pb.StartTurnRequest(session_id=session.id, text="/script say again")
                )
            ]
            states = [r.event.turn_state.status for r in again if kind(r.event) == "turn_state"]
            assert states[-1] == pb.TURN_STATUS_COMPLETED
            await stub.StopSession(pb.StopSessionRequest(session_id=other.id, source="test"))
            unrelated.cancel()
        finally:
            disk.free()
            await stop_server(server)


async def test_a_turn_end_still_refused_at_shutdown_is_recorded_at_the_next_start(
    tmp_path: Path,
) -> None:
    Path(WORKSPACE).mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240
    with small_disk(tmp_path / "disk") as disk:
        server = await start_server(disk.path / "data")
        try:
            stub = server.stub()
            session = await create_session(stub, backend="scripted")
            turn = stub.StartTurn(
                pb.StartTurnRequest(
                    session_id=session.id,
                    turn_id="full",
                    text="/script say hello; sleep 200; words 500 x",
                )
            )
            await read_until(turn, "text_delta")
            disk.fill()
            await _ends_refused(turn)
        finally:
            await stop_server(server)
        disk.free()
        again = await start_server(disk.path / "data")
        try:
            status = await _turn_status(again.stub(), session.id, "full")
            assert status == pb.TURN_STATUS_ABORTED
        finally:
            await stop_server(again)

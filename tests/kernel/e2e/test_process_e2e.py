"""``maka-kernel`` as a real process: kill -9 and restart, SIGTERM, the Shutdown RPC."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import grpc
import pytest
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc

from tests.support.processes import running_service, spawn_service

from .conftest import create_session, failure, kind, read_until, reason

pytestmark = pytest.mark.slow


async def tail_kinds(stub: kernel_pb2_grpc.KernelServiceAsyncStub, session_id: str) -> list[str]:
    log = await stub.ReadMessages(pb.ReadMessagesRequest(session_id=session_id))
    out = []
    for event in log.events:
        if kind(event) == "turn_state":
            out.append(f"turn_state:{pb.TurnStatus.Name(event.turn_state.status)}")
        elif kind(event) == "system_note":
            out.append(f"note:{pb.SystemNoteKind.Name(event.system_note.kind)}")
        else:
            out.append(kind(event))
    return out


async def test_kill_9_and_restart_marks_turns_interrupted(tmp_path: Path) -> None:
    data = tmp_path / "data"
    victim = spawn_service("kernel", data)
    try:
        address = await asyncio.to_thread(victim.wait_bound)
        async with grpc.aio.insecure_channel(address) as channel:
            stub = kernel_pb2_grpc.KernelServiceStub(channel)
            asking = await create_session(stub)
            hanging = await create_session(stub)
            ask = stub.StartTurn(
                pb.StartTurnRequest(session_id=asking.id, turn_id="a1", text="/script approve x")
            )
            [request] = await read_until(ask, "sandbox_boundary_request")
            hang = stub.StartTurn(
                pb.StartTurnRequest(session_id=hanging.id, turn_id="h1", text="/script say a; hang")
            )
            await read_until(hang, "text_delta")
            await asyncio.to_thread(victim.kill)
            assert victim.process.returncode == -signal.SIGKILL
            ask.cancel()
            hang.cancel()
    finally:
        victim.kill()

    with running_service("kernel", data) as restarted:
        assert "start-up sweep: 2 interrupted turn(s), 2 session(s) updated, 1 interaction" in (
            restarted.stderr
        )
        async with grpc.aio.insecure_channel(restarted.address) as channel:
            stub = kernel_pb2_grpc.KernelServiceStub(channel)
            for session, turn_id in ((asking, "a1"), (hanging, "h1")):
                header = (
                    await stub.GetSession(pb.GetSessionRequest(session_id=session.id))
                ).session
                assert header.status == pb.SESSION_STATUS_ABORTED
                turns = (await stub.ListTurns(pb.ListTurnsRequest(session_id=session.id))).turns
                assert [(t.turn_id, t.status, t.abort_source) for t in turns] == [
                    (turn_id, pb.TURN_STATUS_ABORTED, "host_restarted")
                ]
                assert (await tail_kinds(stub, session.id))[-2:] == [
                    "turn_state:TURN_STATUS_ABORTED",
                    "note:SYSTEM_NOTE_KIND_INTERRUPTED",
                ]
            # The closed request is on the record, before the turn's terminal state.
            log = (await stub.ReadMessages(pb.ReadMessagesRequest(session_id=asking.id))).events
            assert [kind(e) for e in log[-3:]] == [
                "interaction_resolved",
                "turn_state",
                "system_note",
            ]
            closure = log[-3].interaction_resolved
            assert closure.request_id == request.sandbox_boundary_request.request_id
            assert closure.reason == "host_restarted"
            assert pb.InteractionOutcome.Name(closure.outcome) == "INTERACTION_OUTCOME_CLOSED"
            # A client that reattaches sees it closed without replaying the log.
            listed = await stub.ListInteractions(pb.ListInteractionsRequest(session_id=asking.id))
            assert [
                (i.request_id, i.turn_id, i.status, i.outcome, i.reason)
                for i in listed.interactions
            ] == [
                (
                    closure.request_id,
                    "a1",
                    pb.INTERACTION_STATUS_CLOSED,
                    pb.INTERACTION_OUTCOME_CLOSED,
                    "host_restarted",
                )
            ]
            assert listed.interactions[0].sandbox_boundary_request.command == "x"
            assert not (
                await stub.ListInteractions(
                    pb.ListInteractionsRequest(session_id=asking.id, pending_only=True)
                )
            ).interactions
            late = await failure(
                stub.RespondToSandboxBoundary(
                    pb.RespondToSandboxBoundaryRequest(
                        session_id=asking.id,
                        request_id=request.sandbox_boundary_request.request_id,
                        decision=pb.SANDBOX_DECISION_ALLOW_ONCE,
                    )
                )
            )
            assert reason(late)[:2] == (grpc.StatusCode.ABORTED, "ALREADY_RESOLVED")
            assert "host_restarted" in (late.details() or "")
            again = stub.StartTurn(pb.StartTurnRequest(session_id=asking.id, text="hello again"))
            events = [r.event async for r in again]
            assert [kind(e) for e in events] == ["text_delta", "complete", "turn_state"]
            assert "note:SYSTEM_NOTE_KIND_SESSION_RESUME" in await tail_kinds(stub, asking.id)
        assert restarted.terminate() == 0


async def test_sigterm_drains_running_turns_and_exits_cleanly(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with running_service("kernel", data, "--shutdown-grace", "0.3") as kernel:
        async with grpc.aio.insecure_channel(kernel.address) as channel:
            stub = kernel_pb2_grpc.KernelServiceStub(channel)
            polite = await create_session(stub)
            stubborn = await create_session(stub)
            p = stub.StartTurn(
                pb.StartTurnRequest(session_id=polite.id, turn_id="p", text="/script ask q?")
            )
            s = stub.StartTurn(
                pb.StartTurnRequest(session_id=stubborn.id, turn_id="s", text="/script say a; hang")
            )
            await read_until(p, "user_question_request")
            await read_until(s, "text_delta")
            await asyncio.to_thread(kernel.signal, signal.SIGTERM)
            # Both turn streams end once the drain has stopped them.
            polite_rest = [r.event async for r in p]
            assert any(
                kind(e) == "turn_state" and e.turn_state.abort_source == "host_shutdown"
                for e in polite_rest
            )
            assert await asyncio.to_thread(kernel.wait) == 0
        assert "drain: turn p of session" in kernel.stderr
        assert "stopped_after_step" in kernel.stderr
        assert "stopped_immediately" in kernel.stderr

    with running_service("kernel", data) as restarted:
        assert "start-up sweep" not in restarted.stderr
        async with grpc.aio.insecure_channel(restarted.address) as channel:
            stub = kernel_pb2_grpc.KernelServiceStub(channel)
            for session, turn_id in ((polite, "p"), (stubborn, "s")):
                turns = (await stub.ListTurns(pb.ListTurnsRequest(session_id=session.id))).turns
                assert [(t.turn_id, t.status, t.abort_source) for t in turns] == [
                    (turn_id, pb.TURN_STATUS_ABORTED, "host_shutdown")
                ]
        assert restarted.terminate() == 0


async def test_the_shutdown_rpc_reports_and_the_process_exits(tmp_path: Path) -> None:
    with running_service("kernel", tmp_path / "data", "--shutdown-grace", "0.2") as kernel:
        async with grpc.aio.insecure_channel(kernel.address) as channel:
            stub = kernel_pb2_grpc.KernelServiceStub(channel)
            session = await create_session(stub)
            call = stub.StartTurn(
                pb.StartTurnRequest(session_id=session.id, turn_id="t", text="/script say a; hang")
            )
            await read_until(call, "text_delta")
            report = await stub.Shutdown(pb.ShutdownRequest())
            assert [(t.session_id, t.turn_id, t.outcome) for t in report.turns] == [
                (session.id, "t", pb.DRAIN_OUTCOME_STOPPED_IMMEDIATELY)
            ]
            rest = [r.event async for r in call]
            assert [e.turn_state.abort_source for e in rest if kind(e) == "turn_state"] == [
                "host_shutdown"
            ]
        assert await asyncio.to_thread(kernel.wait) == 0

"""The pair's shutdown cascade and what happens when the resource service fails mid-turn."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from maka_runtime_client.aio import KernelClient, ResourceClient
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb

from tests.integration.conftest import Pair, alive, first, group_members, start_pair
from tests.integration.test_shell_pair import BYPASS, _start_sleeping_turn
from tests.support.processes import running_service, wait_for_exit

TERMINAL = {
    rpb.RUN_STATUS_COMPLETED,
    rpb.RUN_STATUS_FAILED,
    rpb.RUN_STATUS_TIMED_OUT,
    rpb.RUN_STATUS_CANCELLED,
}


async def test_kernel_shutdown_cascades_to_the_resource_service(
    pair: Pair, kernel: KernelClient, resource: ResourceClient, workspace: Path, tmp_path: Path
) -> None:
    session_id, reader, run, pids = await _start_sleeping_turn(kernel, resource, workspace)
    background = await resource.start_background(session_id, "sleep 603")
    idle = await kernel.create_session(str(workspace), permission_mode=BYPASS)
    pty = await resource.start_background(idle.id, "cat", pty=True)

    response = await kernel.shutdown(timeout=60)

    assert [(t.session_id, t.outcome) for t in response.turns] == [
        (session_id, kpb.DRAIN_OUTCOME_STOPPED_IMMEDIATELY)
    ]
    assert response.resource.attempted and response.resource.reached
    assert response.resource.error == ""
    assert response.resource.runs_ended == 2  # the background run and the PTY run
    assert pair.kernel.wait(30) == 0
    assert pair.resource.wait(30) == 0
    for pid in [*pids, background.pid, pty.pid]:
        assert not alive(pid)
    assert group_members(run.pid) == []
    reader.cancel()

    # Every turn and run has a final recorded state (read back from restarted services).
    again = start_pair(tmp_path)
    try:
        async with (
            KernelClient(again.kernel.address) as k,
            ResourceClient(again.resource.address) as r,
        ):
            turns = await k.list_turns(session_id)
            assert [turn.status for turn in turns] == [kpb.TURN_STATUS_ABORTED]
            log = await k.read_messages(session_id)
            assert first(list(log), "tool_result").tool_result.is_error
            for sid in (session_id, idle.id):
                for recorded in (await r.list_runs(sid)).runs:
                    assert recorded.status in TERMINAL, recorded
    finally:
        again.stop()
        again.proxy.close()


async def test_sigterm_to_the_kernel_takes_the_same_path(
    pair: Pair, kernel: KernelClient, resource: ResourceClient, workspace: Path
) -> None:
    _session_id, reader, _run, pids = await _start_sleeping_turn(kernel, resource, workspace)
    pair.kernel.signal(signal.SIGTERM)
    assert pair.kernel.wait(30) == 0
    assert pair.resource.wait(30) == 0
    assert [pid for pid in pids if alive(pid)] == []
    assert "shutdown cascade: the resource service" in pair.kernel.stderr
    reader.cancel()


async def test_kernel_shuts_down_when_the_resource_service_is_unreachable(
    tmp_path: Path, workspace: Path
) -> None:
    data = tmp_path / "kernel-only"
    data.mkdir()
    with running_service(
        "kernel",
        data,
        *("--default-backend", "shell", "--shutdown-resource", "yes", "--resource-timeout", "1"),
    ) as kernel:
        async with KernelClient(kernel.address) as client:
            session = await client.create_session(str(workspace), permission_mode=BYPASS)
            events = [event async for event in client.start_turn(session.id, "true")]
            error = first(events, "error").error
            assert error.code == "resource_unavailable" and "127.0.0.1:1" in error.message
            assert events[-1].turn_state.status == kpb.TURN_STATUS_FAILED
            response = await client.shutdown()
        assert response.resource.attempted and not response.resource.reached
        assert "127.0.0.1:1" in response.resource.error
        assert kernel.wait(30) == 0
        assert "could not shut the resource service down" in kernel.stderr


async def test_resource_service_killed_mid_turn_fails_the_turn_and_the_kernel_reconnects(
    pair: Pair, kernel: KernelClient, resource: ResourceClient, workspace: Path
) -> None:
    session_id, reader, _run, pids = await _start_sleeping_turn(kernel, resource, workspace)
    pair.resource.kill()
    events = await asyncio.wait_for(reader, 60)
    error = first(events, "error").error
    assert error.code == "resource_unavailable"
    assert "resource service" in error.message
    assert events[-1].turn_state.status == kpb.TURN_STATUS_FAILED
    log = list(await kernel.read_messages(session_id))
    result = first(log, "tool_result").tool_result
    assert result.is_error and "could not run" in result.output

    # Back on another port behind the same address: the start-up sweep ends the orphaned
    # run's processes, and the next turn goes through on the kernel's reconnected channel.
    pair.restart_resource()
    for pid in pids:
        assert wait_for_exit(pid, 30)
    events = [event async for event in kernel.start_turn(session_id, "echo back")]
    assert first(events, "tool_result").tool_result.output == "back\n"
    assert events[-1].turn_state.status == kpb.TURN_STATUS_COMPLETED


async def test_a_resource_service_down_at_turn_start_fails_the_turn_without_a_hang(
    tmp_path: Path, workspace: Path
) -> None:
    pair = start_pair(tmp_path, "--resource-timeout", "1")
    try:
        async with KernelClient(pair.kernel.address) as kernel:
            session = await kernel.create_session(str(workspace), permission_mode=BYPASS)
            pair.resource.kill()
            events = await asyncio.wait_for(
                _collect(kernel.start_turn(session.id, "echo never")), 30
            )
            error = first(events, "error").error
            assert error.code == "resource_unavailable"
            assert "no connection within 1 s" in error.message
            assert events[-1].turn_state.status == kpb.TURN_STATUS_FAILED
            # Back (on another port behind the same address): the next turn goes through.
            pair.restart_resource()
            events = [event async for event in kernel.start_turn(session.id, "echo again")]
            assert first(events, "tool_result").tool_result.output == "again\n"
    finally:
        pair.stop()
        pair.proxy.close()


async def _collect(stream: object) -> list[kpb.SessionEvent]:
    return [event async for event in stream]  # type: ignore[attr-defined]

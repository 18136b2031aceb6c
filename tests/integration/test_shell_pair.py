"""The shell backend end to end: kernel and resource service as two processes.

Every turn here runs a real command on the resource service; processes are checked by pid.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from maka_runtime_client import errors
from maka_runtime_client.aio import KernelClient, ResourceClient
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb
from maka_runtime_proto.resource.v1 import sandbox_pb2 as spb

from tests.integration.conftest import (
    Pair,
    alive,
    every,
    first,
    group_members,
    kinds,
)
from tests.support import auth
from tests.support.pids import host_pid

BYPASS = kpb.PERMISSION_MODE_BYPASS
ALLOW_ONCE = kpb.SANDBOX_DECISION_ALLOW_ONCE
ALLOW_SESSION = kpb.SANDBOX_DECISION_ALLOW_SESSION
DENY = kpb.SANDBOX_DECISION_DENY


async def running_run(resource: ResourceClient, session_id: str) -> rpb.Run:
    """The session's first run once it is running (followed with WatchRuns: no polling)."""
    watch = resource.watch_runs(session_id)
    try:
        async for run in watch:
            if run.status == rpb.RUN_STATUS_RUNNING:
                return run
    finally:
        await watch.aclose()
    raise AssertionError("the watch ended before a run was running")


async def test_default_backend_is_shell(kernel: KernelClient, workspace: Path) -> None:
    session = await kernel.create_session(str(workspace))
    info = await kernel.get_server_info()
    assert session.backend == "shell"
    assert info.default_backend == "shell"
    assert info.resource_address


async def test_an_asking_turn_runs_once_approved_from_another_channel(
    pair: Pair, kernel: KernelClient, resource: ResourceClient, workspace: Path
) -> None:
    session = await kernel.create_session(str(workspace))
    stream = kernel.start_turn(session.id, "echo hello from $PWD; echo oops >&2")
    events = []
    async with KernelClient(pair.kernel.address) as other:
        async for event in stream:
            events.append(event)
            if event.WhichOneof("event") == "sandbox_boundary_request":
                request = event.sandbox_boundary_request
                assert request.command == "echo hello from $PWD; echo oops >&2"
                assert request.cwd == str(workspace)
                assert "shell" in request.reason
                # Nothing runs before the answer.
                assert list((await resource.list_runs(session.id)).runs) == []
                await other.respond_to_sandbox_boundary(session.id, request.request_id, ALLOW_ONCE)
    assert kinds(events)[:3] == ["text_delta", "tool_call", "sandbox_boundary_request"] or kinds(
        events
    )[:2] == ["tool_call", "sandbox_boundary_request"]
    outputs = every(events, "tool_output")
    print([(e.tool_output.stream, e.tool_output.text) for e in outputs])
    assert "".join(e.tool_output.text for e in outputs if e.tool_output.stream == 1) == (
        f"hello from {workspace}\n"
    )
    assert any(e.tool_output.stream == kpb.TOOL_OUTPUT_STREAM_STDERR for e in outputs)
    result = first(events, "tool_result").tool_result
    assert not result.is_error and result.exit_code == 0
    assert result.run_ref.startswith("maka://")
    assert first(events, "interaction_resolved").interaction_resolved.outcome == (
        kpb.INTERACTION_OUTCOME_ALLOW_ONCE
    )
    assert events[-1].turn_state.status == kpb.TURN_STATUS_COMPLETED
    runs = (await resource.list_runs(session.id)).runs
    assert [(run.ref, run.source_turn_id) for run in runs] == [(result.run_ref, stream.turn_id)]
    assert runs[0].cwd == str(workspace)


async def test_a_denied_turn_runs_nothing_and_says_so(
    kernel: KernelClient, resource: ResourceClient, workspace: Path
) -> None:
    session = await kernel.create_session(str(workspace))
    target = workspace / "made"
    stream = kernel.start_turn(session.id, f"touch {target}")
    events = []
    async for event in stream:
        events.append(event)
        if event.WhichOneof("event") == "sandbox_boundary_request":
            await kernel.respond_to_sandbox_boundary(
                session.id, event.sandbox_boundary_request.request_id, DENY, reason="not now"
            )
    assert not target.exists()
    assert list((await resource.list_runs(session.id)).runs) == []
    result = first(events, "tool_result").tool_result
    assert result.is_error and "denied" in result.output and not result.run_ref
    assert first(events, "complete").complete.stop_reason == "denied"
    log = await kernel.read_messages(session.id)
    notes = [e.system_note for e in log if e.WhichOneof("event") == "system_note"]
    denied = [note for note in notes if note.kind == kpb.SYSTEM_NOTE_KIND_DENIED]
    assert len(denied) == 1 and f"touch {target}" in denied[0].text and "not now" in denied[0].text


async def test_allow_for_session_is_remembered_and_bypass_never_asks(
    kernel: KernelClient, workspace: Path
) -> None:
    session = await kernel.create_session(str(workspace))
    events = []
    async for event in kernel.start_turn(session.id, "ls"):
        events.append(event)
        if event.WhichOneof("event") == "sandbox_boundary_request":
            await kernel.respond_to_sandbox_boundary(
                session.id, event.sandbox_boundary_request.request_id, ALLOW_SESSION
            )
    assert len(every(events, "sandbox_boundary_request")) == 1
    again = [event async for event in kernel.start_turn(session.id, "ls")]
    assert every(again, "sandbox_boundary_request") == []
    assert first(again, "tool_result").tool_result.exit_code == 0
    asked = []
    async for event in kernel.start_turn(session.id, "ls -a"):  # another line asks again
        if event.WhichOneof("event") == "sandbox_boundary_request":
            asked.append(event.sandbox_boundary_request.command)
            await kernel.respond_to_sandbox_boundary(
                session.id, event.sandbox_boundary_request.request_id, ALLOW_ONCE
            )
    assert asked == ["ls -a"]

    bypass = await kernel.create_session(str(workspace), permission_mode=BYPASS)
    events = [event async for event in kernel.start_turn(bypass.id, "exit 3")]
    assert every(events, "sandbox_boundary_request") == []
    result = first(events, "tool_result").tool_result
    assert result.is_error and result.exit_code == 3
    assert events[-1].turn_state.status == kpb.TURN_STATUS_COMPLETED


SLEEPER = "sleep 600 & echo started $!; sleep 601; wait"


async def _start_sleeping_turn(
    kernel: KernelClient, resource: ResourceClient, workspace: Path
) -> tuple[str, asyncio.Task[list[kpb.SessionEvent]], rpb.Run, list[int]]:
    session = await kernel.create_session(str(workspace), permission_mode=BYPASS)
    stream = kernel.start_turn(session.id, SLEEPER)
    seen = asyncio.get_running_loop().create_future()

    async def read() -> list[kpb.SessionEvent]:
        events = []
        async for event in stream:
            events.append(event)
            if event.WhichOneof("event") == "tool_output" and not seen.done():
                seen.set_result(event.tool_output.text)
        return events

    reader = asyncio.create_task(read())
    run = await running_run(resource, session.id)
    # It echoes the pid its sandbox gives it; the host's is another.
    background_pid = host_pid(run.pid, int((await seen).split()[1]))
    pids = sorted({run.pid, background_pid, *group_members(run.pid)})
    assert all(alive(pid) for pid in pids)
    return session.id, reader, run, pids


async def test_an_immediate_stop_kills_the_tool_before_it_returns(
    kernel: KernelClient, resource: ResourceClient, workspace: Path
) -> None:
    session_id, reader, run, pids = await _start_sleeping_turn(kernel, resource, workspace)
    await kernel.stop_session(session_id, mode=kpb.STOP_MODE_IMMEDIATE)
    assert [pid for pid in pids if alive(pid)] == []
    assert group_members(run.pid) == []
    events = await reader
    assert events[-1].turn_state.status == kpb.TURN_STATUS_ABORTED
    await kernel.wait_until_settled(session_id, events[-1].turn_id, SLEEPER)
    log = await kernel.read_messages(session_id)
    result = first(list(log), "tool_result").tool_result
    assert result.is_error and "cut short" in result.output and result.run_ref == run.ref
    assert "started" in result.output  # what it printed before it was cut short
    final = await resource.get_run(session_id, run.ref)
    assert final.status == rpb.RUN_STATUS_CANCELLED


async def test_an_abandoned_turn_stream_kills_the_tool(
    kernel: KernelClient, resource: ResourceClient, workspace: Path
) -> None:
    session_id, reader, run, pids = await _start_sleeping_turn(kernel, resource, workspace)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    watch = kernel.watch_session(session_id)
    async for event in watch:
        if event.WhichOneof("event") == "turn_state" and event.turn_state.status != 1:
            state = event.turn_state
            break
    await watch.aclose()
    assert state.status == kpb.TURN_STATUS_ABORTED and state.abort_source == "stream_abandoned"
    # The abort is recorded only after the backend's stop returned, and that kills the run.
    assert [pid for pid in pids if alive(pid)] == []
    final = await resource.get_run(session_id, run.ref)
    assert final.status == rpb.RUN_STATUS_CANCELLED


async def test_an_after_step_stop_lets_the_tool_finish_and_runs_nothing_more(
    kernel: KernelClient, resource: ResourceClient, workspace: Path
) -> None:
    fifo = workspace / "gate"
    os.mkfifo(fifo)
    session = await kernel.create_session(str(workspace), permission_mode=BYPASS)
    stream = kernel.start_turn(session.id, f'read line < {fifo}; echo "got $line"')
    reader = asyncio.create_task(_collect(stream))
    run = await running_run(resource, session.id)
    await kernel.send_message(session.id, f"touch {workspace / 'second'}")
    await kernel.stop_session(session.id, mode=kpb.STOP_MODE_AFTER_STEP)
    # The stop is on the record, and the command still runs.
    assert alive(run.pid)
    assert (await resource.get_run(session.id, run.ref)).status == rpb.RUN_STATUS_RUNNING
    await asyncio.to_thread(fifo.write_text, "go\n")
    events = await reader
    assert events[-1].turn_state.status == kpb.TURN_STATUS_ABORTED
    await kernel.wait_until_settled(
        session.id, stream.turn_id, f'read line < {fifo}; echo "got $line"'
    )
    log = list(await kernel.read_messages(session.id))
    result = first(log, "tool_result").tool_result
    assert not result.is_error and result.output == "got go\n"
    assert not (workspace / "second").exists()
    assert len(list((await resource.list_runs(session.id)).runs)) == 1
    rejected = [
        e.system_note
        for e in log
        if e.WhichOneof("event") == "system_note"
        and e.system_note.kind == kpb.SYSTEM_NOTE_KIND_MESSAGE_REJECTED
    ]
    assert len(rejected) == 1


async def _collect(stream: object) -> list[kpb.SessionEvent]:
    return [event async for event in stream]  # type: ignore[attr-defined]


async def test_a_background_pty_command_reports_its_ref_and_can_be_attached(
    kernel: KernelClient, resource: ResourceClient, workspace: Path
) -> None:
    session = await kernel.create_session(str(workspace), permission_mode=BYPASS)
    events = [event async for event in kernel.start_turn(session.id, "/bg cat")]
    result = first(events, "tool_result").tool_result
    assert not result.is_error and result.run_ref in result.output
    assert "maka attach" in result.output
    run = await resource.get_run(session.id, result.run_ref)
    assert run.mode == rpb.RUN_MODE_PTY and run.status == rpb.RUN_STATUS_RUNNING
    lease = await resource.acquire_controller(session.id, result.run_ref, "test-controller")
    await lease.send_input("hello pty\r")
    seen = b""
    attach = resource.attach(session.id, result.run_ref)
    async for message in attach:
        if message.HasField("output"):
            seen += message.output.data
            if seen.count(b"hello pty") >= 2:  # the terminal's echo, then cat's copy
                break
    await attach.aclose()
    await resource.stop_run(session.id, result.run_ref)


async def test_archiving_a_session_stops_its_runs_and_refuses_more(
    kernel: KernelClient, resource: ResourceClient, workspace: Path
) -> None:
    session = await kernel.create_session(str(workspace), permission_mode=BYPASS)
    events = [event async for event in kernel.start_turn(session.id, "/bg sleep 600")]
    from_turn = await resource.get_run(session.id, first(events, "tool_result").tool_result.run_ref)
    direct = await resource.start_background(session.id, "sleep 601")
    other = await kernel.create_session(str(workspace), permission_mode=BYPASS)
    untouched = await resource.start_background(other.id, "sleep 602")
    assert alive(from_turn.pid) and alive(direct.pid)

    await kernel.update_session(session.id, archived=True)
    assert not alive(from_turn.pid) and not alive(direct.pid)
    assert alive(untouched.pid)
    with pytest.raises(errors.SessionArchivedError):
        await resource.start_background(session.id, "true")
    with pytest.raises(errors.SessionArchivedError):
        await resource.get_run(session.id, direct.ref)
    with pytest.raises(errors.SessionArchivedError):
        await _collect(kernel.start_turn(session.id, "true"))
    await kernel.update_session(session.id, archived=False)
    for ref in (from_turn.ref, direct.ref):
        assert (await resource.get_run(session.id, ref)).status == rpb.RUN_STATUS_CANCELLED
    rerun = [event async for event in kernel.start_turn(session.id, "echo back")]
    assert first(rerun, "tool_result").tool_result.output == "back\n"
    await resource.stop_run(other.id, untouched.ref)


async def test_the_resource_service_refuses_sessions_the_kernel_does_not_know(
    resource: ResourceClient,
) -> None:
    with pytest.raises(errors.NotFoundError) as caught:
        await resource.start_background("no-such-session", "true")
    assert caught.value.reason == "NOT_FOUND"


async def test_a_shell_turn_runs_inside_the_sandbox_of_its_session(
    kernel: KernelClient, resource: ResourceClient, workspace: Path
) -> None:
    """Through the kernel: the command writes its workspace, and nothing else; it sees none of
    the services' variables (the suite's credential is in both of theirs)."""
    (workspace / ".git").mkdir()
    session = await kernel.create_session(str(workspace), permission_mode=BYPASS)
    command = (
        "echo made > made.txt; touch /etc/maka-pair; touch .git/config; "
        f"touch {Path.home()}/maka-pair; env"
    )
    events = [event async for event in kernel.start_turn(session.id, command)]
    result = first(events, "tool_result").tool_result
    assert (workspace / "made.txt").read_text() == "made\n"
    assert not (workspace / ".git" / "config").exists()
    assert not (Path("/etc") / "maka-pair").exists()
    assert not (Path.home() / "maka-pair").exists()
    assert result.output.count("Read-only file system") >= 2
    assert "MAKA_TOKEN" not in result.output and auth.TOKEN not in result.output
    [run] = (await resource.list_runs(session.id)).runs
    assert run.sandbox.profile == spb.PERMISSION_PROFILE_WORKSPACE_WRITE
    assert run.sandbox.containment == spb.CONTAINMENT_CGROUP

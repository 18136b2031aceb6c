"""Stopping shell turns, and a resource service that cannot be reached.

An ``immediate`` stop returns only once every process of the running command's group is gone
(checked by pid: zombies count as gone), including when it arrives while the run is still being
launched; an ``after_step`` stop lets the command finish and runs nothing more.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from maka_runtime_client.aio import ResourceClient
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb

from maka_runtime.kernel.backends import agent
from maka_runtime.kernel.backends.shell import ShellBackend
from maka_runtime.kernel.core import RunEndUnconfirmedError, SessionHeader, SessionStore
from maka_runtime.kernel.core.backend import StopMode, StopReason
from maka_runtime.kernel.core.log.events import (
    Complete,
    ErrorEvent,
    InteractionResolved,
    SandboxBoundaryRequest,
    SessionEvent,
    SystemNote,
    TextDelta,
    ToolCall,
    ToolOutput,
    ToolResult,
    TurnState,
    UserMessage,
)
from maka_runtime.kernel.core.tools import (
    HostShutdownReport,
    RunEvent,
    RunInfo,
    RunOutput,
    RunSpec,
    RunStarted,
)
from maka_runtime.kernel.resource_link import ResourceLink
from tests.support.pids import host_pid
from tests.support.typed import last, of_type

from .conftest import (
    ShellHarness,
    alive,
    events_until,
    group_members,
    make_shell_harness,
)

pytestmark = pytest.mark.timeout(30)

#: A command with more than one process in its group: the shell (or the ``sleep`` it may exec
#: at the end) and a background ``sleep`` whose pid it echoes first.
SLEEPERS = "sleep 600 & echo $!; sleep 601"
#: The same, with a leader that ignores SIGTERM: stopping it takes the resource service's
#: grace period and a SIGKILL. (Each prints the pid once its trap is set.)
STUBBORN_LEADER = "sleep 600 & trap '' TERM; echo $!; sleep 601"
#: A group member that ignores SIGTERM while the leader ends on it: the service kills what
#: is left of the group once the leader has exited.
STUBBORN_MEMBER = "(trap '' TERM; echo $BASHPID; exec sleep 600) & sleep 601"


async def _collect(stream: object) -> list[SessionEvent]:
    return [event async for event in stream]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "command",
    [SLEEPERS, STUBBORN_LEADER, STUBBORN_MEMBER],
    ids=["plain", "leader-ignores-term", "member-ignores-term"],
)
async def test_an_immediate_stop_returns_once_the_commands_processes_are_gone(
    shell: ShellHarness, workspace: Path, command: str
) -> None:
    session = await shell.shell_session(workspace, permission_mode="bypass")
    stream = shell.kernel.start_turn(session.id, "t1", text=command)
    output = last(await events_until(stream, "tool_output"), ToolOutput)
    run = await shell.running_run(session.id)
    sleeper = host_pid(run.pid, int(output.text))  # it echoes its pid in the run's namespace
    pids = sorted({run.pid, sleeper, *group_members(run.pid)})
    assert sleeper in group_members(run.pid)
    assert run.pid != sleeper and all(alive(pid) for pid in pids)

    await shell.kernel.stop_session(session.id, source="stop_button", mode="immediate")
    assert [pid for pid in pids if alive(pid)] == []
    assert group_members(run.pid) == []

    events = [output, *[e async for e in stream]]
    [result] = of_type(events, ToolResult)
    assert result.is_error and result.run_ref == run.ref
    assert result.output.startswith(f"{int(output.text)}\n[cut short by an immediate stop")
    assert of_type(events, TextDelta) == []  # cut short: the turn says nothing more
    assert [c.stop_reason for c in of_type(events, Complete)] == ["user_stop"]
    [state] = of_type(events, TurnState)
    assert (state.status, state.abort_source) == ("aborted", "stop_button")
    assert shell.resource is not None
    final = await shell.resource.get_run(session.id, run.ref)
    assert final.status == rpb.RUN_STATUS_CANCELLED


async def test_a_stop_while_the_approval_is_pending_runs_nothing(
    shell: ShellHarness, workspace: Path
) -> None:
    session = await shell.shell_session(workspace)
    stream = shell.kernel.start_turn(session.id, "t1", text="touch never")
    request = last(await events_until(stream, "sandbox_boundary_request"), SandboxBoundaryRequest)
    await shell.kernel.stop_session(session.id, mode="immediate")
    events = [e async for e in stream]
    [result] = of_type(events, ToolResult)
    assert (result.output, result.is_error, result.run_ref) == (
        "not run: the turn was stopped",
        True,
        "",
    )
    [resolved] = of_type(events, InteractionResolved)
    assert (resolved.request_id, resolved.outcome) == (request.request_id, "closed")
    assert [c.stop_reason for c in of_type(events, Complete)] == ["user_stop"]
    assert [s.status for s in of_type(events, TurnState)] == ["aborted"]
    assert await shell.runs(session.id) == []
    assert not (workspace / "never").exists()


class HeldLaunch:
    """The real link, except that a foreground run's start is announced late.

    Every call goes to the real resource service. ``run_foreground`` reads the run's start and
    its first output (so the run's processes exist), reports them in :attr:`launched`, and
    passes both on only once :attr:`release` is set and the run has been read back from the
    service (:attr:`unannounced`: a real round trip more before the announcement).
    """

    def __init__(self, inner: ResourceLink, resource: ResourceClient) -> None:
        self.inner = inner
        self.resource = resource
        self.unannounced: rpb.Run | None = None
        self.launched: asyncio.Future[tuple[RunInfo, str]] = (
            asyncio.get_running_loop().create_future()
        )
        self.release = asyncio.Event()

    @property
    def address(self) -> str:
        return self.inner.address

    async def ensure_session(self, header: SessionHeader, *, wait: bool = True) -> None:
        await self.inner.ensure_session(header, wait=wait)

    async def archive_session(self, session_id: str, *, deleted: bool = False) -> list[RunInfo]:
        return await self.inner.archive_session(session_id, deleted=deleted)

    async def run_foreground(self, spec: RunSpec) -> AsyncIterator[RunEvent]:
        events = self.inner.run_foreground(spec)
        try:
            held: list[RunEvent] = []
            async for event in events:
                if self.release.is_set():
                    yield event
                    continue
                held.append(event)
                if isinstance(event, RunOutput):
                    started = held[0]
                    assert isinstance(started, RunStarted)
                    self.launched.set_result((started.run, event.text))
                    await self.release.wait()
                    self.unannounced = await self.resource.get_run(spec.session_id, started.run.ref)
                    for early in held:
                        yield early
        finally:
            await events.aclose()  # type: ignore[attr-defined]

    async def start_background(self, spec: RunSpec) -> RunInfo:
        return await self.inner.start_background(spec)

    async def stop_run(self, session_id: str, ref: str) -> RunInfo:
        return await self.inner.stop_run(session_id, ref)

    async def shutdown(self) -> HostShutdownReport:
        return await self.inner.shutdown()


def release_once_stopping(backend: ShellBackend, host: HeldLaunch) -> list[bool]:
    """Set ``host.release`` right after *backend*'s stop has begun (the interrupt is set when
    its first step runs, and that step is scheduled before the release); returns whether the
    backend had been interrupted when the release came."""
    inner = backend.stop
    interrupted: list[bool] = []

    def release() -> None:
        interrupted.append(backend.control.interrupted)
        host.release.set()

    async def stop(reason: StopReason, mode: StopMode | None = None) -> None:
        stopping = asyncio.ensure_future(inner(reason, mode))
        asyncio.get_running_loop().call_soon(release)
        await stopping

    backend.stop = stop  # type: ignore[method-assign]
    return interrupted


async def test_an_immediate_stop_during_the_launch_waits_for_the_run_and_ends_it(
    sqlite_store: SessionStore, link: ResourceLink, resource: ResourceClient, workspace: Path
) -> None:
    host = HeldLaunch(link, resource)
    shell = make_shell_harness(sqlite_store, host, resource)
    try:
        session = await shell.shell_session(workspace, permission_mode="bypass")
        stream = shell.kernel.start_turn(session.id, "t1", text=STUBBORN_LEADER)
        collected = asyncio.ensure_future(_collect(stream))
        run, first = await host.launched  # requested and running; the backend knows nothing
        sleeper = host_pid(run.pid, int(first))
        pids = sorted({run.pid, sleeper, *group_members(run.pid)})
        assert sleeper in group_members(run.pid) and all(alive(pid) for pid in pids)
        [backend] = shell.built
        interrupted = release_once_stopping(backend, host)

        await shell.kernel.stop_session(session.id, mode="immediate")
        assert interrupted == [True]  # the stop came before the run was announced
        assert host.unannounced is not None
        assert host.unannounced.status == rpb.RUN_STATUS_RUNNING
        assert [pid for pid in pids if alive(pid)] == []
        assert group_members(run.pid) == []
        final = await resource.get_run(session.id, run.ref)
        assert final.status == rpb.RUN_STATUS_CANCELLED

        events = await collected
        [result] = of_type(events, ToolResult)
        assert result.is_error and result.run_ref == run.ref
        assert "cut short by an immediate stop" in result.output
        assert [c.stop_reason for c in of_type(events, Complete)] == ["user_stop"]
        assert [s.status for s in of_type(events, TurnState)] == ["aborted"]
    finally:
        host.release.set()  # a failed test must not leave the launch held
        await shell.close()


async def test_a_run_announced_after_the_stop_stopped_waiting_is_ended_by_the_turn(
    sqlite_store: SessionStore,
    link: ResourceLink,
    resource: ResourceClient,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An immediate stop waits at most LAUNCH_WAIT for a launching run; it cannot confirm the
    # end of one still not announced, so it fails (and the turn is recorded aborted at once).
    # One announced later is ended by the turn itself as soon as it hears of it; what the
    # turn reports after its terminal state is discarded.
    monkeypatch.setattr(agent, "LAUNCH_WAIT", 0.01)
    host = HeldLaunch(link, resource)
    shell = make_shell_harness(sqlite_store, host, resource)
    try:
        session = await shell.shell_session(workspace, permission_mode="bypass")
        stream = shell.kernel.start_turn(session.id, "t1", text=SLEEPERS)
        collected = asyncio.ensure_future(_collect(stream))
        run, first = await host.launched
        pids = sorted({run.pid, host_pid(run.pid, int(first)), *group_members(run.pid)})
        with pytest.raises(RunEndUnconfirmedError, match="a run being launched"):
            await shell.kernel.stop_session(session.id, mode="immediate")
        assert alive(run.pid)  # the stop gave up waiting: it did not know the run
        host.release.set()
        async with asyncio.timeout(10):
            events = await collected
        await shell.kernel.wait_settled(session.id)
        assert [pid for pid in pids if alive(pid)] == []
        assert group_members(run.pid) == []
        final = await resource.get_run(session.id, run.ref)
        assert final.status == rpb.RUN_STATUS_CANCELLED
        assert of_type(events, ToolResult) == []  # reported after the turn's end: discarded
        assert [s.status for s in of_type(events, TurnState)] == ["aborted"]
        log = await shell.log(session.id)
        assert isinstance(log[-1], TurnState) and log[-1].status == "aborted"
    finally:
        host.release.set()  # a failed test must not leave the launch held
        await shell.close()


async def test_an_after_step_stop_lets_the_command_finish_and_runs_nothing_more(
    shell: ShellHarness, workspace: Path
) -> None:
    gate = workspace / "gate"
    os.mkfifo(gate)
    session = await shell.shell_session(workspace, permission_mode="bypass")
    command = f'read line < {gate}; echo "got $line"'
    stream = shell.kernel.start_turn(session.id, "t1", text=command)
    collected = asyncio.ensure_future(_collect(stream))
    run = await shell.running_run(session.id)
    await shell.kernel.send_message(session.id, "touch second")
    await shell.kernel.stop_session(session.id, mode="after_step")
    # The stop is accepted, and the command still runs.
    assert alive(run.pid)
    assert shell.resource is not None
    assert (await shell.resource.get_run(session.id, run.ref)).status == rpb.RUN_STATUS_RUNNING
    await asyncio.to_thread(gate.write_text, "go\n")
    events = await collected

    [result] = of_type(events, ToolResult)
    assert (result.output, result.is_error, result.exit_code, result.run_ref) == (
        "got go\n",
        False,
        0,
        run.ref,
    )
    assert [o.text for o in of_type(events, ToolOutput)] == ["got go\n"]
    assert [c.input for c in of_type(events, ToolCall)] == [command]
    assert [s.status for s in of_type(events, TurnState)] == ["aborted"]
    assert [r.ref for r in await shell.runs(session.id)] == [run.ref]
    assert not (workspace / "second").exists()
    log = await shell.log(session.id)
    assert [u.text for u in of_type(log, UserMessage)] == [command]
    rejected = [n for n in of_type(log, SystemNote) if n.kind == "message_rejected"]
    assert len(rejected) == 1 and rejected[0].text.endswith("touch second")


async def test_an_unreachable_resource_service_fails_the_turn_without_hanging(
    sqlite_store: SessionStore, workspace: Path
) -> None:
    link = ResourceLink("127.0.0.1:1", call_timeout=1)
    shell = make_shell_harness(sqlite_store, link)
    try:
        session = await shell.shell_session(workspace, permission_mode="bypass")
        async with asyncio.timeout(10):
            events = [e async for e in shell.kernel.start_turn(session.id, "t1", text="echo hi")]
    finally:
        await shell.close()
        await link.close()
    assert [e.type for e in events] == ["tool_call", "tool_result", "error", "turn_state"]
    [result] = of_type(events, ToolResult)
    assert result.is_error and result.run_ref == ""
    assert result.output.startswith("the tool could not run: ")
    assert "127.0.0.1:1 is unreachable" in result.output
    [error] = of_type(events, ErrorEvent)
    assert error.code == "resource_unavailable"
    assert "is unreachable" in error.message
    assert last(events, TurnState).status == "failed"

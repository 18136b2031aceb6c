"""Shell turns through the kernel: each turn's text is a command run on ``maka-resource``.

Foreground commands stream their output and report their exit; permission mode ``ask`` raises
a sandbox-boundary request first (answered through the kernel's hosted authority); ``/bg`` and
interactive programs start background PTY runs that outlive the turn; messages sent into a
running turn run as further commands of that turn.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb

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
from tests.support.typed import last, of_type, only

from .conftest import ShellHarness, alive, events_until

pytestmark = pytest.mark.timeout(30)


def types(events: list[SessionEvent]) -> list[str]:
    return [event.type for event in events]


async def test_a_foreground_command_streams_its_output_in_the_sessions_cwd(
    shell: ShellHarness, workspace: Path
) -> None:
    cwd = workspace / "sub dir"
    cwd.mkdir()
    session = await shell.shell_session(workspace, cwd=str(cwd), permission_mode="bypass")
    command = "pwd; echo oops >&2"
    events = [e async for e in shell.kernel.start_turn(session.id, "t1", text=command)]

    kinds = types(events)
    outputs = of_type(events, ToolOutput)
    assert kinds == [
        "tool_call",
        *["tool_output"] * len(outputs),
        "tool_result",
        "text_delta",
        "complete",
        "turn_state",
    ]
    [call] = of_type(events, ToolCall)
    assert (call.name, call.input, call.tool_call_id) == ("bash", command, "t1-bash-1")
    assert {o.tool_call_id for o in outputs} == {"t1-bash-1"}
    by_stream = {
        stream: "".join(o.text for o in outputs if o.stream == stream)
        for stream in ("stdout", "stderr")
    }
    assert by_stream == {"stdout": f"{cwd}\n", "stderr": "oops\n"}
    [result] = of_type(events, ToolResult)
    assert (result.tool_call_id, result.is_error, result.exit_code) == ("t1-bash-1", False, 0)
    assert result.output == f"{cwd}\noops\n"  # stdout, then stderr
    assert result.run_ref.startswith("maka://runtime/background-tasks/")
    [text] = of_type(events, TextDelta)
    assert text.text == f"`{command}` exited with 0"
    assert only(events[-2], Complete).stop_reason == "end_turn"
    assert last(events, TurnState).status == "completed"

    [run] = await shell.runs(session.id)
    assert (run.ref, run.source_turn_id, run.source_tool_call_id) == (
        result.run_ref,
        "t1",
        "t1-bash-1",
    )
    assert (run.mode, run.status, run.cwd) == (
        rpb.RUN_MODE_PIPES,
        rpb.RUN_STATUS_COMPLETED,
        str(cwd),
    )


async def test_a_failing_command_is_an_error_result_with_its_exit_code(
    shell: ShellHarness, workspace: Path
) -> None:
    session = await shell.shell_session(workspace, permission_mode="bypass")
    events = [
        e async for e in shell.kernel.start_turn(session.id, "t1", text="echo partial; exit 3")
    ]
    [result] = of_type(events, ToolResult)
    assert (result.is_error, result.exit_code) == (True, 3)
    assert result.output == "partial\n[exit code 3]"
    assert [t.text for t in of_type(events, TextDelta)] == ["`echo partial; exit 3` exited with 3"]
    # The command failed, the turn did not.
    assert [c.stop_reason for c in of_type(events, Complete)] == ["end_turn"]
    assert last(events, TurnState).status == "completed"
    assert of_type(events, ErrorEvent) == []


async def test_the_timeout_ms_option_bounds_a_foreground_command(
    shell: ShellHarness, workspace: Path
) -> None:
    session = await shell.shell_session(
        workspace, permission_mode="bypass", backend_options={"timeout_ms": "200"}
    )
    events = [e async for e in shell.kernel.start_turn(session.id, "t1", text="sleep 30")]
    [result] = of_type(events, ToolResult)
    assert result.is_error
    assert result.output.startswith("[timed_out:")
    assert "200 ms" in result.output
    [run] = await shell.runs(session.id)
    assert run.status == rpb.RUN_STATUS_TIMED_OUT
    assert run.timeout_ms == 200
    assert last(events, TurnState).status == "completed"


async def test_an_invalid_timeout_ms_option_fails_the_turn_and_runs_nothing(
    shell: ShellHarness, workspace: Path
) -> None:
    session = await shell.shell_session(
        workspace, permission_mode="bypass", backend_options={"timeout_ms": "soon"}
    )
    events = [e async for e in shell.kernel.start_turn(session.id, "t1", text="echo hi")]
    assert types(events) == ["error", "turn_state"]
    [error] = of_type(events, ErrorEvent)
    assert "timeout_ms must be 1..600000, not 'soon'" in error.message
    assert last(events, TurnState).status == "failed"
    assert await shell.runs(session.id) == []


# -- permission mode ask ---------------------------------------------------------------------


async def test_ask_mode_runs_the_command_once_allowed(shell: ShellHarness, workspace: Path) -> None:
    session = await shell.shell_session(workspace)  # permission mode ask (the default)
    command = "touch approved && echo made in $PWD"
    stream = shell.kernel.start_turn(session.id, "t1", text=command)
    before = await events_until(stream, "sandbox_boundary_request")
    assert types(before) == ["tool_call", "sandbox_boundary_request"]
    request = last(before, SandboxBoundaryRequest)
    assert (request.command, request.cwd) == (command, str(workspace))
    assert "the shell backend runs the turn's command" in request.reason
    assert "allow_session allows this exact command line" in request.reason
    # Nothing runs before the answer.
    assert await shell.runs(session.id) == []
    assert not (workspace / "approved").exists()

    await shell.kernel.answer_sandbox_boundary(session.id, request.request_id, "allow_once")
    events = [e async for e in stream]
    [resolved] = of_type(events, InteractionResolved)
    assert (resolved.request_id, resolved.outcome) == (request.request_id, "allow_once")
    [result] = of_type(events, ToolResult)
    assert (result.output, result.is_error, result.exit_code) == (
        f"made in {workspace}\n",
        False,
        0,
    )
    assert (workspace / "approved").exists()
    assert [run.ref for run in await shell.runs(session.id)] == [result.run_ref]
    assert last(events, TurnState).status == "completed"


async def test_a_denied_command_runs_nothing_and_is_noted_once(
    shell: ShellHarness, workspace: Path
) -> None:
    session = await shell.shell_session(workspace)
    stream = shell.kernel.start_turn(session.id, "t1", text="touch denied")
    request = last(await events_until(stream, "sandbox_boundary_request"), SandboxBoundaryRequest)
    await shell.kernel.answer_sandbox_boundary(
        session.id, request.request_id, "deny", reason="not today"
    )
    events = [e async for e in stream]
    [result] = of_type(events, ToolResult)
    assert (result.output, result.is_error, result.run_ref, result.exit_code) == (
        "not run: denied (not today)",
        True,
        "",
        None,
    )
    assert [c.stop_reason for c in of_type(events, Complete)] == ["denied"]
    assert last(events, TurnState).status == "completed"
    assert await shell.runs(session.id) == []
    assert not (workspace / "denied").exists()
    notes = [n for n in of_type(await shell.log(session.id), SystemNote) if n.kind == "denied"]
    assert [n.text for n in notes] == [
        "turn ended: running 'touch denied' was denied (not today); nothing was run"
    ]


async def test_allow_session_allows_that_command_line_for_the_rest_of_the_session(
    shell: ShellHarness, workspace: Path
) -> None:
    session = await shell.shell_session(workspace)
    stream = shell.kernel.start_turn(session.id, "t1", text="echo one")
    request = last(await events_until(stream, "sandbox_boundary_request"), SandboxBoundaryRequest)
    await shell.kernel.answer_sandbox_boundary(session.id, request.request_id, "allow_session")
    first = [e async for e in stream]
    assert [r.output for r in of_type(first, ToolResult)] == ["one\n"]

    # The same line again: no question.
    again = [e async for e in shell.kernel.start_turn(session.id, "t2", text=" echo one ")]
    assert of_type(again, SandboxBoundaryRequest) == []
    assert [r.output for r in of_type(again, ToolResult)] == ["one\n"]

    # The same program, written differently, asks again …
    stream = shell.kernel.start_turn(session.id, "t2b", text="LC_ALL=C echo one")
    asked = last(await events_until(stream, "sandbox_boundary_request"), SandboxBoundaryRequest)
    await shell.kernel.answer_sandbox_boundary(session.id, asked.request_id, "allow_once")
    assert [r.output for r in of_type([e async for e in stream], ToolResult)] == ["one\n"]

    # Another program asks again …
    stream = shell.kernel.start_turn(session.id, "t3", text="printf three")
    asked = last(await events_until(stream, "sandbox_boundary_request"), SandboxBoundaryRequest)
    assert asked.command == "printf three"
    await shell.kernel.answer_sandbox_boundary(session.id, asked.request_id, "allow_once")
    assert [r.output for r in of_type([e async for e in stream], ToolResult)] == ["three"]

    # … and so does the same program in another session.
    other = await shell.shell_session(workspace)
    stream = shell.kernel.start_turn(other.id, "t1", text="echo four")
    asked = last(await events_until(stream, "sandbox_boundary_request"), SandboxBoundaryRequest)
    await shell.kernel.answer_sandbox_boundary(other.id, asked.request_id, "deny")
    assert [c.stop_reason for c in of_type([e async for e in stream], Complete)] == ["denied"]


async def test_bypass_never_asks(shell: ShellHarness, workspace: Path) -> None:
    session = await shell.shell_session(workspace, permission_mode="bypass")
    for turn, command in enumerate(["touch a", "rm a", "/bg true"]):
        events = [e async for e in shell.kernel.start_turn(session.id, f"t{turn}", text=command)]
        assert of_type(events, SandboxBoundaryRequest) == []
        assert of_type(events, InteractionResolved) == []
        assert len(of_type(events, ToolResult)) == 1
    assert len(await shell.runs(session.id)) == 3


# -- background runs ---------------------------------------------------------------------------


async def test_background_and_interactive_commands_start_pty_runs_that_outlive_turns(
    shell: ShellHarness, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("some notes\n")
    session = await shell.shell_session(workspace, permission_mode="bypass")
    started = {"/bg cat": "cat", "less notes.txt": "less notes.txt", "python3": "python3"}
    refs: list[str] = []
    try:
        for turn, (text, command) in enumerate(started.items()):
            events = [e async for e in shell.kernel.start_turn(session.id, f"bg{turn}", text=text)]
            assert types(events) == [
                "tool_call",
                "tool_result",
                "text_delta",
                "complete",
                "turn_state",
            ]
            [call] = of_type(events, ToolCall)
            assert call.input == command
            [result] = of_type(events, ToolResult)
            ref = result.run_ref
            refs.append(ref)
            assert not result.is_error
            assert ref.startswith("maka://runtime/background-tasks/")
            assert result.output.startswith(f"started background PTY run {ref} (pid ")
            assert result.output.endswith(f"attach with: maka attach {ref}")
            assert [t.text for t in of_type(events, TextDelta)] == [
                f"started `{command}` in the background as {ref}"
            ]
            assert last(events, TurnState).status == "completed"
        background = {run.ref: run for run in await shell.runs(session.id)}
        assert sorted(background) == sorted(refs)
        for run in background.values():
            assert (run.mode, run.status) == (rpb.RUN_MODE_PTY, rpb.RUN_STATUS_RUNNING)
            assert alive(run.pid)

        # An immediate stop of a later turn ends that turn's command, not the background runs.
        stream = shell.kernel.start_turn(session.id, "fg", text="echo ready; sleep 600")
        await events_until(stream, "tool_output")
        await shell.kernel.stop_session(session.id, mode="immediate")
        events = [e async for e in stream]
        [result] = of_type(events, ToolResult)
        assert "cut short" in result.output
        for ref, run in background.items():
            assert shell.resource is not None
            now = await shell.resource.get_run(session.id, ref)
            assert now.status == rpb.RUN_STATUS_RUNNING, ref
            assert alive(run.pid), ref
    finally:
        assert shell.resource is not None
        for ref in refs:
            await shell.resource.stop_run(session.id, ref)
    for run in background.values():
        assert not alive(run.pid)


async def test_bg_without_a_command_runs_nothing(shell: ShellHarness, workspace: Path) -> None:
    session = await shell.shell_session(workspace, permission_mode="bypass")
    events = [e async for e in shell.kernel.start_turn(session.id, "t1", text="/bg  ")]
    assert types(events) == ["text_delta", "complete", "turn_state"]
    assert only(events[0], TextDelta).text == "nothing to run: the command is empty"
    assert await shell.runs(session.id) == []


# -- messages into a running turn --------------------------------------------------------------


async def test_messages_sent_into_a_running_turn_run_after_its_command_in_order(
    shell: ShellHarness, workspace: Path
) -> None:
    gate = workspace / "gate"
    os.mkfifo(gate)
    session = await shell.shell_session(workspace, permission_mode="bypass")
    first = f'read line < {gate}; echo "got $line"'
    stream = shell.kernel.start_turn(session.id, "t1", text=first)
    collected = asyncio.ensure_future(_collect(stream))
    held = await shell.running_run(session.id)  # blocked on the gate
    await shell.kernel.send_message(session.id, "echo second", turn_id="t1")
    await shell.kernel.send_message(session.id, "echo third >&2; exit 4")
    await asyncio.to_thread(gate.write_text, "go\n")
    events = await collected

    calls = of_type(events, ToolCall)
    assert [(c.tool_call_id, c.input) for c in calls] == [
        ("t1-bash-1", first),
        ("t1-bash-2", "echo second"),
        ("t1-bash-3", "echo third >&2; exit 4"),
    ]
    order = [(e.type, e.tool_call_id) for e in events if e.type in ("tool_call", "tool_result")]
    assert order == [
        ("tool_call", "t1-bash-1"),
        ("tool_result", "t1-bash-1"),
        ("tool_call", "t1-bash-2"),
        ("tool_result", "t1-bash-2"),
        ("tool_call", "t1-bash-3"),
        ("tool_result", "t1-bash-3"),
    ]
    results = of_type(events, ToolResult)
    assert [(r.output, r.exit_code) for r in results] == [
        ("got go\n", 0),
        ("second\n", 0),
        ("third\n[exit code 4]", 4),
    ]
    assert results[0].run_ref == held.ref
    assert [c.stop_reason for c in of_type(events, Complete)] == ["end_turn"]
    assert last(events, TurnState).status == "completed"
    runs = await shell.runs(session.id)
    assert [run.ref for run in runs] == [r.run_ref for r in results]
    assert {run.source_turn_id for run in runs} == {"t1"}
    log = await shell.log(session.id)
    users = of_type(log, UserMessage)
    assert [(u.text, u.queued) for u in users] == [
        (first, False),
        ("echo second", True),
        ("echo third >&2; exit 4", True),
    ]
    assert of_type(log, SystemNote)[-1].kind == "session_start"  # nothing rejected


async def _collect(stream: object) -> list[SessionEvent]:
    return [event async for event in stream]  # type: ignore[attr-defined]

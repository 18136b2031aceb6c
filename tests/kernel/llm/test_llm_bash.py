"""The LLM backend's ``bash`` tool on a real ``maka-resource`` process, through the kernel.

The resource service runs as a separate process (module-scoped, its own data directory); the
kernel reaches it through :class:`~maka_runtime.kernel.resource_link.ResourceLink`, the tool host
the server wires in, so approvals, output streaming and stops are the production path.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc as rpb_grpc

from maka_runtime.kernel.core import SessionUpdate, TurnStream
from maka_runtime.kernel.core.log.events import (
    Complete,
    ErrorEvent,
    SandboxBoundaryRequest,
    SessionEvent,
    SystemNote,
    ToolCall,
    ToolOutput,
    ToolResult,
    TurnState,
)
from maka_runtime.kernel.resource_link import ResourceLink
from tests.support.processes import ServiceProcess, running_service, wait_for_exit
from tests.support.typed import last, of_type

from .conftest import LlmHarness, connection, events_until, make_llm_harness
from .server import ChatServer, Stream, finish, role, text_reply, tool_piece, tool_reply

pytestmark = pytest.mark.timeout(30)


@pytest.fixture(scope="module")
def resource_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    with running_service("resource", tmp_path_factory.mktemp("resource-data")) as server:
        yield server


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
async def bash_llm(
    chat: ChatServer, resource_server: ServiceProcess, sqlite_store: object
) -> AsyncIterator[LlmHarness]:
    """A kernel on SQLite whose llm backend runs tools on the real resource service."""
    link = ResourceLink(resource_server.address)
    h = make_llm_harness(sqlite_store, {"local": connection(chat)}, host=link)  # type: ignore[arg-type]
    yield h
    await h.close()
    await link.close()


def _only_run(server: ServiceProcess, session_id: str) -> rpb.Run:
    with grpc.insecure_channel(server.address) as channel:
        reply = rpb_grpc.ResourceServiceStub(channel).ListRuns(
            rpb.ListRunsRequest(session_id=session_id), timeout=20
        )
    [run] = reply.runs
    return run


def bash(command: str) -> str:
    return json.dumps({"command": command})


def live_group_members(pgid: int) -> list[int]:
    """Processes of group *pgid* that have not exited (zombies do not count)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, group = fields[0], int(fields[2])
        if group == pgid and state not in ("Z", "X"):
            members.append(int(entry))
    return members


async def test_two_bash_calls_in_one_reply_run_in_order_and_their_outputs_reach_the_model(
    bash_llm: LlmHarness, chat: ChatServer, workspace: Path
) -> None:
    first, second = bash("pwd; echo one"), bash("echo two >&2; exit 3")
    chat.reply(
        Stream(
            [
                role(),
                tool_piece(0, call_id="call_pwd", name="bash", arguments=first[:5]),
                tool_piece(1, call_id="call_fail", name="bash", arguments=second[:9]),
                tool_piece(0, arguments=first[5:12]),
                tool_piece(1, arguments=second[9:]),
                tool_piece(0, arguments=first[12:]),
                finish("tool_calls"),
            ]
        ),
        text_reply("One worked, one failed."),
    )
    session = await bash_llm.llm_session(workspace_root=str(workspace), permission_mode="bypass")
    events = [e async for e in bash_llm.kernel.start_turn(session.id, "t1", text="run both")]
    assert last(events, TurnState).status == "completed"
    calls = of_type(events, ToolCall)
    assert [(c.tool_call_id, c.name, c.input) for c in calls] == [
        ("call_pwd", "bash", "pwd; echo one"),
        ("call_fail", "bash", "echo two >&2; exit 3"),
    ]
    assert of_type(events, SandboxBoundaryRequest) == []
    streamed = "".join(e.text for e in of_type(events, ToolOutput) if e.tool_call_id == "call_pwd")
    assert streamed == f"{workspace}\none\n"
    ok, failed = of_type(events, ToolResult)
    assert (ok.output, ok.is_error, ok.exit_code) == (f"{workspace}\none\n", False, 0)
    assert ok.run_ref.startswith("maka://runtime/background-tasks/")
    assert (failed.is_error, failed.exit_code) == (True, 3)
    assert failed.output == "two\n[exit code 3]"
    order = [(e.type, e.tool_call_id) for e in events if e.type in ("tool_call", "tool_result")]
    assert order == [
        ("tool_call", "call_pwd"),
        ("tool_result", "call_pwd"),
        ("tool_call", "call_fail"),
        ("tool_result", "call_fail"),
    ]
    assert chat.requests[1].messages[-2:] == [
        {"role": "tool", "tool_call_id": "call_pwd", "content": f"{workspace}\none\n"},
        {"role": "tool", "tool_call_id": "call_fail", "content": "two\n[exit code 3]"},
    ]


async def test_ask_mode_runs_the_command_after_approval(
    bash_llm: LlmHarness, chat: ChatServer, workspace: Path
) -> None:
    chat.reply(
        tool_reply(("call_touch", "bash", bash("touch approved.txt && echo made"))),
        text_reply("Made it."),
    )
    session = await bash_llm.llm_session(workspace_root=str(workspace), permission_mode="ask")
    stream = bash_llm.kernel.start_turn(session.id, "t1", text="make a file")
    request = last(await events_until(stream, "sandbox_boundary_request"), SandboxBoundaryRequest)
    assert (request.command, request.cwd) == ("touch approved.txt && echo made", str(workspace))
    assert not (workspace / "approved.txt").exists()
    await bash_llm.kernel.answer_sandbox_boundary(session.id, request.request_id, "allow_once")
    events = [e async for e in stream]
    assert last(events, TurnState).status == "completed"
    [result] = of_type(events, ToolResult)
    assert (result.output, result.is_error) == ("made\n", False)
    assert (workspace / "approved.txt").exists()
    assert chat.requests[1].messages[-1] == {
        "role": "tool",
        "tool_call_id": "call_touch",
        "content": "made\n",
    }


async def test_a_denied_command_ends_the_turn_and_the_model_hears_nothing_more(
    bash_llm: LlmHarness, chat: ChatServer, workspace: Path
) -> None:
    chat.reply(
        tool_reply(("call_rm", "bash", bash("touch denied.txt"))),
        text_reply("never requested"),
    )
    session = await bash_llm.llm_session(workspace_root=str(workspace), permission_mode="ask")
    stream = bash_llm.kernel.start_turn(session.id, "t1", text="make a file")
    request = last(await events_until(stream, "sandbox_boundary_request"), SandboxBoundaryRequest)
    await bash_llm.kernel.answer_sandbox_boundary(
        session.id, request.request_id, "deny", reason="not today"
    )
    events = [e async for e in stream]
    [result] = of_type(events, ToolResult)
    assert (result.output, result.is_error, result.run_ref) == (
        "not run: denied (not today)",
        True,
        "",
    )
    assert [e.stop_reason for e in of_type(events, Complete)] == ["denied"]
    log = await bash_llm.log(session.id)
    assert [n.kind for n in of_type(log, SystemNote)][-1] == "denied"
    assert not (workspace / "denied.txt").exists()
    assert len(chat.requests) == 1
    assert len(chat.replies) == 1


async def test_an_immediate_stop_kills_the_running_command_before_it_returns(
    bash_llm: LlmHarness, chat: ChatServer, workspace: Path, resource_server: ServiceProcess
) -> None:
    chat.reply(
        tool_reply(("call_sleep", "bash", bash("echo started $$; sleep 600"))),
        text_reply("never requested"),
    )
    session = await bash_llm.llm_session(workspace_root=str(workspace), permission_mode="bypass")
    stream = bash_llm.kernel.start_turn(session.id, "t1", text="wait a long time")
    output = last(await events_until(stream, "tool_output"), ToolOutput)
    assert output.text.startswith("started ")
    # The shell's pid inside its sandbox is its own; the run's leader is the host's.
    pid = _only_run(resource_server, session.id).pid
    assert live_group_members(pid), "the command's process group should be running"
    await bash_llm.kernel.stop_session(session.id, source="stop_button")
    # Gone when the stop returns: the shell (the group leader) has exited, and nothing of its
    # process group is left.
    assert wait_for_exit(pid, timeout=0)
    assert live_group_members(pid) == []
    events = [e async for e in stream]
    [result] = of_type(events, ToolResult)
    assert result.is_error
    assert "cut short by an immediate stop" in result.output
    assert [e.stop_reason for e in of_type(events, Complete)] == ["user_stop"]
    assert [e.status for e in of_type(events, TurnState)] == ["aborted"]
    assert len(chat.requests) == 1


async def test_a_background_call_reports_an_attachable_run_to_the_model(
    bash_llm: LlmHarness, chat: ChatServer, workspace: Path
) -> None:
    args = json.dumps({"command": "sleep 30", "background": True})
    chat.reply(tool_reply(("call_bg", "bash", args)), text_reply("Started."))
    session = await bash_llm.llm_session(workspace_root=str(workspace), permission_mode="bypass")
    events = [e async for e in bash_llm.kernel.start_turn(session.id, "t1", text="start it")]
    assert last(events, TurnState).status == "completed"
    [result] = of_type(events, ToolResult)
    assert not result.is_error
    assert result.run_ref.startswith("maka://runtime/background-tasks/")
    assert result.output.startswith(f"started background PTY run {result.run_ref} (pid ")
    assert result.output.endswith(f"attach with: maka attach {result.run_ref}")
    assert chat.requests[1].messages[-1]["content"] == result.output
    host = bash_llm.kernel.tool_host
    assert host is not None
    stopped = await host.stop_run(session.id, result.run_ref)
    assert stopped.status == "cancelled"


async def test_an_unreachable_resource_service_fails_the_turn(
    chat: ChatServer, sqlite_store: object, workspace: Path
) -> None:
    with socket.socket() as sock:  # bound, not listening: connections are refused
        sock.bind(("127.0.0.1", 0))
        link = ResourceLink(f"127.0.0.1:{sock.getsockname()[1]}", call_timeout=2.0)
        h = make_llm_harness(sqlite_store, {"local": connection(chat)}, host=link)  # type: ignore[arg-type]
        try:
            chat.reply(tool_reply(("call_ls", "bash", bash("ls"))), text_reply("never requested"))
            session = await h.llm_session(workspace_root=str(workspace), permission_mode="bypass")
            events = [e async for e in h.kernel.start_turn(session.id, "t1", text="list")]
        finally:
            await h.close()
            await link.close()
    [error] = of_type(events, ErrorEvent)
    assert error.code == "resource_unavailable"
    assert "is unreachable" in error.message
    assert last(events, TurnState).status == "failed"
    assert len(chat.requests) == 1


def widen(path: Path) -> str:
    return json.dumps({"paths": [{"path": str(path)}], "justification": "write the report"})


async def answer_each(
    h: LlmHarness, session_id: str, stream: TurnStream, decisions: list[str]
) -> list[SessionEvent]:
    """The turn's events, answering its sandbox-boundary requests with *decisions* in order."""
    events: list[SessionEvent] = []
    for decision in decisions:
        events += await events_until(stream, "sandbox_boundary_request")
        request = last(events, SandboxBoundaryRequest)
        await h.kernel.answer_sandbox_boundary(session_id, request.request_id, decision)
    return events + [e async for e in stream]


async def test_an_allow_once_grant_is_the_next_bash_call_s_alone_and_its_result_says_so(
    bash_llm: LlmHarness, chat: ChatServer, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    chat.reply(
        tool_reply(("call_ask", "request_sandbox_boundary", widen(outside))),
        tool_reply(("call_one", "bash", bash(f"touch {outside}/one"))),
        tool_reply(("call_two", "bash", bash(f"touch {outside}/two"))),
        text_reply("done"),
    )
    session = await bash_llm.llm_session(workspace_root=str(workspace), permission_mode="ask")
    stream = bash_llm.kernel.start_turn(session.id, "t1", text="write outside")
    events = await answer_each(bash_llm, session.id, stream, ["allow_once"] * 3)
    assert last(events, TurnState).status == "completed"
    asked, *_ = of_type(events, SandboxBoundaryRequest)
    granted, one, two = of_type(events, ToolResult)
    assert (granted.output, granted.once_expansion) == ("granted once: for the next bash call", ())
    assert (one.is_error, one.once_expansion) == (False, asked.expansion)
    assert (outside / "one").exists()
    # The second call carries nothing more than the session's boundary: the sandbox refuses it.
    assert (two.is_error, two.once_expansion) == (True, ())
    assert not (outside / "two").exists()
    assert (one.boundary_revision, two.boundary_revision) == (1, 1)


async def test_an_allow_once_grant_never_reaches_a_later_turn_nor_another_permission_mode(
    bash_llm: LlmHarness, chat: ChatServer, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    session = await bash_llm.llm_session(workspace_root=str(workspace), permission_mode="ask")
    for turn, mode in (("t1", "ask"), ("t3", "bypass")):
        # The model is granted the path once and ends its turn without a bash call.
        chat.reply(
            tool_reply((f"{turn}_ask", "request_sandbox_boundary", widen(outside))),
            text_reply("later"),
        )
        stream = bash_llm.kernel.start_turn(session.id, turn, text="ask")
        events = await answer_each(bash_llm, session.id, stream, ["allow_once"])
        assert of_type(events, ToolResult)[-1].output == "granted once: for the next bash call"
        await bash_llm.kernel.update_session(session.id, SessionUpdate(permission_mode=mode))
        chat.reply(
            tool_reply((f"{turn}_leak", "bash", bash(f"touch {outside}/leak_{turn}"))),
            text_reply("done"),
        )
        stream = bash_llm.kernel.start_turn(session.id, f"{turn}-next", text="write it")
        events = await answer_each(bash_llm, session.id, stream, ["allow_once"][: mode == "ask"])
        result = of_type(events, ToolResult)[-1]
        assert (result.is_error, result.once_expansion) == (True, ())
        assert not (outside / f"leak_{turn}").exists()

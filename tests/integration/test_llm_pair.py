"""An LLM turn through the pair: a real kernel process talks to a local chat-completions server
over HTTP and runs the model's tool calls on a real resource service process."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from maka_runtime_client.aio import KernelClient, ResourceClient
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb

from tests.integration.conftest import Pair, every, first, start_pair
from tests.kernel.llm.server import ChatServer, text_reply, tool_reply


@pytest.fixture
async def chat() -> AsyncIterator[ChatServer]:
    server = ChatServer()
    await server.start()
    try:
        yield server
    finally:
        await server.close()


@pytest.fixture
def llm_pair(tmp_path: Path, chat: ChatServer) -> Iterator[Pair]:
    connections = tmp_path / "connections.toml"
    connections.write_text(
        f'[connections.local]\nbase_url = "{chat.base_url}"\nmodel = "test-model"\n'
        'api_key_env = "PAIR_TEST_KEY"\n'
    )
    pair = start_pair(
        tmp_path,
        "--llm-connections",
        str(connections),
        kernel_env={"PAIR_TEST_KEY": "secret-key"},
    )
    try:
        yield pair
    finally:
        pair.stop()
        pair.proxy.close()


async def test_an_llm_turn_with_two_tool_calls_runs_them_on_the_resource_service(
    llm_pair: Pair, chat: ChatServer, workspace: Path
) -> None:
    chat.reply(
        tool_reply(
            ("call_1", "bash", json.dumps({"command": "echo first; pwd"})),
            ("call_2", "bash", json.dumps({"command": "echo second >&2; exit 4"})),
            text="Let me look.",
        ),
        text_reply("Both ", "ran."),
    )
    async with (
        KernelClient(llm_pair.kernel.address) as kernel,
        ResourceClient(llm_pair.resource.address) as resource,
    ):
        session = await kernel.create_session(
            str(workspace),
            backend="llm",
            llm_connection_slug="local",
            permission_mode=kpb.PERMISSION_MODE_BYPASS,
        )
        events = [event async for event in kernel.start_turn(session.id, "look around")]
        runs = (await resource.list_runs(session.id)).runs

    calls = every(events, "tool_call")
    assert [(c.tool_call.tool_call_id, c.tool_call.name) for c in calls] == [
        ("call_1", "bash"),
        ("call_2", "bash"),
    ]
    results = [e.tool_result for e in every(events, "tool_result")]
    assert (results[0].is_error, results[0].exit_code) == (False, 0)
    assert results[0].output == f"first\n{workspace}\n"
    assert (results[1].is_error, results[1].exit_code) == (True, 4)
    assert {run.ref for run in runs} == {r.run_ref for r in results}
    assert {run.source_tool_call_id for run in runs} == {"call_1", "call_2"}
    assert events[-1].turn_state.status == kpb.TURN_STATUS_COMPLETED
    texts = "".join(e.text_delta.text for e in every(events, "text_delta"))
    assert texts == "Let me look.Both ran."

    first_request, second_request = chat.requests
    assert first_request.headers["authorization"] == "Bearer secret-key"
    assert first_request.body["model"] == "test-model" and first_request.body["stream"] is True
    assert {tool["function"]["name"] for tool in first_request.body["tools"]} == {
        "bash",
        "ask_user",
        "request_sandbox_boundary",
    }
    tool_messages = [m for m in second_request.messages if m["role"] == "tool"]
    assert [(m["tool_call_id"], m["content"]) for m in tool_messages] == [
        ("call_1", f"first\n{workspace}\n"),
        ("call_2", "second\n[exit code 4]"),
    ]
    assert first(events, "complete").complete.stop_reason == "end_turn"


async def test_an_llm_bash_call_in_ask_mode_waits_for_approval(
    llm_pair: Pair, chat: ChatServer, workspace: Path
) -> None:
    chat.reply(
        tool_reply(("call_1", "bash", json.dumps({"command": "echo approved"}))),
        text_reply("done"),
    )
    async with KernelClient(llm_pair.kernel.address) as kernel:
        session = await kernel.create_session(
            str(workspace), backend="llm", llm_connection_slug="local"
        )
        events = []
        async for event in kernel.start_turn(session.id, "go"):
            events.append(event)
            if event.WhichOneof("event") == "sandbox_boundary_request":
                assert len(chat.requests) == 1
                await kernel.respond_to_sandbox_boundary(
                    session.id,
                    event.sandbox_boundary_request.request_id,
                    kpb.SANDBOX_DECISION_ALLOW_ONCE,
                )
    assert first(events, "tool_result").tool_result.output == "approved\n"
    assert events[-1].turn_state.status == kpb.TURN_STATUS_COMPLETED

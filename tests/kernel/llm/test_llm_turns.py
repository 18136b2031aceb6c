"""LLM turns through a real kernel against the local chat-completions server (no tools run).

Each test scripts the server's replies, drives the kernel (start_turn, answers, messages,
stops) and asserts both the session log and the requests the model received.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from maka_runtime.kernel.backends.llm import LlmConnection
from maka_runtime.kernel.core.log.events import (
    AssistantMessage,
    Complete,
    ErrorEvent,
    SandboxBoundaryRequest,
    TextDelta,
    ToolCall,
    ToolResult,
    TurnState,
    UserMessage,
    UserQuestionRequest,
)
from maka_runtime.kernel.store import MemorySessionStore
from tests.kernel.harness import kinds
from tests.support.typed import last, of_type, only

from .conftest import (
    KEY_ENV,
    LlmHarness,
    connection,
    events_until,
    make_llm_harness,
)
from .server import (
    MODEL,
    ChatServer,
    Chunk,
    Failure,
    Stream,
    content,
    finish,
    role,
    text_reply,
    tool_piece,
    tool_reply,
)

TOOL_NAMES = ["bash", "ask_user", "request_sandbox_boundary"]


def tool_names(body: dict[str, object]) -> list[str]:
    return [tool["function"]["name"] for tool in body["tools"]]  # type: ignore[attr-defined]


async def test_text_streams_into_one_assistant_message_and_the_request_says_everything(
    chat: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test-123")
    h = make_llm_harness(
        MemorySessionStore(), {"local": connection(chat, api_key_env=KEY_ENV, model="default-m")}
    )
    try:
        session = await h.llm_session(model="chosen-model")
        chat.reply(text_reply("Hel", "lo, ", "world"), text_reply("again"))
        events = [e async for e in h.kernel.start_turn(session.id, "t1", text="say hello")]
        assert [e.type for e in events] == [
            "text_delta",
            "text_delta",
            "text_delta",
            "complete",
            "turn_state",
        ]
        assert len({e.message_id for e in of_type(events, TextDelta)}) == 1
        assert (only(events[-2], Complete).stop_reason, last(events, TurnState).status) == (
            "end_turn",
            "completed",
        )
        log = await h.log(session.id)
        assert [m.text for m in of_type(log, AssistantMessage)] == ["Hello, world"]

        [request] = chat.requests
        assert (request.method, request.path) == ("POST", "/v1/chat/completions")
        assert request.headers["authorization"] == "Bearer sk-test-123"
        assert request.body["model"] == "chosen-model"
        assert request.body["stream"] is True
        assert tool_names(request.body) == TOOL_NAMES
        bash = request.body["tools"][0]["function"]["parameters"]
        assert bash["required"] == ["command"]
        assert set(bash["properties"]) == {"command", "background", "timeout_ms"}
        assert [m["role"] for m in request.messages] == ["system", "user"]
        assert request.messages[1]["content"] == "say hello"
        assert "bash" in request.messages[0]["content"]

        # The next turn carries the conversation so far.
        _ = [e async for e in h.kernel.start_turn(session.id, "t2", text="once more")]
        assert [(m["role"], m["content"]) for m in chat.requests[1].messages[1:]] == [
            ("user", "say hello"),
            ("assistant", "Hello, world"),
            ("user", "once more"),
        ]
    finally:
        await h.close()


async def test_no_key_variable_sends_no_authorization_and_the_connection_model_is_the_default(
    llm: LlmHarness, chat: ChatServer
) -> None:
    session = await llm.llm_session()
    chat.reply(text_reply("ok"))
    _ = [e async for e in llm.kernel.start_turn(session.id, text="hi")]
    [request] = chat.requests
    assert "authorization" not in request.headers
    assert request.body["model"] == MODEL


async def test_tool_call_deltas_split_across_chunks_are_assembled_by_index(
    llm: LlmHarness, chat: ChatServer
) -> None:
    first = json.dumps({"question": "Which colour?", "options": ["red", "blue"]})
    second = json.dumps({"question": "Which size?"})
    a, b = (first[:7], first[7:20], first[20:]), (second[:3], second[3:15], second[15:])
    chat.reply(
        Stream(
            [
                role(),
                content("Let me ask."),
                tool_piece(0, call_id="call_colour", name="ask_user", arguments=""),
                tool_piece(0, arguments=a[0]),
                tool_piece(1, call_id="call_size", name="ask_user", arguments=b[0]),
                tool_piece(0, arguments=a[1]),
                tool_piece(1, arguments=b[1]),
                tool_piece(0, arguments=a[2]),
                tool_piece(1, arguments=b[2]),
                finish("tool_calls"),
            ]
        ),
        text_reply("Red and large."),
    )
    session = await llm.llm_session()
    stream = llm.kernel.start_turn(session.id, "t1", text="pick")
    seen = await events_until(stream, "user_question_request")
    assert [(e.tool_call_id, e.name, e.input) for e in of_type(seen, ToolCall)] == [
        ("call_colour", "ask_user", "Which colour?")
    ]
    question = last(seen, UserQuestionRequest)
    assert (question.question, question.options) == ("Which colour?", ("red", "blue"))
    await llm.kernel.answer_user_question(session.id, question.request_id, ["red"])
    question = last(await events_until(stream, "user_question_request"), UserQuestionRequest)
    assert (question.question, question.options) == ("Which size?", ())
    await llm.kernel.answer_user_question(session.id, question.request_id, ["large", "very"])
    rest = [e async for e in stream]
    assert last(rest, TurnState).status == "completed"

    second_request = chat.requests[1].messages
    assistant, *tools = second_request[-3:]
    assert assistant["role"] == "assistant"
    assert assistant["content"] == "Let me ask."
    assert [
        (c["id"], c["type"], c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in assistant["tool_calls"]
    ] == [
        ("call_colour", "function", "ask_user", json.loads(first)),
        ("call_size", "function", "ask_user", json.loads(second)),
    ]
    assert tools == [
        {"role": "tool", "tool_call_id": "call_colour", "content": "red"},
        {"role": "tool", "tool_call_id": "call_size", "content": "large, very"},
    ]


async def test_ask_user_raises_a_question_whose_answer_reaches_the_model(
    llm: LlmHarness, chat: ChatServer
) -> None:
    args = json.dumps({"question": "Deploy now?", "options": ["yes", "no"]})
    chat.reply(tool_reply(("call_q", "ask_user", args)), text_reply("Deploying."))
    session = await llm.llm_session()
    stream = llm.kernel.start_turn(session.id, "t1", text="deploy")
    question = last(await events_until(stream, "user_question_request"), UserQuestionRequest)
    assert (question.request_id, question.options) == ("call_q-question", ("yes", "no"))
    await llm.kernel.answer_user_question(session.id, question.request_id, ["yes"])
    _ = [e async for e in stream]
    log = await llm.log(session.id)
    assert kinds(log)[1:] == [
        "user",
        "turn_state:running",
        "tool_call",
        "user_question_request",
        "interaction_resolved:answered",
        "tool_result",
        "text_delta",
        "assistant",
        "complete",
        "turn_state:completed",
    ]
    [result] = of_type(log, ToolResult)
    assert (result.tool_call_id, result.output, result.is_error) == ("call_q", "yes", False)
    assert chat.requests[1].messages[-1] == {
        "role": "tool",
        "tool_call_id": "call_q",
        "content": "yes",
    }


async def test_an_unanswered_question_tells_the_model_why(chat: ChatServer) -> None:
    chat.reply(tool_reply(("call_q", "ask_user", '{"question": "Sure?"}')), text_reply("Fine."))
    h = make_llm_harness(MemorySessionStore(), {"local": connection(chat)}, answer_timeout=30)
    try:
        session = await h.llm_session()
        stream = h.kernel.start_turn(session.id, "t1", text="go")
        await events_until(stream, "user_question_request")
        h.timers.fire_all()  # the answer timeout runs out
        events = [e async for e in stream]
        assert last(events, TurnState).status == "completed"
        [result] = of_type(events, ToolResult)
        assert result.is_error
        assert result.output.startswith("the user did not answer: timed_out")
        assert chat.requests[1].messages[-1]["content"] == result.output
    finally:
        await h.close()


async def test_messages_sent_into_the_running_turn_reach_the_next_request(
    llm: LlmHarness, chat: ChatServer
) -> None:
    held = asyncio.Event()
    chat.reply(
        Stream([role(), content("Working"), content(" on it.", gate=held), finish("stop")]),
        text_reply("Noted."),
    )
    session = await llm.llm_session()
    stream = llm.kernel.start_turn(session.id, "t1", text="start")
    await events_until(stream, "text_delta")
    queued = await llm.kernel.send_message(session.id, "also run the tests", turn_id="t1")
    held.set()
    events = [e async for e in stream]
    assert last(events, TurnState).status == "completed"
    assert len(chat.requests) == 2
    assert [(m["role"], m["content"]) for m in chat.requests[1].messages[-3:]] == [
        ("user", "start"),
        ("assistant", "Working on it."),
        ("user", "also run the tests"),
    ]
    log = await llm.log(session.id)
    delivered = [m for m in of_type(log, UserMessage) if m.queued]
    assert [(m.id, m.text) for m in delivered] == [(queued.message_id, "also run the tests")]
    assert [m.text for m in of_type(log, AssistantMessage)] == ["Working on it.", "Noted."]


async def test_an_after_step_stop_lets_the_streaming_step_finish_and_requests_nothing_more(
    llm: LlmHarness, chat: ChatServer
) -> None:
    held = asyncio.Event()
    chat.reply(
        Stream(
            [
                role(),
                content("Step one"),
                content(" done.", gate=held),
                tool_piece(0, call_id="call_q", name="ask_user", arguments='{"question": "Go?"}'),
                finish("tool_calls"),
            ]
        ),
        text_reply("never requested"),
    )
    session = await llm.llm_session()
    stream = llm.kernel.start_turn(session.id, "t1", text="work")
    await events_until(stream, "text_delta")
    outcome = await llm.kernel.stop_session(session.id, mode="after_step")
    assert outcome.turn_id == "t1"
    held.set()
    rest = [e async for e in stream]
    assert [e.text for e in of_type(rest, TextDelta)] == [" done."]
    assert [e.stop_reason for e in of_type(rest, Complete)] == ["user_stop"]
    assert [e.status for e in of_type(rest, TurnState)] == ["aborted"]
    log = await llm.log(session.id)
    assert [m.text for m in of_type(log, AssistantMessage)] == ["Step one done."]
    assert of_type(log, ToolCall) == []
    assert of_type(log, UserQuestionRequest) == []
    assert len(chat.requests) == 1
    assert len(chat.replies) == 1  # the second reply was never asked for


async def test_an_immediate_stop_closes_a_held_stream_without_waiting_for_it(
    llm: LlmHarness, chat: ChatServer
) -> None:
    never = asyncio.Event()
    chat.reply(Stream([role(), content("Thinking"), content("…", gate=never), finish("stop")]))
    session = await llm.llm_session()
    stream = llm.kernel.start_turn(session.id, "t1", text="think")
    await events_until(stream, "text_delta")
    await llm.kernel.stop_session(session.id, source="stop_button")
    assert not never.is_set()
    rest = [e async for e in stream]
    assert sorted(e.type for e in rest) == ["complete", "turn_state"]
    assert [e.stop_reason for e in of_type(rest, Complete)] == ["user_stop"]
    assert [e.status for e in of_type(rest, TurnState)] == ["aborted"]
    # The backend hung up on the server, which was still holding the stream.
    await asyncio.wait_for(chat.hung_up.wait(), 10)
    assert chat.hangups == 1
    [turn] = await llm.kernel.list_turns(session.id)
    assert (turn.status, turn.abort_source) == ("aborted", "stop_button")
    assert [m.text for m in of_type(await llm.log(session.id), AssistantMessage)] == ["Thinking"]


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (
            500,
            {"error": {"message": "upstream exploded", "type": "server_error"}},
            "HTTP 500 Internal Server Error: upstream exploded (server_error)",
        ),
        (
            401,
            {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}},
            "HTTP 401 Unauthorized: Incorrect API key provided (invalid_api_key)",
        ),
        (429, "slow down", "HTTP 429 Too Many Requests: slow down"),
    ],
)
async def test_an_http_error_fails_the_turn_with_the_providers_message(
    llm: LlmHarness, chat: ChatServer, status: int, body: object, expected: str
) -> None:
    chat.reply(Failure(status, body))
    session = await llm.llm_session()
    events = [e async for e in llm.kernel.start_turn(session.id, text="hi")]
    assert [e.type for e in events] == ["error", "turn_state"]
    error = only(events[0], ErrorEvent)
    assert error.code == "llm_failed"
    assert expected in error.message
    assert "'local'" in error.message
    assert only(events[1], TurnState).status == "failed"


@pytest.fixture
def refusing_port() -> Iterator[int]:
    """A bound port nobody listens on: connecting to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


async def test_a_refused_connection_is_llm_unavailable(refusing_port: int) -> None:
    h = make_llm_harness(
        MemorySessionStore(),
        {
            "local": LlmConnection(
                slug="local", base_url=f"http://127.0.0.1:{refusing_port}/v1", model=MODEL
            )
        },
    )
    try:
        session = await h.llm_session()
        events = [e async for e in h.kernel.start_turn(session.id, text="hi")]
        assert [e.type for e in events] == ["error", "turn_state"]
        error = only(events[0], ErrorEvent)
        assert error.code == "llm_unavailable"
        assert f"cannot connect to http://127.0.0.1:{refusing_port}/v1/chat/completions" in (
            error.message
        )
        assert only(events[1], TurnState).status == "failed"
    finally:
        await h.close()


async def test_a_read_timeout_is_llm_unavailable(chat: ChatServer) -> None:
    never = asyncio.Event()
    chat.reply(Stream([role(), content("slow", gate=never)]))
    h = make_llm_harness(MemorySessionStore(), {"local": connection(chat, timeout_s=0.2)})
    try:
        session = await h.llm_session()
        events = [e async for e in h.kernel.start_turn(session.id, text="hi")]
        assert [e.type for e in events] == ["error", "turn_state"]
        error = only(events[0], ErrorEvent)
        assert error.code == "llm_unavailable"
        assert "did not answer in time (ReadTimeout" in error.message
    finally:
        await h.close()


async def test_a_missing_api_key_variable_is_llm_unavailable_and_nothing_is_sent(
    chat: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    h = make_llm_harness(MemorySessionStore(), {"local": connection(chat, api_key_env=KEY_ENV)})
    try:
        session = await h.llm_session()
        events = [e async for e in h.kernel.start_turn(session.id, text="hi")]
        assert [e.type for e in events] == ["error", "turn_state"]
        error = only(events[0], ErrorEvent)
        assert error.code == "llm_unavailable"
        assert KEY_ENV in error.message and "is not set" in error.message
        assert chat.requests == []
    finally:
        await h.close()


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"llm_connection_slug": "elsewhere"}, "no LLM connection 'elsewhere' (known: local)"),
        ({"llm_connection_slug": ""}, "no model: the session sets none"),
    ],
)
async def test_a_missing_connection_or_model_is_llm_unavailable(
    chat: ChatServer, fields: dict[str, str], expected: str
) -> None:
    h = make_llm_harness(MemorySessionStore(), {"local": connection(chat, model="")})
    try:
        session = await h.llm_session(**fields)
        events = [e async for e in h.kernel.start_turn(session.id, text="hi")]
        assert [(e.type, getattr(e, "code", "")) for e in events] == [
            ("error", "llm_unavailable"),
            ("turn_state", ""),
        ]
        error = only(events[0], ErrorEvent)
        assert expected in error.message
        assert chat.requests == []
    finally:
        await h.close()


async def test_malformed_arguments_and_unknown_tools_go_back_to_the_model(
    llm: LlmHarness, chat: ChatServer
) -> None:
    chat.reply(
        tool_reply(
            ("call_bad_json", "bash", '{"command": "ls'),
            ("call_no_command", "bash", '{"cwd": "/"}'),
            ("call_bad_timeout", "bash", '{"command": "ls", "timeout_ms": -5}'),
            ("call_unknown", "web_search", '{"query": "x"}'),
            ("call_no_question", "ask_user", "[]"),
        ),
        text_reply("Sorry."),
    )
    session = await llm.llm_session(permission_mode="bypass")
    events = [e async for e in llm.kernel.start_turn(session.id, text="go")]
    assert last(events, TurnState).status == "completed"
    results = of_type(events, ToolResult)
    assert all(r.is_error for r in results)
    outputs = {r.tool_call_id: r.output for r in results}
    assert outputs["call_bad_json"].startswith("invalid arguments for bash: the arguments are not")
    assert (
        outputs["call_no_command"]
        == 'invalid arguments for bash: "command" must be a non-empty string'
    )
    assert '"timeout_ms" must be a whole number' in outputs["call_bad_timeout"]
    assert outputs["call_unknown"] == (
        "unknown tool 'web_search': the tools are bash, ask_user, request_sandbox_boundary"
    )
    assert (
        outputs["call_no_question"]
        == "invalid arguments for ask_user: the arguments must be a JSON object"
    )
    assert next((e.name, e.input) for e in of_type(events, ToolCall)) == (
        "bash",
        '{"command": "ls',
    )
    tool_messages = chat.requests[1].messages[-5:]
    assert [(m["role"], m["tool_call_id"], m["content"]) for m in tool_messages] == [
        ("tool", call_id, outputs[call_id])
        for call_id in (
            "call_bad_json",
            "call_no_command",
            "call_bad_timeout",
            "call_unknown",
            "call_no_question",
        )
    ]


async def test_the_step_limit_fails_the_turn(llm: LlmHarness, chat: ChatServer) -> None:
    chat.reply(
        tool_reply(("call_1", "nothing", "{}")),
        tool_reply(("call_2", "nothing", "{}")),
        tool_reply(("call_3", "nothing", "{}")),
    )
    session = await llm.llm_session(backend_options={"max_steps": "2"})
    events = [e async for e in llm.kernel.start_turn(session.id, text="loop")]
    assert [e.type for e in events][-2:] == ["error", "turn_state"]
    error = only(events[-2], ErrorEvent)
    assert error.code == "llm_step_limit"
    assert "more than 2 steps" in error.message
    assert last(events, TurnState).status == "failed"
    assert len(chat.requests) == 2
    assert len(of_type(events, ToolResult)) == 2


async def test_finish_reason_length_ends_the_turn_with_max_tokens(
    llm: LlmHarness, chat: ChatServer
) -> None:
    chat.reply(text_reply("cut", reason="length"))
    session = await llm.llm_session()
    events = [e async for e in llm.kernel.start_turn(session.id, text="long")]
    assert [e.stop_reason for e in of_type(events, Complete)] == ["max_tokens"]
    assert last(events, TurnState).status == "completed"


@pytest.mark.parametrize(
    ("stream", "expected"),
    [
        (
            Stream([role(), Chunk(json.dumps({"error": {"message": "model overloaded"}}))]),
            "sent an error in the stream: model overloaded",
        ),
        (
            Stream([role(), content("half")], done=False),
            "ended before the response finished (no finish_reason and no [DONE])",
        ),
        (Stream([role(), content("half")], done=False, complete=False), "broke off"),
        (Stream([role(), Chunk("{not json")]), "a stream chunk that is not JSON"),
    ],
    ids=["error-chunk", "no-finish", "dropped-connection", "not-json"],
)
async def test_a_broken_stream_is_llm_failed(
    llm: LlmHarness, chat: ChatServer, stream: Stream, expected: str
) -> None:
    chat.reply(stream)
    session = await llm.llm_session()
    events = [e async for e in llm.kernel.start_turn(session.id, text="hi")]
    [error] = of_type(events, ErrorEvent)
    assert error.code == "llm_failed"
    assert expected in error.message
    assert last(events, TurnState).status == "failed"


async def test_request_sandbox_boundary_never_asks_for_what_can_never_be_granted(
    chat: ChatServer, tmp_path: Path
) -> None:
    """``/``, a system directory and the kernel's data directory are tool errors, unasked."""
    data = tmp_path / "data"
    data.mkdir()
    calls = [
        (
            f"call_{i}",
            "request_sandbox_boundary",
            json.dumps({"paths": [{"path": path}], "justification": "x"}),
        )
        for i, path in enumerate(("/", "/etc/cron.d", f"{data}/kernel"))
    ]
    chat.reply(tool_reply(*calls), text_reply("Understood."))
    h = make_llm_harness(MemorySessionStore(), {"local": connection(chat)}, protected=(str(data),))
    try:
        session = await h.llm_session()
        events = [e async for e in h.kernel.start_turn(session.id, "t1", text="widen")]
        assert last(events, TurnState).status == "completed"
        assert of_type(events, SandboxBoundaryRequest) == []
        root, etc, own = of_type(events, ToolResult)
        assert all(result.is_error for result in (root, etc, own))
        assert "writing / can never be granted" in root.output
        assert "writing /etc/cron.d can never be granted" in etc.output
        assert "kernel's data directory" in own.output
    finally:
        await h.close()

"""The scripted backend on its own: syntax, events, stops, interactions, inbox, failures."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest

from maka_runtime.kernel.backends.scripted import (
    ScriptedBackend,
    ScriptError,
    ScriptFailure,
    parse_script,
    script_for,
)
from maka_runtime.kernel.core import (
    BackendSendInput,
    QueuedMessage,
    SandboxBoundaryResponse,
    UserQuestionResponse,
)
from maka_runtime.kernel.core.log.events import BackendEvent, UserQuestionRequest
from tests.support.typed import only

from .fakes import spec_header


def backend(**header: Any) -> ScriptedBackend:
    import dataclasses

    header.setdefault("permission_mode", "ask")
    return ScriptedBackend(dataclasses.replace(spec_header(backend="scripted"), **header))


def send(b: ScriptedBackend, text: str, inbox: Any = None) -> AsyncIterator[BackendEvent]:
    return b.send(
        BackendSendInput(session_id="s", turn_id="t", text=text, header=b.header, inbox=inbox)
    )


def describe(events: Sequence[BackendEvent]) -> list[str]:
    out = []
    for e in events:
        detail = getattr(e, "text", None) or getattr(e, "name", None) or ""
        if e.type == "complete":
            detail = e.stop_reason
        out.append(f"{e.type}:{detail}" if detail else e.type)
    return out


async def run(b: ScriptedBackend, text: str, inbox: Any = None) -> list[str]:
    return describe([e async for e in send(b, text, inbox)])


def test_scripts_parse_into_steps_and_errors_name_the_step() -> None:
    steps = parse_script("say a\\; b; words 2 w\n# comment\n\nrepeat 3 tool t x; ask q | y | n")
    assert [(s.verb, s.argument, s.count) for s in steps] == [
        ("say", "a; b", 1),
        ("words", "w", 2),
        ("repeat", "", 3),
        ("ask", "q | y | n", 1),
    ]
    assert steps[2].inner is not None and steps[2].inner.verb == "tool"
    for bad, message in [
        ("dance", "unknown step 'dance'"),
        ("words many", "words needs a count"),
        ("repeat 2", "repeat needs a step"),
        ("tool", "tool needs an argument"),
        ("sleep -1", "sleep needs a count"),
    ]:
        with pytest.raises(ScriptError, match=message):
            parse_script(bad)


def test_the_script_comes_from_the_text_the_session_or_an_echo() -> None:
    plain = spec_header(backend="scripted")
    assert script_for("/script say x", plain) == " say x"
    assert script_for("hello", plain) == "say hello"
    import dataclasses

    configured = dataclasses.replace(plain, backend_options={"script": "say [{text}]; say end"})
    assert script_for("hi", configured) == "say [hi]; say end"


async def test_each_step_emits_its_events() -> None:
    events = await run(
        backend(),
        "/script say hi; words 2 w; tool bash ls -l; fail_tool rm nope; error bad; sleep 0",
    )
    assert events == [
        "text_delta:hi",
        "text_delta:w1 ",
        "text_delta:w2 ",
        "tool_call:bash",
        "tool_output:ls -l",
        "tool_result",
        "tool_call:rm",
        "tool_result",
        "error",
        "complete:end_turn",
    ]


async def test_message_ids_change_around_tools_and_tool_ids_are_unique() -> None:
    events = [e async for e in send(backend(), "/script say a; tool x; tool y; say b")]
    deltas = [e for e in events if e.type == "text_delta"]
    assert deltas[0].message_id != deltas[1].message_id
    calls = [e.tool_call_id for e in events if e.type == "tool_call"]
    assert len(set(calls)) == 2


async def test_fail_raises_and_a_disposed_backend_refuses_to_send() -> None:
    b = backend()
    with pytest.raises(ScriptFailure, match="boom"):
        await run(b, "/script say a; fail boom")
    await b.dispose()
    with pytest.raises(RuntimeError, match="disposed"):
        await run(b, "hello")


async def test_immediate_stop_interrupts_a_hang_and_after_step_waits_for_the_step() -> None:
    b = backend()
    stream = aiter(send(b, "/script say a; hang; say never"))
    assert describe([await anext(stream)]) == ["text_delta:a"]
    rest = asyncio.ensure_future(_collect(stream))
    await asyncio.sleep(0)
    await b.stop("user_stop", "immediate")
    assert describe(await rest) == ["complete:user_stop"]

    stream = aiter(send(b, "/script say a; say b; say c"))
    assert describe([await anext(stream)]) == ["text_delta:a"]
    await b.stop("redirect", "after_step")
    assert describe(await _collect(stream)) == ["complete:redirect"]


async def _collect(stream: AsyncIterator[BackendEvent]) -> list[BackendEvent]:
    return [e async for e in stream]


async def test_approvals_wait_for_a_decision_unless_bypassed() -> None:
    b = backend()
    stream = aiter(send(b, "/script approve deploy; say done"))
    request = await anext(stream)
    assert request.type == "sandbox_boundary_request" and request.command == "deploy"
    await b.respond_to_sandbox_boundary(
        SandboxBoundaryResponse(request_id=request.request_id, decision="allow_once")
    )
    assert describe(await _collect(stream)) == [
        "text_delta:approved: deploy",
        "text_delta:done",
        "complete:end_turn",
    ]
    assert await run(backend(permission_mode="bypass"), "/script approve x") == [
        "text_delta:approved: x",
        "complete:end_turn",
    ]


async def test_questions_take_answers_or_report_cancellation() -> None:
    b = backend()
    stream = aiter(send(b, "/script ask colour? | red | blue"))
    question = only(await anext(stream), UserQuestionRequest)
    assert (question.question, question.options) == ("colour?", ("red", "blue"))
    await b.respond_to_user_question(
        UserQuestionResponse(request_id=question.request_id, answers=("red",))
    )
    assert describe(await _collect(stream)) == ["text_delta:answer: red", "complete:end_turn"]
    stream = aiter(send(b, "/script ask anything?"))
    question = only(await anext(stream), UserQuestionRequest)
    await b.respond_to_user_question(
        UserQuestionResponse(request_id=question.request_id, cancelled=True, reason="timed_out")
    )
    assert describe(await _collect(stream)) == [
        "text_delta:question cancelled: timed_out",
        "complete:end_turn",
    ]


class ListInbox:
    def __init__(self, texts: list[str]) -> None:
        self.queued = [
            QueuedMessage(message_id=f"m{i}", session_id="s", turn_id="t", text=t, queued_at=0)
            for i, t in enumerate(texts)
        ]
        self.acked: list[str] = []

    async def pull(self) -> list[QueuedMessage]:
        pulled, self.queued = self.queued, []
        return pulled

    async def ack(self, message_ids: Sequence[str]) -> None:
        self.acked += message_ids

    async def nack(self, message_ids: Sequence[str], reason: str) -> None:
        raise AssertionError("the scripted backend acks what it pulls")


async def test_queued_messages_are_pulled_and_acked_at_step_boundaries() -> None:
    inbox = ListInbox(["hello", "again"])
    assert await run(backend(), "/script say a", inbox) == [
        "text_delta:received: hello",
        "text_delta:received: again",
        "text_delta:a",
        "complete:end_turn",
    ]
    assert inbox.acked == ["m0", "m1"]

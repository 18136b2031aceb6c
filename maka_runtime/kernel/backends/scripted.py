"""A deterministic scripted backend for tests, demos and load tests.

Which script runs:

1. a turn text that starts with ``/script`` — the rest of the text is the script;
2. otherwise the session's ``backend_options["script"]``, where ``{text}`` is replaced by the
   turn text;
3. otherwise ``say {text}`` (an echo).

A script is a list of *steps*, one per line or separated by ``;`` (write ``\\;`` for a literal
semicolon). Blank steps and steps starting with ``#`` are ignored. Steps::

    say TEXT                   one text_delta
    words N [WORD]             N text_deltas "WORD1 ", "WORD2 ", … (default WORD: "word")
    tool NAME [INPUT]          tool_call, tool_output (echoes INPUT), tool_result
    fail_tool NAME [MESSAGE]   tool_call, then a tool_result with is_error
    approve COMMAND            sandbox_boundary_request, then wait for the decision:
                               allow → "approved: COMMAND"; deny → "denied: COMMAND" and the
                               turn ends (stop reason "denied"). Permission mode ``bypass``
                               and an earlier ``allow_session`` for COMMAND approve at once.
    ask QUESTION [| OPT | OPT] user_question_request, then wait: "answer: A, B" (or
                               "question cancelled: REASON" when it was closed / timed out)
    sleep MS                   wait MS milliseconds
    hang                       wait until stopped
    error MESSAGE              an error event; the turn goes on
    fail MESSAGE               the backend fails (the turn ends ``failed``)
    repeat N STEP              STEP, N times

Every step is a *step boundary*: before it, an ``after_step`` stop ends the turn and messages
sent into the turn are pulled, announced as "received: TEXT" and acked. An ``immediate`` stop
(or dispose) interrupts any wait at once. The turn ends with ``complete`` (stop reason
``end_turn``, ``user_stop``/``redirect`` when stopped, or ``denied``).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

from maka_runtime.kernel.backends.agent import ControlledBackend, Denied, Stopped, TurnControl
from maka_runtime.kernel.backends.factories import SCRIPTED
from maka_runtime.kernel.core.backend import (
    BackendSendInput,
    SandboxBoundaryResponse,
    UserQuestionResponse,
)
from maka_runtime.kernel.core.log.events import (
    BackendEvent,
    Complete,
    ErrorEvent,
    SandboxBoundaryRequest,
    TextDelta,
    ToolCall,
    ToolOutput,
    ToolResult,
    UserQuestionRequest,
)
from maka_runtime.kernel.core.session import SessionHeader

KIND = SCRIPTED
SCRIPT_PREFIX = "/script"
MAX_REPEAT = 1_000_000
_SPLIT = re.compile(r"(?<!\\);|\n")
VERBS = (
    "say",
    "words",
    "tool",
    "fail_tool",
    "approve",
    "ask",
    "sleep",
    "hang",
    "error",
    "fail",
    "repeat",
)


class ScriptError(ValueError):
    """The script is malformed (the turn text or session settings are wrong)."""


class ScriptFailure(RuntimeError):
    """A ``fail`` step: the backend failed on purpose."""


@dataclass(frozen=True, slots=True)
class Step:
    verb: str
    argument: str = ""
    count: int = 1
    inner: Step | None = None


def parse_script(source: str) -> list[Step]:
    """Parse *source* into steps; raise :class:`ScriptError` naming the bad step."""
    steps = []
    for raw in _SPLIT.split(source):
        text = raw.replace("\\;", ";").strip()
        if text and not text.startswith("#"):
            steps.append(_parse_step(text))
    return steps


def _parse_step(text: str) -> Step:
    verb, _, argument = text.partition(" ")
    argument = argument.strip()
    if verb not in VERBS:
        raise ScriptError(f"unknown step {verb!r} (known: {', '.join(VERBS)})")
    if verb in ("words", "sleep"):
        number, _, rest = argument.partition(" ")
        return Step(verb, rest.strip(), count=_number(verb, number))
    if verb == "repeat":
        number, _, rest = argument.partition(" ")
        if not rest.strip():
            raise ScriptError("repeat needs a step: repeat N STEP")
        return Step(verb, count=_number(verb, number), inner=_parse_step(rest.strip()))
    if verb in ("tool", "fail_tool", "approve", "ask") and not argument:
        raise ScriptError(f"{verb} needs an argument")
    return Step(verb, argument)


def _number(verb: str, text: str) -> int:
    if not text.isdigit() or int(text) > MAX_REPEAT:
        raise ScriptError(f"{verb} needs a count between 0 and {MAX_REPEAT}, not {text!r}")
    return int(text)


def script_for(text: str, header: SessionHeader) -> str:
    if text.startswith(SCRIPT_PREFIX):
        return text[len(SCRIPT_PREFIX) :]
    template = header.backend_options.get("script")
    if template:
        return template.replace("{text}", text)
    return f"say {text}"


class ScriptedBackend(ControlledBackend):
    """One session's scripted agent. See the module docstring for the script syntax.

    Stops, answers and disposal are :class:`~maka_runtime.kernel.backends.agent.TurnControl`'s,
    as for the shell and LLM backends (it has no tool host: its tools are pretend).
    """

    def __init__(self, header: SessionHeader) -> None:
        self.header = header
        self.kind = KIND
        self.control = TurnControl(None)
        self.session_allowed: set[str] = set()
        self.sends = 0

    async def send(self, input: BackendSendInput) -> AsyncIterator[BackendEvent]:
        self.control.begin(input.session_id)
        self.sends += 1
        steps = parse_script(script_for(input.text, input.header))
        turn = _Turn(self, input)
        stop_reason = "end_turn"
        try:
            for step in steps:
                async for event in turn.run(step):
                    yield event
            async for event in turn.boundary():
                yield event
        except Stopped:
            stop_reason = self.control.stop_reason or "user_stop"
        except Denied:
            stop_reason = "denied"
        yield Complete(turn_id=input.turn_id, stop_reason=stop_reason)


class _Turn:
    def __init__(self, backend: ScriptedBackend, input: BackendSendInput) -> None:
        self.backend = backend
        self.control = backend.control
        self.input = input
        self.turn_id = input.turn_id
        self.counter = 0
        self.message_index = 1

    def _next(self, kind: str) -> str:
        self.counter += 1
        return f"{self.turn_id}-{kind}-{self.counter}"

    def say(self, text: str) -> TextDelta:
        return TextDelta(
            turn_id=self.turn_id, message_id=f"{self.turn_id}-msg-{self.message_index}", text=text
        )

    def _end_message(self) -> None:
        self.message_index += 1

    async def boundary(self) -> AsyncIterator[BackendEvent]:
        self.control.boundary()
        inbox = self.input.inbox
        if inbox is None:
            return
        messages = await inbox.pull()
        if messages:
            for message in messages:
                yield self.say(f"received: {message.text}")
            await inbox.ack([message.message_id for message in messages])

    async def run(self, step: Step) -> AsyncIterator[BackendEvent]:
        if step.verb == "repeat":
            assert step.inner is not None
            for _ in range(step.count):
                async for event in self.run(step.inner):
                    yield event
            return
        async for event in self.boundary():
            yield event
        verb, argument = step.verb, step.argument
        if verb == "say":
            yield self.say(argument)
        elif verb == "words":
            word = argument or "word"
            for index in range(1, step.count + 1):
                yield self.say(f"{word}{index} ")
        elif verb in ("tool", "fail_tool"):
            async for event in self._tool(verb, argument):
                yield event
        elif verb == "approve":
            async for event in self._approve(argument):
                yield event
        elif verb == "ask":
            async for event in self._ask(argument):
                yield event
        elif verb == "sleep":
            await self.control.interruptible(asyncio.sleep(step.count / 1000))
        elif verb == "hang":
            await self.control.interruptible(asyncio.get_running_loop().create_future())
        elif verb == "error":
            yield ErrorEvent(turn_id=self.turn_id, message=argument, code="script_error")
        elif verb == "fail":
            raise ScriptFailure(argument or "scripted failure")

    async def _tool(self, verb: str, argument: str) -> AsyncIterator[BackendEvent]:
        self._end_message()
        name, _, tool_input = argument.partition(" ")
        call_id = self._next("tool")
        yield ToolCall(turn_id=self.turn_id, tool_call_id=call_id, name=name, input=tool_input)
        if verb == "tool":
            if tool_input:
                yield ToolOutput(turn_id=self.turn_id, tool_call_id=call_id, text=tool_input)
            yield ToolResult(turn_id=self.turn_id, tool_call_id=call_id, output=tool_input)
        else:
            message = tool_input or f"{name} failed"
            yield ToolResult(
                turn_id=self.turn_id, tool_call_id=call_id, output=message, is_error=True
            )

    async def _approve(self, command: str) -> AsyncIterator[BackendEvent]:
        allowed = self.backend.session_allowed
        if self.input.header.permission_mode == "bypass" or command in allowed:
            yield self.say(f"approved: {command}")
            return
        self._end_message()
        request_id = self._next("approval")
        request = SandboxBoundaryRequest(
            turn_id=self.turn_id,
            request_id=request_id,
            command=command,
            cwd=self.input.header.cwd,
            reason="scripted approval step",
        )
        # Registered before the request is yielded: an answer may arrive while the kernel is
        # still recording the request.
        waiter = self.control.expect_answer(request_id)
        yield request
        response = await self.control.answer(request_id, waiter)
        assert isinstance(response, SandboxBoundaryResponse)
        self._end_message()
        if response.decision == "deny":
            yield self.say(f"denied: {command}")
            raise Denied(command)
        if response.decision == "allow_session":
            allowed.add(command)
        yield self.say(f"approved: {command}")

    async def _ask(self, argument: str) -> AsyncIterator[BackendEvent]:
        question, *options = [part.strip() for part in argument.split("|")]
        self._end_message()
        request_id = self._next("question")
        request = UserQuestionRequest(
            turn_id=self.turn_id,
            request_id=request_id,
            question=question,
            options=tuple(option for option in options if option),
        )
        waiter = self.control.expect_answer(request_id)
        yield request
        response = await self.control.answer(request_id, waiter)
        assert isinstance(response, UserQuestionResponse)
        self._end_message()
        if response.cancelled:
            yield self.say(f"question cancelled: {response.reason}")
        else:
            yield self.say(f"answer: {', '.join(response.answers)}")


def scripted_factory(header: SessionHeader) -> ScriptedBackend:
    return ScriptedBackend(header)

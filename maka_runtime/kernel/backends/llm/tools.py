"""The model's tool calls: ids, argument checks, and running them under the turn's control.

``bash`` runs through the shared :class:`~maka_runtime.kernel.backends.agent.BashTool` (approvals,
foreground output, background PTY runs) and ``ask_user`` raises a user question. Malformed
arguments and unknown tools become an error ``tool_result`` whose text goes back to the model.
Every tool call of a reply gets its ``role: tool`` message, run or not.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, cast

from maka_runtime.kernel.backends.agent import BashCall, BashTool, Stopped, TurnControl
from maka_runtime.kernel.backends.llm.boundary_tool import NAME as BOUNDARY_TOOL
from maka_runtime.kernel.backends.llm.boundary_tool import BoundaryTool
from maka_runtime.kernel.backends.llm.boundary_tool import parse as parse_boundary
from maka_runtime.kernel.backends.llm.chat import ToolCallDraft
from maka_runtime.kernel.backends.llm.prompt import TOOL_NAMES
from maka_runtime.kernel.core.backend import BackendSendInput, UserQuestionResponse
from maka_runtime.kernel.core.boundary import BoundaryError, describe
from maka_runtime.kernel.core.log.events import (
    BackendEvent,
    ToolCall,
    ToolResult,
    UserQuestionRequest,
)
from maka_runtime.kernel.core.tools import ToolHostError, ToolHostUnavailableError

log = logging.getLogger("maka_runtime.kernel.backends")

#: ``timeout_ms`` bounds of a ``bash`` call: foreground runs (the resource service's maximum)
#: and background runs.
FOREGROUND_TIMEOUT_MAX_MS = 600_000
BACKGROUND_TIMEOUT_MAX_MS = 86_400_000
#: Tool call ids the kernel can use as they are (they also name interaction requests).
_SAFE_ID = re.compile(r"[A-Za-z0-9._:-]{1,100}")


class ArgumentError(ValueError):
    """A tool call's arguments are malformed (the message goes back to the model)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelToolCall:
    """One tool call of a response: the model's id (``wire_id``) and the kernel's (``event_id``)."""

    wire_id: str
    event_id: str
    name: str
    arguments: str


def _arguments(raw: str) -> dict[str, Any]:
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError as error:
        raise ArgumentError(f"the arguments are not valid JSON ({error})") from error
    if not isinstance(value, dict):
        raise ArgumentError("the arguments must be a JSON object")
    return value


def parse_bash_call(call: ModelToolCall) -> BashCall:
    args = _arguments(call.arguments)
    command = args.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ArgumentError('"command" must be a non-empty string')
    background = args.get("background")
    if background is None:
        background = False
    if not isinstance(background, bool):
        raise ArgumentError('"background" must be true or false')
    timeout_ms = _timeout(args.get("timeout_ms"), background)
    return BashCall(
        call_id=call.event_id,
        command=command,
        background=background,
        pty=True,
        timeout_ms=timeout_ms,
        reason="the model runs a shell command",
    )


def _timeout(value: Any, background: bool) -> int | None:
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    limit = BACKGROUND_TIMEOUT_MAX_MS if background else FOREGROUND_TIMEOUT_MAX_MS
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= limit:
        raise ArgumentError(f'"timeout_ms" must be a whole number of milliseconds, 1..{limit}')
    return value


def parse_question(call: ModelToolCall) -> tuple[str, tuple[str, ...]]:
    args = _arguments(call.arguments)
    question = args.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ArgumentError('"question" must be a non-empty string')
    options = args.get("options")
    if options is None:
        options = []
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise ArgumentError('"options" must be a list of strings')
    return question, tuple(o for o in options if o.strip())


NOT_RUN = "not run: the turn ended before this tool call ran"


def assign_ids(
    turn_id: str, step: int, drafts: Sequence[ToolCallDraft], seen: set[str]
) -> list[ModelToolCall]:
    """The calls of one reply, each with an event id that is safe and unique in *seen*."""
    calls = []
    for draft in drafts:
        fallback = f"{turn_id[:64]}-call-{step}-{draft.index}"
        wire_id = draft.id or fallback
        event_id = wire_id
        if not _SAFE_ID.fullmatch(event_id) or event_id in seen:
            event_id = fallback
        seen.add(event_id)
        calls.append(
            ModelToolCall(
                wire_id=wire_id, event_id=event_id, name=draft.name, arguments=draft.arguments
            )
        )
    return calls


class ToolRunner:
    """Runs the tool calls of one reply in order, honouring step boundaries between them."""

    def __init__(self, control: TurnControl, bash: BashTool) -> None:
        self.control = control
        self.bash = bash
        self.widen = BoundaryTool(control, bash)

    async def run_all(
        self,
        input: BackendSendInput,
        calls: Sequence[ModelToolCall],
        conversation: list[dict[str, Any]],
    ) -> AsyncGenerator[BackendEvent, None]:
        """The calls' events; every call's ``role: tool`` message is added to *conversation*."""
        results: dict[str, str] = {}
        try:
            for call in calls:
                self.control.boundary()
                async with aclosing(self._run(input, call, results)) as events:
                    async for event in events:
                        yield event
        finally:
            conversation.extend(
                {
                    "role": "tool",
                    "tool_call_id": call.wire_id,
                    "content": results.get(call.wire_id, NOT_RUN),
                }
                for call in calls
            )

    async def _run(
        self, input: BackendSendInput, call: ModelToolCall, results: dict[str, str]
    ) -> AsyncGenerator[BackendEvent, None]:
        turn_id = input.turn_id

        def refuse(text: str) -> list[BackendEvent]:
            results[call.wire_id] = text
            return [
                ToolCall(
                    turn_id=turn_id,
                    tool_call_id=call.event_id,
                    name=call.name,
                    input=call.arguments,
                ),
                ToolResult(turn_id=turn_id, tool_call_id=call.event_id, output=text, is_error=True),
            ]

        if call.name not in TOOL_NAMES:
            known = ", ".join(TOOL_NAMES)
            for event in refuse(f"unknown tool {call.name!r}: the tools are {known}"):
                yield event
            return
        if call.name == BOUNDARY_TOOL:
            async with aclosing(self._widen(input, call, results, refuse)) as widening:
                async for event in widening:
                    yield event
            return
        try:
            bash = parse_bash_call(call) if call.name == "bash" else None
            question = parse_question(call) if bash is None else None
        except ArgumentError as error:
            for event in refuse(f"invalid arguments for {call.name}: {error}"):
                yield event
            return
        events = (
            self._bash(input, call, bash, results)
            if bash is not None
            else self._ask(input, call, question or ("", ()), results)
        )
        async with aclosing(events) as running:
            async for event in running:
                yield event

    async def _widen(
        self,
        input: BackendSendInput,
        call: ModelToolCall,
        results: dict[str, str],
        refuse: Callable[[str], list[BackendEvent]],
    ) -> AsyncGenerator[BackendEvent, None]:
        try:
            need, justification = parse_boundary(_arguments(call.arguments))
        except (ArgumentError, BoundaryError) as error:
            for event in refuse(f"invalid arguments for {call.name}: {error}"):
                yield event
            return
        yield ToolCall(
            turn_id=input.turn_id, tool_call_id=call.event_id, name=call.name, input=call.arguments
        )
        async for event in self.widen.run(input, call.event_id, need, justification):
            if isinstance(event, ToolResult):
                results[call.wire_id] = event.output
            yield event

    async def _ask(
        self,
        input: BackendSendInput,
        call: ModelToolCall,
        question: tuple[str, tuple[str, ...]],
        results: dict[str, str],
    ) -> AsyncGenerator[BackendEvent, None]:
        turn_id = input.turn_id

        def result(text: str, *, error: bool = False) -> ToolResult:
            results[call.wire_id] = text
            return ToolResult(
                turn_id=turn_id, tool_call_id=call.event_id, output=text, is_error=error
            )

        text, options = question
        yield ToolCall(turn_id=turn_id, tool_call_id=call.event_id, name=call.name, input=text)
        request_id = f"{call.event_id}-question"
        waiter = self.control.expect_answer(request_id)
        yield UserQuestionRequest(
            turn_id=turn_id, request_id=request_id, question=text, options=options
        )
        try:
            response = await self.control.answer(request_id, waiter)
        except Stopped:
            yield result("not answered: the turn was stopped", error=True)
            raise
        assert isinstance(response, UserQuestionResponse)
        if response.cancelled:
            yield result(f"the user did not answer: {response.reason or 'cancelled'}", error=True)
        else:
            yield result(", ".join(response.answers) or "(an empty answer)")

    async def _bash(
        self,
        input: BackendSendInput,
        call: ModelToolCall,
        bash: BashCall,
        results: dict[str, str],
    ) -> AsyncGenerator[BackendEvent, None]:
        try:
            # BashTool.run is an async generator (its annotation says AsyncIterator).
            run = cast(AsyncGenerator[BackendEvent, None], self.bash.run(input, bash))
            async with aclosing(run) as events:
                async for event in events:
                    yield event
        except ToolHostError as error:
            if isinstance(error, ToolHostUnavailableError):
                raise
            log.info("bash tool call %s refused by the tool host: %s", call.event_id, error)
        finally:
            outcome = self.bash.last
            if outcome is not None and outcome.result.tool_call_id == call.event_id:
                results[call.wire_id] = outcome.result.output + _failure_hint(outcome.result)


def _failure_hint(result: ToolResult) -> str:
    """What the model is told of a run that needed more than its boundary."""
    if not result.sandbox_failure:
        return ""
    return (
        f"\n[{result.sandbox_failure}: it needs {describe(result.required_expansion)}; "
        f"call {BOUNDARY_TOOL} with that expansion and a justification, then retry]"
    )

"""The LLM backend's agent loop: steps of model requests and tool calls within one turn.

Each step POSTs the conversation (see :mod:`.chat`), streams ``delta.content`` as
``text_delta`` events (one ``message_id`` per step) and then runs the reply's tool calls
(:mod:`.tools`). Step boundaries are before each model request and before each tool call;
messages sent into the running turn are pulled before a request and when the model ends its
turn (then they start another step).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Final

from maka_runtime.kernel.backends.agent import (
    BashTool,
    ControlledBackend,
    Denied,
    SessionApprovals,
    Stopped,
    TurnControl,
)
from maka_runtime.kernel.backends.factories import STOP_CONFIRM_TIMEOUT
from maka_runtime.kernel.backends.llm import KIND
from maka_runtime.kernel.backends.llm.chat import LlmError, StepAccumulator, stream_chat
from maka_runtime.kernel.backends.llm.connections import (
    LlmConnection,
    TurnSettings,
    resolve_settings,
)
from maka_runtime.kernel.backends.llm.prompt import TOOLS, system_prompt
from maka_runtime.kernel.backends.llm.tools import ModelToolCall, ToolRunner, assign_ids
from maka_runtime.kernel.core.backend import BackendSendInput
from maka_runtime.kernel.core.log.events import BackendEvent, Complete, TextDelta
from maka_runtime.kernel.core.session import SessionHeader
from maka_runtime.kernel.core.tool_output import DEFAULT_BUDGET_BYTES
from maka_runtime.kernel.core.tools import ToolHost

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("maka_runtime.kernel.backends")

#: Connecting gets at most this long (or the connection's ``timeout_s`` when shorter).
CONNECT_TIMEOUT_S = 10.0
#: ``finish_reason`` values that end the turn whatever else the reply holds, and the stop
#: reason of the turn's ``complete``.
FINISH_STOP_REASONS: Final = {"length": "max_tokens", "content_filter": "content_filter"}


class LlmStepLimitError(LlmError):
    """The model kept asking for tools beyond the turn's step limit."""

    error_code = "llm_step_limit"


class LlmBackend(ControlledBackend):
    """One session's LLM agent (see :mod:`maka_runtime.kernel.backends.llm`)."""

    kind = KIND

    def __init__(
        self,
        header: SessionHeader,
        connections: Mapping[str, LlmConnection],
        host: ToolHost | None,
        approvals: SessionApprovals,
        *,
        confirm_timeout: float = STOP_CONFIRM_TIMEOUT,
        budget_bytes: int = DEFAULT_BUDGET_BYTES,
    ) -> None:
        self.header = header
        self.connections = connections
        self.control = TurnControl(host, confirm_timeout)
        self.bash = BashTool(host, self.control, approvals, budget_bytes)
        self.tools = ToolRunner(self.control, self.bash)
        #: The conversation sent to the model (system prompt first).
        self.messages: list[dict[str, Any]] = []
        self._call_ids: set[str] = set()

    async def send(self, input: BackendSendInput) -> AsyncIterator[BackendEvent]:
        self.control.begin(input.session_id)
        outcome = ["end_turn"]
        try:
            async for event in self._turn(input, outcome):
                yield event
            stop_reason = outcome[0]
        except Stopped:
            stop_reason = self.control.stop_reason or "user_stop"
        except Denied:
            stop_reason = "denied"
        yield Complete(turn_id=input.turn_id, stop_reason=stop_reason)

    def _open_turn(self, input: BackendSendInput) -> TurnSettings:
        prompt = {"role": "system", "content": system_prompt(input.header)}
        if self.messages:
            self.messages[0] = prompt
        else:
            self.messages.append(prompt)
        self.messages.append({"role": "user", "content": input.text})
        return resolve_settings(self.connections, input.header)

    async def _turn(
        self, input: BackendSendInput, outcome: list[str]
    ) -> AsyncGenerator[BackendEvent, None]:
        import httpx  # on first use: a kernel without LLM turns never loads the HTTP client

        settings = self._open_turn(input)
        read = settings.connection.timeout_s
        timeout = httpx.Timeout(read, connect=min(CONNECT_TIMEOUT_S, read))
        async with httpx.AsyncClient(timeout=timeout) as client:
            step = 0
            while True:
                self.control.boundary()
                if step:
                    await self._deliver_queued(input)
                if step >= settings.max_steps:
                    raise LlmStepLimitError(
                        f"the model asked for more than {settings.max_steps} steps in one turn "
                        "(backend option max_steps)"
                    )
                step += 1
                reply = StepAccumulator()
                async with aclosing(self._step(client, settings, input, step, reply)) as events:
                    async for event in events:
                        yield event
                ending = FINISH_STOP_REASONS.get(reply.finish_reason or "")
                if ending:
                    outcome[0] = ending
                    return
                if reply.tool_calls():
                    continue  # the step ran them: the model gets their results next
                # The model ended its turn; messages that came in meanwhile start another step.
                self.control.boundary()
                if step < settings.max_steps and await self._deliver_queued(input):
                    continue
                return

    async def _step(
        self,
        client: httpx.AsyncClient,
        settings: TurnSettings,
        input: BackendSendInput,
        step: int,
        reply: StepAccumulator,
    ) -> AsyncGenerator[BackendEvent, None]:
        """One model request and the tool calls of its reply."""
        try:
            async with aclosing(self._request(client, settings, input, step, reply)) as events:
                async for event in events:
                    yield event
        except Stopped:
            if reply.content:
                self.messages.append({"role": "assistant", "content": reply.content})
            raise
        ending = FINISH_STOP_REASONS.get(reply.finish_reason or "")
        # A cut-off reply's tool calls are likely incomplete: they are not run.
        calls = (
            [] if ending else assign_ids(input.turn_id, step, reply.tool_calls(), self._call_ids)
        )
        self._remember_reply(reply.content, calls)
        if calls:
            async with aclosing(self.tools.run_all(input, calls, self.messages)) as events:
                async for event in events:
                    yield event

    async def _request(
        self,
        client: httpx.AsyncClient,
        settings: TurnSettings,
        input: BackendSendInput,
        step: int,
        reply: StepAccumulator,
    ) -> AsyncGenerator[BackendEvent, None]:
        body = {
            "model": settings.model,
            "messages": list(self.messages),
            "tools": TOOLS,
            "stream": True,
        }
        headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
        log.debug("turn %s step %d: POST %s", input.turn_id, step, settings.connection.url)
        pieces = stream_chat(
            client, settings.connection.url, body, headers=headers, who=settings.who, into=reply
        )
        message_id = f"{input.turn_id}-msg-{step}"
        try:
            while True:
                # Raced with an immediate stop: the stream is closed without waiting for a chunk.
                text = await self.control.interruptible(_next_piece(pieces))
                if text is None:
                    break
                yield TextDelta(turn_id=input.turn_id, message_id=message_id, text=text)
        finally:
            await pieces.aclose()
        if not reply.finished:
            raise LlmError(
                f"the stream from {settings.who} ended before the response finished "
                "(no finish_reason and no [DONE])"
            )

    def _remember_reply(self, content: str, calls: list[ModelToolCall]) -> None:
        message: dict[str, Any] = {"role": "assistant", "content": content or None}
        if calls:
            message["tool_calls"] = [
                {
                    "id": call.wire_id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in calls
            ]
        elif not content:
            message["content"] = ""
        self.messages.append(message)

    async def _deliver_queued(self, input: BackendSendInput) -> bool:
        """Pull messages sent into the turn, ack them, add them to the conversation."""
        if input.inbox is None:
            return False
        queued = await input.inbox.pull()
        if not queued:
            return False
        await input.inbox.ack([message.message_id for message in queued])
        self.messages.extend({"role": "user", "content": message.text} for message in queued)
        return True


async def _next_piece(pieces: AsyncGenerator[str, None]) -> str | None:
    try:
        return await anext(pieces)
    except StopAsyncIteration:
        return None


def llm_factory(
    connections: Mapping[str, LlmConnection],
    host: ToolHost | None,
    approvals: SessionApprovals,
    confirm_timeout: float = STOP_CONFIRM_TIMEOUT,
    budget_bytes: int = DEFAULT_BUDGET_BYTES,
) -> Callable[[SessionHeader], LlmBackend]:
    """A registry factory: every session's LLM backend shares *connections*, *host*, *approvals*
    (the stop confirmation bound, and keeps *budget_bytes* of each stream of a tool call's
    output)."""
    return lambda header: LlmBackend(
        header,
        connections,
        host,
        approvals,
        confirm_timeout=confirm_timeout,
        budget_bytes=budget_bytes,
    )

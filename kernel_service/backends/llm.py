"""The LLM backend: an agent loop on any OpenAI-compatible chat-completions endpoint.

**Connections.** :func:`load_connections` reads a TOML file of named endpoints::

    [connections.local]
    base_url = "http://127.0.0.1:8080/v1"   # required: requests go to {base_url}/chat/completions
    api_key_env = "LOCAL_LLM_KEY"          # optional: the API key's environment variable
    model = "some-model"                   # optional: the default model
    timeout_s = 60                         # optional: read timeout of the stream (default 120)

A bad file is a :class:`ValueError` whose one-line message names the file, the connection and
the key. A session picks its connection by ``llm_connection_slug`` (empty: the only connection,
when exactly one is configured) and its model by ``model`` (else the connection's). The API key
is read from ``api_key_env`` at every turn (so a rotated key takes effect without a restart) and
sent as ``Authorization: Bearer …``; without ``api_key_env`` no key is sent. A missing
connection, model or key variable fails the turn with ``error_code`` ``llm_unavailable``.

**A turn.** The backend keeps the conversation (a system prompt describing the tools, then the
user, assistant and tool messages of every turn it ran) in memory; a new backend generation —
the kernel makes one after a stop or a restart — starts with a fresh conversation. The turn's
text is appended as a user message, then the turn runs *steps*: each step POSTs the
conversation with ``stream: true`` and the tools ``bash`` and ``ask_user``, streams
``delta.content`` as ``text_delta`` events (one ``message_id`` per step) and assembles
``delta.tool_calls`` by ``index`` (id, name and argument pieces arrive over many chunks).

* Tool calls (``finish_reason`` ``tool_calls``; tool calls with ``stop`` or ``[DONE]`` alone are
  run too): each call runs in order, its result goes back to the model as a ``role: tool``
  message, and the next step starts.
* ``stop`` (or a finished stream without tool calls) ends the turn with ``complete``
  ``end_turn``; ``length`` with ``max_tokens`` and ``content_filter`` with ``content_filter``
  (tool calls of such a cut-off reply are not run).
* ``bash`` (``{"command": str, "background": bool?, "timeout_ms": int?}``) runs through the
  shared :class:`~kernel_service.backends.agent.BashTool`, exactly like the shell backend:
  permission mode ``ask`` raises a sandbox-boundary request first (``deny`` ends the turn with
  stop reason ``denied`` and the model gets no further request; ``allow_session`` allows the
  program for the session); ``bypass`` runs at once; foreground runs stream ``tool_output``;
  ``background`` starts an attachable PTY run and reports its ref. The model gets the
  ``tool_result`` text. A resource service that cannot be reached fails the turn
  (``resource_unavailable``); a run it refuses is reported to the model.
* ``ask_user`` (``{"question": str, "options": [str]?}``) raises a user question and waits;
  the model gets the answers joined with ``", "`` (or ``the user did not answer: REASON``).
* Malformed arguments (not JSON, no ``command`` …) and unknown tools become an error
  ``tool_result`` whose text goes back to the model; the loop goes on.
* At most ``max_steps`` model requests per turn (``backend_options["max_steps"]``, default
  25); one more fails the turn (``llm_step_limit``).

**Stops and messages.** Step boundaries are before each model request and before each tool
call. An ``after_step`` stop ends the turn at the next boundary: a streaming response is read
to its end and a running tool call finishes, but nothing more runs and no further request is
made. An ``immediate`` stop ends it at once: an in-flight HTTP stream is closed without waiting
for its next chunk and a running ``bash`` tool's process group is killed before the stop
returns. Messages sent into the running turn are pulled at each boundary before a request
(and when the model ends its turn: then they start another step), acked and appended to the
conversation as user messages, so the model sees them in its next request.

**Errors** (the turn ends ``failed`` with an ``error`` event of that code): an HTTP status
>= 400 is ``llm_failed`` with the status and the provider's message (``{"error": {"message":
…}}``); an ``error`` object inside the stream, a chunk that is not JSON, or a stream that ends
without ``[DONE]`` and without a ``finish_reason`` are ``llm_failed``; a refused connection or
a read timeout is ``llm_unavailable``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tomllib
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

import httpx

from kernel_service.backends.agent import (
    BashCall,
    BashTool,
    ControlledBackend,
    Denied,
    SessionApprovals,
    Stopped,
    TurnControl,
)
from kernel_service.backends.openai_chat import (
    LlmError,
    LlmUnavailableError,
    StepAccumulator,
    ToolCallDraft,
    stream_chat,
)
from kernel_service.core.backend import (
    BackendSendInput,
    UserQuestionResponse,
)
from kernel_service.core.events import (
    BackendEvent,
    Complete,
    TextDelta,
    ToolCall,
    ToolResult,
    UserQuestionRequest,
)
from kernel_service.core.session import SessionHeader
from kernel_service.core.tools import ToolHost, ToolHostError, ToolHostUnavailableError

__all__ = [
    "DEFAULT_MAX_STEPS",
    "DEFAULT_TIMEOUT_S",
    "KIND",
    "TOOLS",
    "LlmBackend",
    "LlmConnection",
    "LlmError",
    "LlmStepLimitError",
    "LlmUnavailableError",
    "TurnSettings",
    "llm_factory",
    "load_connections",
    "parse_connections",
    "resolve_settings",
]

log = logging.getLogger("kernel_service.backends")

KIND = "llm"
DEFAULT_TIMEOUT_S = 120.0
#: Connecting gets at most this long (or the connection's ``timeout_s`` when shorter).
CONNECT_TIMEOUT_S = 10.0
DEFAULT_MAX_STEPS = 25
MAX_STEPS_LIMIT = 1000
#: ``timeout_ms`` bounds of a ``bash`` call: foreground runs (the resource service's maximum)
#: and background runs.
FOREGROUND_TIMEOUT_MAX_MS = 600_000
BACKGROUND_TIMEOUT_MAX_MS = 86_400_000

_SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Tool call ids the kernel can use as they are (they also name interaction requests).
_SAFE_ID = re.compile(r"[A-Za-z0-9._:-]{1,100}")
_CONNECTION_KEYS: Final = ("base_url", "api_key_env", "model", "timeout_s")

TOOLS: Final[list[dict[str, Any]]] = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "description": (
                "Run a shell command with bash -c in the session's working directory and return "
                "its output and exit status. Set background to true for long-running or "
                "interactive programs: the command then starts in a terminal the user can attach "
                "to, and the result reports its run ref instead of its output."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "The command line to run."},
                    "background": {
                        "type": "boolean",
                        "description": "Start it in the background (default false).",
                    },
                    "timeout_ms": {
                        "type": "integer",
                        "description": "Stop it after this many milliseconds (foreground: at "
                        "most 600000, default 120000).",
                    },
                },
                "required": ["command"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "ask_user",
            "description": (
                "Ask the user a question and wait for the answer. Offer options when the answer "
                "is one of a few choices."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "question": {"type": "string", "description": "The question."},
                    "options": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Answers to choose from (optional).",
                    },
                },
                "required": ["question"],
            },
        },
    },
]
TOOL_NAMES: Final = tuple(tool["function"]["name"] for tool in TOOLS)
#: ``finish_reason`` values that end the turn whatever else the reply holds, and the stop
#: reason of the turn's ``complete``.
FINISH_STOP_REASONS: Final = {"length": "max_tokens", "content_filter": "content_filter"}


# -- connections -------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class LlmConnection:
    """One named chat-completions endpoint."""

    slug: str
    base_url: str
    #: The environment variable holding the API key; empty: no key is sent.
    api_key_env: str = ""
    #: The default model of sessions that set none.
    model: str = ""
    #: The read timeout of the stream (seconds between two pieces of the response).
    timeout_s: float = DEFAULT_TIMEOUT_S

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"


def load_connections(path: str | os.PathLike[str]) -> dict[str, LlmConnection]:
    """The connections of the TOML file at *path* by slug; :class:`ValueError` if it is bad."""
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise ValueError(
            f"{path}: cannot read the LLM connections file: {error.strerror or error}"
        ) from error
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"{path}: not a valid TOML file: {error}") from error
    return parse_connections(data, source=str(path))


def parse_connections(data: Mapping[str, Any], *, source: str) -> dict[str, LlmConnection]:
    """The connections of a parsed connections file; *source* names it in errors."""
    for key in data:
        if key != "connections":
            raise ValueError(f"{source}: unknown key {key!r} (expected [connections.SLUG] tables)")
    tables = data.get("connections")
    if not isinstance(tables, dict) or not tables:
        raise ValueError(f"{source}: no connections (expected [connections.SLUG] tables)")
    connections: dict[str, LlmConnection] = {}
    for slug, table in tables.items():
        where = f"{source}: connection {slug!r}"
        if not _SLUG.fullmatch(slug):
            raise ValueError(
                f"{where}: the name must be 1-64 letters, digits, '.', '_' or '-' "
                "starting with a letter or digit"
            )
        if not isinstance(table, dict):
            raise ValueError(f"{where}: must be a table ([connections.{slug}])")
        connections[slug] = _connection(slug, table, where)
    return connections


def _connection(slug: str, table: Mapping[str, Any], where: str) -> LlmConnection:
    for key in table:
        if key not in _CONNECTION_KEYS:
            raise ValueError(f"{where}: unknown key {key!r} (known: {', '.join(_CONNECTION_KEYS)})")
    base_url = table.get("base_url")
    if base_url is None:
        raise ValueError(f"{where}: missing key 'base_url'")
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise ValueError(f"{where}: key 'base_url' must be an http:// or https:// URL")
    try:
        httpx.URL(base_url)
    except httpx.InvalidURL as error:
        raise ValueError(f"{where}: key 'base_url' is not a valid URL: {error}") from error
    api_key_env = table.get("api_key_env", "")
    if not isinstance(api_key_env, str) or (api_key_env and not _ENV_NAME.fullmatch(api_key_env)):
        raise ValueError(f"{where}: key 'api_key_env' must be an environment variable name")
    model = table.get("model", "")
    if not isinstance(model, str):
        raise ValueError(f"{where}: key 'model' must be a string")
    timeout_s = table.get("timeout_s", DEFAULT_TIMEOUT_S)
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, int | float) or timeout_s <= 0:
        raise ValueError(f"{where}: key 'timeout_s' must be a positive number of seconds")
    return LlmConnection(
        slug=slug,
        base_url=base_url,
        api_key_env=api_key_env,
        model=model,
        timeout_s=float(timeout_s),
    )


# -- per-turn settings -------------------------------------------------------------------------


class LlmStepLimitError(LlmError):
    """The model kept asking for tools beyond the turn's step limit."""

    error_code = "llm_step_limit"


@dataclass(frozen=True, kw_only=True, slots=True)
class TurnSettings:
    """What one turn talks to: the connection, the model, the key and the step limit."""

    connection: LlmConnection
    model: str
    api_key: str = ""
    max_steps: int = DEFAULT_MAX_STEPS

    @property
    def who(self) -> str:
        """How error messages name the endpoint."""
        return (
            f"LLM connection {self.connection.slug!r} ({self.connection.url}, model {self.model!r})"
        )


def resolve_settings(
    connections: Mapping[str, LlmConnection],
    header: SessionHeader,
    environ: Mapping[str, str] | None = None,
) -> TurnSettings:
    """The settings of a turn of *header*'s session; :class:`LlmUnavailableError` if incomplete."""
    environ = os.environ if environ is None else environ
    slug = header.llm_connection_slug
    if slug:
        connection = connections.get(slug)
        if connection is None:
            known = ", ".join(sorted(connections)) or "none are configured"
            raise LlmUnavailableError(f"no LLM connection {slug!r} (known: {known})")
    elif len(connections) == 1:
        [connection] = connections.values()
    elif not connections:
        raise LlmUnavailableError(
            "no LLM connection is configured (the kernel needs an LLM connections file)"
        )
    else:
        raise LlmUnavailableError(
            "the session names no LLM connection and several are configured "
            f"({', '.join(sorted(connections))}): set its llm_connection_slug"
        )
    model = header.model or connection.model
    if not model:
        raise LlmUnavailableError(
            f"no model: the session sets none and LLM connection {connection.slug!r} has no "
            "default model"
        )
    api_key = ""
    if connection.api_key_env:
        api_key = environ.get(connection.api_key_env, "")
        if not api_key:
            raise LlmUnavailableError(
                f"the API key variable {connection.api_key_env} of LLM connection "
                f"{connection.slug!r} is not set"
            )
    return TurnSettings(
        connection=connection,
        model=model,
        api_key=api_key,
        max_steps=parse_max_steps(header),
    )


def parse_max_steps(header: SessionHeader) -> int:
    raw = header.backend_options.get("max_steps", "")
    if not raw:
        return DEFAULT_MAX_STEPS
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_STEPS_LIMIT:
        raise ValueError(f"backend option max_steps must be 1..{MAX_STEPS_LIMIT}, not {raw!r}")
    return int(raw)


def system_prompt(header: SessionHeader) -> str:
    """The conversation's first message (``backend_options["system_prompt"]`` replaces it)."""
    custom = header.backend_options.get("system_prompt", "")
    if custom:
        return custom
    approval = (
        "Each command needs the user's approval before it runs; a denied command ends the turn."
        if header.permission_mode == "ask"
        else "Commands run without asking the user."
    )
    return (
        "You are a coding agent working in the workspace "
        f"{header.workspace_root} (working directory {header.cwd or header.workspace_root}). "
        "Use the bash tool to inspect and change files and to run programs; use the ask_user "
        f"tool when you need a decision from the user. {approval} When the task is done, "
        "answer with a short summary and no tool call."
    )


# -- tool calls --------------------------------------------------------------------------------


class ArgumentError(ValueError):
    """A tool call's arguments are malformed (the message goes back to the model)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class _Call:
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


def _bash_call(call: _Call) -> BashCall:
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


def _question(call: _Call) -> tuple[str, tuple[str, ...]]:
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


_NOT_RUN = "not run: the turn ended before this tool call ran"


# -- the backend -------------------------------------------------------------------------------


class LlmBackend(ControlledBackend):
    """One session's LLM agent (see the module docstring)."""

    kind = KIND

    def __init__(
        self,
        header: SessionHeader,
        connections: Mapping[str, LlmConnection],
        host: ToolHost | None,
        approvals: SessionApprovals,
    ) -> None:
        self.header = header
        self.connections = connections
        self.control = TurnControl(host)
        self.bash = BashTool(host, self.control, approvals)
        #: The conversation sent to the model (system prompt first).
        self.messages: list[dict[str, Any]] = []
        self._call_ids: set[str] = set()

    async def send(self, input: BackendSendInput) -> AsyncIterator[BackendEvent]:
        self.control.begin()
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

    async def _turn(
        self, input: BackendSendInput, outcome: list[str]
    ) -> AsyncGenerator[BackendEvent, None]:
        header = input.header
        prompt = {"role": "system", "content": system_prompt(header)}
        if self.messages:
            self.messages[0] = prompt
        else:
            self.messages.append(prompt)
        self.messages.append({"role": "user", "content": input.text})
        settings = resolve_settings(self.connections, header)
        headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
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
                try:
                    async with aclosing(
                        self._request(client, settings, headers, input, step=step, reply=reply)
                    ) as events:
                        async for event in events:
                            yield event
                except Stopped:
                    if reply.content:
                        self.messages.append({"role": "assistant", "content": reply.content})
                    raise
                ending = FINISH_STOP_REASONS.get(reply.finish_reason or "")
                # A cut-off reply's tool calls are likely incomplete: they are not run.
                calls = [] if ending else self._calls(input, step, reply.tool_calls())
                self._remember_reply(reply.content, calls)
                if calls:
                    async with aclosing(self._run_tools(input, calls)) as events:
                        async for event in events:
                            yield event
                    continue
                if ending:
                    outcome[0] = ending
                    return
                # The model ended its turn; messages that came in meanwhile start another step.
                self.control.boundary()
                if step < settings.max_steps and await self._deliver_queued(input):
                    continue
                return

    async def _request(
        self,
        client: httpx.AsyncClient,
        settings: TurnSettings,
        headers: Mapping[str, str],
        input: BackendSendInput,
        *,
        step: int,
        reply: StepAccumulator,
    ) -> AsyncGenerator[BackendEvent, None]:
        body = {
            "model": settings.model,
            "messages": list(self.messages),
            "tools": TOOLS,
            "stream": True,
        }
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

    def _calls(
        self, input: BackendSendInput, step: int, drafts: Sequence[ToolCallDraft]
    ) -> list[_Call]:
        calls = []
        for draft in drafts:
            fallback = f"{input.turn_id[:64]}-call-{step}-{draft.index}"
            wire_id = draft.id or fallback
            event_id = wire_id
            if not _SAFE_ID.fullmatch(event_id) or event_id in self._call_ids:
                event_id = fallback
            self._call_ids.add(event_id)
            calls.append(
                _Call(
                    wire_id=wire_id, event_id=event_id, name=draft.name, arguments=draft.arguments
                )
            )
        return calls

    def _remember_reply(self, content: str, calls: Sequence[_Call]) -> None:
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

    async def _run_tools(
        self, input: BackendSendInput, calls: Sequence[_Call]
    ) -> AsyncGenerator[BackendEvent, None]:
        results: dict[str, str] = {}
        try:
            for call in calls:
                self.control.boundary()
                async with aclosing(self._run_tool(input, call, results)) as events:
                    async for event in events:
                        yield event
        finally:
            # Every tool call of the reply gets its tool message, run or not.
            self.messages.extend(
                {
                    "role": "tool",
                    "tool_call_id": call.wire_id,
                    "content": results.get(call.wire_id, _NOT_RUN),
                }
                for call in calls
            )

    async def _run_tool(
        self, input: BackendSendInput, call: _Call, results: dict[str, str]
    ) -> AsyncGenerator[BackendEvent, None]:
        turn_id = input.turn_id

        def result(text: str, *, error: bool = False) -> ToolResult:
            results[call.wire_id] = text
            return ToolResult(
                turn_id=turn_id, tool_call_id=call.event_id, output=text, is_error=error
            )

        if call.name not in TOOL_NAMES:
            yield ToolCall(
                turn_id=turn_id, tool_call_id=call.event_id, name=call.name, input=call.arguments
            )
            known = " and ".join(TOOL_NAMES)
            yield result(f"unknown tool {call.name!r}: the tools are {known}", error=True)
            return
        try:
            if call.name == "bash":
                bash = _bash_call(call)
            else:
                question, options = _question(call)
        except ArgumentError as error:
            yield ToolCall(
                turn_id=turn_id, tool_call_id=call.event_id, name=call.name, input=call.arguments
            )
            yield result(f"invalid arguments for {call.name}: {error}", error=True)
            return
        if call.name == "bash":
            async with aclosing(self._run_bash(input, call, bash, results)) as events:
                async for event in events:
                    yield event
            return
        yield ToolCall(turn_id=turn_id, tool_call_id=call.event_id, name=call.name, input=question)
        request_id = f"{call.event_id}-question"
        waiter = self.control.expect_answer(request_id)
        yield UserQuestionRequest(
            turn_id=turn_id, request_id=request_id, question=question, options=options
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

    async def _run_bash(
        self, input: BackendSendInput, call: _Call, bash: BashCall, results: dict[str, str]
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
                results[call.wire_id] = outcome.result.output


async def _next_piece(pieces: AsyncGenerator[str, None]) -> str | None:
    try:
        return await anext(pieces)
    except StopAsyncIteration:
        return None


def llm_factory(
    connections: Mapping[str, LlmConnection],
    host: ToolHost | None,
    approvals: SessionApprovals,
) -> Callable[[SessionHeader], LlmBackend]:
    """A registry factory: every session's LLM backend shares *connections*, *host*, *approvals*."""
    return lambda header: LlmBackend(header, connections, host, approvals)

"""The OpenAI chat-completions streaming protocol, as the LLM backend speaks it.

:func:`stream_chat` POSTs one request (``stream: true``) with httpx and yields the decoded
JSON chunks of the server-sent-event stream (httpx-sse), ending at ``data: [DONE]`` or when
the server ends the stream. :class:`StepAccumulator` folds the chunks of one response into
its text, its tool calls (assembled by ``index`` from pieces spread over many chunks) and its
``finish_reason``.

Failures are :class:`LlmError` (``error_code`` ``llm_failed``: an HTTP error status, an
``error`` object inside the stream, a malformed or truncated stream) or
:class:`LlmUnavailableError` (``llm_unavailable``: the endpoint refused the connection or did
not answer in time). Their messages name the connection and say what the provider said.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

#: The end-of-stream marker of the protocol.
DONE = "[DONE]"
#: At most this much of an error body goes into an error message.
ERROR_BODY_LIMIT = 500


class LlmError(Exception):
    """The model request failed (the message says how); the turn ends ``failed``."""

    error_code = "llm_failed"


class LlmUnavailableError(LlmError):
    """The model endpoint (or its settings: connection, model, API key) is not available."""

    error_code = "llm_unavailable"


@dataclass(slots=True)
class ToolCallDraft:
    """One tool call as its deltas arrive: the pieces joined so far."""

    index: int
    id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass(slots=True)
class StepAccumulator:
    """Everything one streamed response said."""

    text: list[str] = field(default_factory=list)
    calls: dict[int, ToolCallDraft] = field(default_factory=dict)
    finish_reason: str | None = None
    #: The stream ended with ``data: [DONE]``.
    done: bool = False

    def add(self, chunk: Mapping[str, Any]) -> str:
        """Fold in one chunk; returns the chunk's text (``delta.content``), maybe empty."""
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices:
            return ""  # e.g. a trailing usage chunk
        choice = next(
            (c for c in choices if isinstance(c, dict) and c.get("index", 0) == 0), choices[0]
        )
        if not isinstance(choice, dict):
            raise LlmError(f"a stream chunk has a malformed choice: {choice!r}")
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            self.finish_reason = reason
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            return ""
        for position, part in enumerate(delta.get("tool_calls") or ()):
            if isinstance(part, dict):
                self._add_call(position, part)
        content = delta.get("content")
        if isinstance(content, str) and content:
            self.text.append(content)
            return content
        return ""

    def _add_call(self, position: int, part: Mapping[str, Any]) -> None:
        index = part.get("index", position)
        if not isinstance(index, int):
            index = position
        draft = self.calls.setdefault(index, ToolCallDraft(index=index))
        call_id = part.get("id")
        if isinstance(call_id, str) and call_id and not draft.id:
            draft.id = call_id
        function = part.get("function")
        if not isinstance(function, dict):
            return
        name = function.get("name")
        # Most servers send the name once; some repeat it in every delta of the call.
        if isinstance(name, str) and name and name != draft.name:
            draft.name += name
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            draft.arguments += arguments
        elif isinstance(arguments, dict):  # some servers send the object itself
            draft.arguments += json.dumps(arguments)

    @property
    def content(self) -> str:
        return "".join(self.text)

    def tool_calls(self) -> list[ToolCallDraft]:
        """The tool calls, in ``index`` order."""
        return [self.calls[index] for index in sorted(self.calls)]

    @property
    def finished(self) -> bool:
        """The response ended properly: ``[DONE]`` or a ``finish_reason`` was seen."""
        return self.done or self.finish_reason is not None


def error_message(body: bytes) -> str:
    """The provider's error message in an error body (``{"error": {"message": …}}`` …)."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        error = parsed.get("error", parsed)
        if isinstance(error, dict):
            message = error.get("message") or error.get("detail")
            if isinstance(message, str) and message:
                code = error.get("code") or error.get("type")
                return f"{message} ({code})" if isinstance(code, str) and code else message
        elif isinstance(error, str) and error:
            return error
    if len(text) > ERROR_BODY_LIMIT:
        text = text[:ERROR_BODY_LIMIT] + " …"
    return text or "(empty body)"


async def stream_chat(
    client: httpx.AsyncClient,
    url: str,
    body: Mapping[str, Any],
    *,
    headers: Mapping[str, str],
    who: str,
    into: StepAccumulator,
) -> AsyncGenerator[str, None]:
    """POST *body* to *url*, fold every chunk into *into* and yield the text pieces.

    Ends at ``data: [DONE]`` (``into.done``) or when the server ends the stream; whether the
    response finished properly is then :attr:`StepAccumulator.finished`. *who* names the
    connection in error messages.
    """
    # Imported on first use: the HTTP client is most of the kernel's start-up imports.
    import httpx
    from httpx_sse import SSEError, aconnect_sse

    try:
        async with aconnect_sse(client, "POST", url, json=body, headers=dict(headers)) as source:
            await _raise_for_status(source.response, who)
            async for event in source.aiter_sse():
                data = event.data.strip()
                if data == DONE:
                    into.done = True
                    return
                if event.event == "error":
                    raise LlmError(
                        f"{who} sent an error in the stream: {error_message(data.encode())}"
                    )
                if not data:
                    continue
                text = into.add(_chunk(data, who))
                if text:
                    yield text
    except SSEError as error:
        raise LlmError(f"{who} did not answer with an event stream: {error}") from error
    except httpx.TimeoutException as error:
        what = type(error).__name__
        raise LlmUnavailableError(f"{who} did not answer in time ({what} on {url})") from error
    except httpx.ConnectError as error:
        raise LlmUnavailableError(
            f"{who} is unreachable: cannot connect to {url} ({error})"
        ) from error
    except httpx.ProtocolError as error:
        raise LlmError(f"the stream from {who} broke off: {error}") from error
    except httpx.TransportError as error:
        raise LlmUnavailableError(f"the connection to {who} failed: {error!r}") from error


def _chunk(data: str, who: str) -> dict[str, Any]:
    """One stream chunk as a JSON object; :class:`LlmError` if it is not one or is an error."""
    try:
        chunk = json.loads(data)
    except ValueError as error:
        raise LlmError(f"{who} sent a stream chunk that is not JSON: {data[:200]!r}") from error
    if not isinstance(chunk, dict):
        raise LlmError(f"{who} sent a stream chunk that is not an object: {data[:200]!r}")
    if chunk.get("error"):
        raise LlmError(f"{who} sent an error in the stream: {error_message(data.encode())}")
    return chunk


async def _raise_for_status(response: httpx.Response, who: str) -> None:
    if response.status_code >= 400:
        raw = await response.aread()
        raise LlmError(
            f"{who} answered HTTP {response.status_code} {response.reason_phrase}: "
            f"{error_message(raw)}"
        )

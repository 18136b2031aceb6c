"""The LLM backend: an agent loop on any OpenAI-compatible chat-completions endpoint.

One module per concern: :mod:`.connections` (the endpoints file and a turn's settings),
:mod:`.prompt` (system prompt and tool schemas), :mod:`.chat` (the streaming wire protocol),
:mod:`.tools` (argument checks and running tool calls), :mod:`.loop` (the agent loop).

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
  shared :class:`~maka_runtime.kernel.backends.agent.BashTool`, exactly like the shell backend:
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

**Loading.** The package imports its modules when a name of theirs is first used (module
``__getattr__``): a kernel whose sessions never pick the llm backend never loads it, and
:func:`llm_factory` imports the agent loop when the first llm session is built.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from maka_runtime.kernel.backends.factories import STOP_CONFIRM_TIMEOUT
from maka_runtime.kernel.core.tool_output import DEFAULT_BUDGET_BYTES

if TYPE_CHECKING:
    from maka_runtime.kernel.backends.approvals import SessionApprovals
    from maka_runtime.kernel.backends.llm.chat import LlmError, LlmUnavailableError
    from maka_runtime.kernel.backends.llm.connections import (
        DEFAULT_MAX_STEPS,
        DEFAULT_TIMEOUT_S,
        LlmConnection,
        TurnSettings,
        load_connections,
        parse_connections,
        resolve_settings,
    )
    from maka_runtime.kernel.backends.llm.loop import LlmBackend, LlmStepLimitError
    from maka_runtime.kernel.backends.llm.prompt import TOOLS
    from maka_runtime.kernel.core.session import SessionHeader
    from maka_runtime.kernel.core.tools import ToolHost

KIND = "llm"

#: The module each exported name lives in, imported on the name's first use.
_HOMES = {
    "LlmError": "chat",
    "LlmUnavailableError": "chat",
    "DEFAULT_MAX_STEPS": "connections",
    "DEFAULT_TIMEOUT_S": "connections",
    "LlmConnection": "connections",
    "TurnSettings": "connections",
    "load_connections": "connections",
    "parse_connections": "connections",
    "resolve_settings": "connections",
    "LlmBackend": "loop",
    "LlmStepLimitError": "loop",
    "TOOLS": "prompt",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def llm_factory(
    connections: Mapping[str, LlmConnection],
    host: ToolHost | None,
    approvals: SessionApprovals,
    confirm_timeout: float = STOP_CONFIRM_TIMEOUT,
    budget_bytes: int = DEFAULT_BUDGET_BYTES,
) -> Callable[[SessionHeader], LlmBackend]:
    """A registry factory: every session's LLM backend shares *connections*, *host*, *approvals*
    (the stop confirmation bound, and keeps *budget_bytes* of each stream of a tool call's
    output). The agent loop is imported when the first session is built."""
    built: list[Callable[[SessionHeader], LlmBackend]] = []

    def build(header: SessionHeader) -> LlmBackend:
        if not built:
            from maka_runtime.kernel.backends.llm import loop

            built.append(
                loop.llm_factory(connections, host, approvals, confirm_timeout, budget_bytes)
            )
        return built[0](header)

    return build


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

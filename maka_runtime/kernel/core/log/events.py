"""What a session's log holds: stream events and stored messages.

A session has one append-only log. Every entry carries a per-session monotonic ``seq`` assigned
when the store commits it (``0`` before). Entries come in two families:

* :data:`SessionEvent` — what a turn streams: the events a backend emits (:data:`BackendEvent`)
  plus the kernel's ``turn_state`` and ``interaction_resolved``.
* :data:`StoredMessage` — every log entry: the session events plus ``user``, ``assistant`` (the
  aggregate of the ``text_delta`` entries with the same ``message_id``) and ``system_note``.

Timestamps are integer milliseconds from the kernel's clock. :func:`to_record` and
:func:`from_record` convert entries to JSON-ready dicts and back (stores use them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

TurnStatus = Literal["running", "completed", "aborted", "failed"]
SystemNoteKind = Literal[
    "session_start",
    "session_resume",
    "error",
    "abort",
    "interrupted",
    "message_rejected",
    "denied",
    "run_unconfirmed",
    "run_confirmed",
    "boundary_widened",
]
SandboxDecision = Literal["allow_once", "allow_session", "deny"]
InteractionKind = Literal["sandbox_boundary", "user_question"]
InteractionOutcome = Literal[
    "allow_once", "allow_session", "deny", "answered", "timed_out", "closed"
]

TURN_STATUSES: Final = ("running", "completed", "aborted", "failed")
SANDBOX_DECISIONS: Final = ("allow_once", "allow_session", "deny")


@dataclass(frozen=True, kw_only=True, slots=True)
class TextDelta:
    """A piece of assistant text; consecutive deltas of one ``message_id`` form one message."""

    type: Literal["text_delta"] = "text_delta"
    turn_id: str
    message_id: str
    text: str
    id: str = ""
    ts: int = 0
    seq: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCall:
    """The agent invokes a tool."""

    type: Literal["tool_call"] = "tool_call"
    turn_id: str
    tool_call_id: str
    name: str
    input: str = ""
    id: str = ""
    ts: int = 0
    seq: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolOutput:
    """Output a running tool produced (streamed while it runs)."""

    type: Literal["tool_output"] = "tool_output"
    turn_id: str
    tool_call_id: str
    text: str
    stream: Literal["stdout", "stderr"] = "stdout"
    id: str = ""
    ts: int = 0
    seq: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolResult:
    """A tool call finished."""

    type: Literal["tool_result"] = "tool_result"
    turn_id: str
    tool_call_id: str
    output: str = ""
    is_error: bool = False
    #: The resource-service run that executed the tool, if one did.
    run_ref: str = ""
    #: The run's exit code, when it ended with one.
    exit_code: int | None = None
    #: What the kernel left out of the call's ``tool_output`` record, in exact bytes:
    #: (stdout kept, stdout omitted, stderr kept, stderr omitted, budget per stream) — see
    #: :class:`maka_runtime.kernel.core.tool_output.Truncation`; empty when nothing was left out.
    truncation: tuple[int, ...] = ()
    #: The profile of the boundary the call's run carried ("" for results of no run).
    profile: str = ""
    #: The revision of the session boundary the run carried (0: none applied).
    boundary_revision: int = 0
    #: ``sandbox_boundary_required`` when the command needs more than its boundary, else "".
    sandbox_failure: str = ""
    #: The expansion it needs (grant tokens, see :mod:`maka_runtime.kernel.core.boundary`).
    required_expansion: tuple[str, ...] = ()
    #: What showed the need (the declaration, or the sandbox's refusal).
    failure_detail: str = ""
    #: The ``allow_once`` expansion the call's run carried beyond the session's boundary
    #: (grant tokens; empty: none).
    once_expansion: tuple[str, ...] = ()
    id: str = ""
    ts: int = 0
    seq: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class SandboxBoundaryRequest:
    """The agent asks permission to cross the sandbox boundary (run a command, write a file)."""

    type: Literal["sandbox_boundary_request"] = "sandbox_boundary_request"
    turn_id: str
    request_id: str
    command: str
    cwd: str = ""
    reason: str = ""
    #: The expansion of the session's boundary asked for (grant tokens; empty: none).
    expansion: tuple[str, ...] = ()
    #: Why the agent needs it.
    justification: str = ""
    #: The boundary revision the request was computed against.
    base_revision: int = 0
    id: str = ""
    ts: int = 0
    seq: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class UserQuestionRequest:
    """The agent asks the user a question; ``options`` may be empty (free answer)."""

    type: Literal["user_question_request"] = "user_question_request"
    turn_id: str
    request_id: str
    question: str
    options: tuple[str, ...] = ()
    id: str = ""
    ts: int = 0
    seq: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class InteractionResolved:
    """An interaction request was answered, timed out (denied) or closed."""

    type: Literal["interaction_resolved"] = "interaction_resolved"
    turn_id: str
    request_id: str
    kind: InteractionKind
    outcome: InteractionOutcome
    answers: tuple[str, ...] = ()
    reason: str = ""
    id: str = ""
    ts: int = 0
    seq: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class TurnState:
    """A turn changed status; ``abort_source``/``aborted_at`` are set when it was aborted."""

    type: Literal["turn_state"] = "turn_state"
    turn_id: str
    status: TurnStatus
    abort_source: str = ""
    aborted_at: int = 0
    id: str = ""
    ts: int = 0
    seq: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class Complete:
    """The backend finished the turn; ``stop_reason`` says why (``end_turn``, ``user_stop`` …)."""

    type: Literal["complete"] = "complete"
    turn_id: str
    stop_reason: str = "end_turn"
    id: str = ""
    ts: int = 0
    seq: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class ErrorEvent:
    """Something went wrong in the turn; the stream goes on to its terminal ``turn_state``."""

    type: Literal["error"] = "error"
    turn_id: str
    message: str
    #: A stable code: ``backend_failed``, ``resource_unavailable``, ``llm_failed`` …
    code: str = "backend_failed"
    id: str = ""
    ts: int = 0
    seq: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class UserMessage:
    """Text the user sent: the turn's prompt, or (``queued``) a message delivered mid-turn."""

    type: Literal["user"] = "user"
    turn_id: str
    text: str
    queued: bool = False
    id: str = ""
    ts: int = 0
    seq: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class AssistantMessage:
    """The assistant's complete text of one ``message_id`` (the deltas, joined)."""

    type: Literal["assistant"] = "assistant"
    turn_id: str
    message_id: str
    text: str
    id: str = ""
    ts: int = 0
    seq: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class SystemNote:
    """Something the kernel wants on the record (start, abort with its ``source``, errors …)."""

    type: Literal["system_note"] = "system_note"
    kind: SystemNoteKind
    text: str
    turn_id: str = ""
    source: str = ""
    id: str = ""
    ts: int = 0
    seq: int = 0


BackendEvent: TypeAlias = (
    TextDelta
    | ToolCall
    | ToolOutput
    | ToolResult
    | SandboxBoundaryRequest
    | UserQuestionRequest
    | Complete
    | ErrorEvent
)
SessionEvent: TypeAlias = BackendEvent | TurnState | InteractionResolved
StoredMessage: TypeAlias = SessionEvent | UserMessage | AssistantMessage | SystemNote

_TYPES: Final[dict[str, type[Any]]] = {
    str(cls.__dataclass_fields__["type"].default): cls
    for cls in (
        TextDelta,
        ToolCall,
        ToolOutput,
        ToolResult,
        SandboxBoundaryRequest,
        UserQuestionRequest,
        InteractionResolved,
        TurnState,
        Complete,
        ErrorEvent,
        UserMessage,
        AssistantMessage,
        SystemNote,
    )
}
BACKEND_EVENT_TYPES: Final = frozenset(
    {
        "text_delta",
        "tool_call",
        "tool_output",
        "tool_result",
        "sandbox_boundary_request",
        "user_question_request",
        "complete",
        "error",
    }
)
SESSION_EVENT_TYPES: Final = BACKEND_EVENT_TYPES | {"turn_state", "interaction_resolved"}
MESSAGE_TYPES: Final = frozenset(_TYPES)


def is_session_event(message: StoredMessage) -> bool:
    return message.type in SESSION_EVENT_TYPES


#: Each entry class's field names, in order (what :func:`to_record` writes, :func:`from_record`
#: reads and :func:`with_seq` copies), computed once instead of per entry.
_FIELDS: Final[dict[type[Any], tuple[str, ...]]] = {
    cls: tuple(field.name for field in dataclasses.fields(cls)) for cls in _TYPES.values()
}
_FIELD_SETS: Final[dict[type[Any], frozenset[str]]] = {
    cls: frozenset(names) for cls, names in _FIELDS.items()
}
_set_slot = object.__setattr__


def to_record(message: StoredMessage) -> dict[str, Any]:
    """A JSON-ready dict of *message* (tuples become lists)."""
    return {
        name: list(value) if isinstance(value, tuple) else value
        for name in _FIELDS[type(message)]
        for value in (getattr(message, name),)
    }


def with_seq(message: StoredMessage, seq: int) -> StoredMessage:
    """*message* stamped with *seq*: ``dataclasses.replace(message, seq=seq)``, without its
    per-call field lookup and keyword call (a store stamps every entry it commits). The
    entries are frozen and hold no ``__post_init__``, so a field-by-field copy is the same
    object ``replace`` would build."""
    cls = type(message)
    stamped = object.__new__(cls)
    for name in _FIELDS[cls]:
        _set_slot(stamped, name, getattr(message, name))
    _set_slot(stamped, "seq", seq)
    return stamped


def from_record(record: Mapping[str, Any]) -> StoredMessage:
    """The entry :func:`to_record` produced; unknown keys are ignored (forward compatible)."""
    cls = _TYPES.get(str(record.get("type")))
    if cls is None:
        raise ValueError(f"unknown stored message type {record.get('type')!r}")
    names = _FIELD_SETS[cls]
    values = {
        key: tuple(value) if isinstance(value, list) else value
        for key, value in record.items()
        if key in names
    }
    message: StoredMessage = cls(**values)
    return message

"""Protobuf ↔ domain conversion. No decisions here: shapes and names only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from google.protobuf import timestamp_pb2
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from maka_runtime.kernel.api.boundary import (
    fill_request_boundary,
    fill_result_boundary,
    fill_session_boundary,
    profile_of,
)
from maka_runtime.kernel.core import (
    DrainReport,
    HostShutdownReport,
    InteractionRecord,
    InvalidRequestError,
    NewSession,
    SessionHeader,
    SessionQuery,
    SessionUpdate,
    StopMode,
    StoredMessage,
    TurnRecord,
    owner_of,
)

SESSION_STATUS: Final[Mapping[str, int]] = {
    "active": pb.SESSION_STATUS_ACTIVE,
    "running": pb.SESSION_STATUS_RUNNING,
    "waiting_for_user": pb.SESSION_STATUS_WAITING_FOR_USER,
    "blocked": pb.SESSION_STATUS_BLOCKED,
    "aborted": pb.SESSION_STATUS_ABORTED,
}
TURN_STATUS: Final[Mapping[str, int]] = {
    "running": pb.TURN_STATUS_RUNNING,
    "completed": pb.TURN_STATUS_COMPLETED,
    "aborted": pb.TURN_STATUS_ABORTED,
    "failed": pb.TURN_STATUS_FAILED,
}
PERMISSION_MODE: Final[Mapping[str, int]] = {
    "ask": pb.PERMISSION_MODE_ASK,
    "bypass": pb.PERMISSION_MODE_BYPASS,
}
PERMISSION_MODE_NAME: Final = {v: k for k, v in PERMISSION_MODE.items()}
NOTE_KIND: Final[Mapping[str, int]] = {
    "session_start": pb.SYSTEM_NOTE_KIND_SESSION_START,
    "session_resume": pb.SYSTEM_NOTE_KIND_SESSION_RESUME,
    "error": pb.SYSTEM_NOTE_KIND_ERROR,
    "abort": pb.SYSTEM_NOTE_KIND_ABORT,
    "interrupted": pb.SYSTEM_NOTE_KIND_INTERRUPTED,
    "message_rejected": pb.SYSTEM_NOTE_KIND_MESSAGE_REJECTED,
    "denied": pb.SYSTEM_NOTE_KIND_DENIED,
    "run_unconfirmed": pb.SYSTEM_NOTE_KIND_RUN_UNCONFIRMED,
    "run_confirmed": pb.SYSTEM_NOTE_KIND_RUN_CONFIRMED,
    "boundary_widened": pb.SYSTEM_NOTE_KIND_BOUNDARY_WIDENED,
}
INTERACTION_KIND: Final[Mapping[str, int]] = {
    "sandbox_boundary": pb.INTERACTION_KIND_SANDBOX_BOUNDARY,
    "user_question": pb.INTERACTION_KIND_USER_QUESTION,
}
INTERACTION_OUTCOME: Final[Mapping[str, int]] = {
    "allow_once": pb.INTERACTION_OUTCOME_ALLOW_ONCE,
    "allow_session": pb.INTERACTION_OUTCOME_ALLOW_SESSION,
    "deny": pb.INTERACTION_OUTCOME_DENY,
    "answered": pb.INTERACTION_OUTCOME_ANSWERED,
    "timed_out": pb.INTERACTION_OUTCOME_TIMED_OUT,
    "closed": pb.INTERACTION_OUTCOME_CLOSED,
}
INTERACTION_STATUS: Final[Mapping[str, int]] = {
    "pending": pb.INTERACTION_STATUS_PENDING,
    "answered": pb.INTERACTION_STATUS_ANSWERED,
    "timed_out": pb.INTERACTION_STATUS_TIMED_OUT,
    "closed": pb.INTERACTION_STATUS_CLOSED,
}
STOP_MODE: Final[Mapping[int, StopMode]] = {
    pb.STOP_MODE_UNSPECIFIED: "immediate",
    pb.STOP_MODE_IMMEDIATE: "immediate",
    pb.STOP_MODE_AFTER_STEP: "after_step",
}
STOP_MODE_VALUE: Final[Mapping[str, int]] = {
    "immediate": pb.STOP_MODE_IMMEDIATE,
    "after_step": pb.STOP_MODE_AFTER_STEP,
}
SANDBOX_DECISION: Final[Mapping[int, str]] = {
    pb.SANDBOX_DECISION_ALLOW_ONCE: "allow_once",
    pb.SANDBOX_DECISION_ALLOW_SESSION: "allow_session",
    pb.SANDBOX_DECISION_DENY: "deny",
}
DRAIN_OUTCOME: Final[Mapping[str, int]] = {
    "stopped_after_step": pb.DRAIN_OUTCOME_STOPPED_AFTER_STEP,
    "stopped_immediately": pb.DRAIN_OUTCOME_STOPPED_IMMEDIATELY,
    "unsettled": pb.DRAIN_OUTCOME_UNSETTLED,
}
DEFAULT_PAGE_SIZE = 50
DEFAULT_READ_LIMIT = 1000


def timestamp(ms: int) -> timestamp_pb2.Timestamp | None:
    if not ms:
        return None
    stamp = timestamp_pb2.Timestamp()
    stamp.FromMilliseconds(ms)
    return stamp


def session_to_proto(header: SessionHeader) -> pb.Session:
    session = _session(header)
    fill_session_boundary(session, header)
    return session


def _session(header: SessionHeader) -> pb.Session:
    return pb.Session(
        id=header.id,
        workspace_root=header.workspace_root,
        cwd=header.cwd,
        created_at=timestamp(header.created_at),
        last_used_at=timestamp(header.last_used_at),
        name=header.name,
        title_is_manual=header.title_is_manual,
        flagged=header.is_flagged,
        labels=list(header.labels),
        archived=header.is_archived,
        status=SESSION_STATUS[header.status],  # type: ignore[arg-type]
        status_updated_at=timestamp(header.status_updated_at),
        has_unread=header.has_unread,
        backend=header.backend,
        llm_connection_slug=header.llm_connection_slug,
        connection_locked=header.connection_locked,
        model=header.model,
        permission_mode=PERMISSION_MODE[header.permission_mode],  # type: ignore[arg-type]
        schema_version=header.schema_version,
        backend_options=dict(header.backend_options),
        owner=owner_of(header),
    )


def turn_to_proto(turn: TurnRecord) -> pb.Turn:
    return pb.Turn(
        turn_id=turn.turn_id,
        status=TURN_STATUS[turn.status],  # type: ignore[arg-type]
        text=turn.text,
        started_at=timestamp(turn.started_at),
        ended_at=timestamp(turn.ended_at),
        abort_source=turn.abort_source,
        first_seq=turn.first_seq,
    )


def event_to_proto(entry: StoredMessage) -> pb.SessionEvent:
    """One log entry (a stored message or a streamed event) as a ``SessionEvent``."""
    event = pb.SessionEvent(seq=entry.seq, id=entry.id, turn_id=entry.turn_id)
    stamp = timestamp(entry.ts)
    if stamp is not None:
        event.time.CopyFrom(stamp)
    if not _fill_conversation(event, entry):
        _fill_tools(event, entry)
    return event


def _fill_conversation(event: pb.SessionEvent, entry: StoredMessage) -> bool:
    """Messages, notes, deltas and turn states; False for other entries."""
    match entry.type:
        case "user":
            event.user.SetInParent()
            event.user.text = entry.text
            event.user.queued = entry.queued
        case "assistant":
            event.assistant.message_id = entry.message_id
            event.assistant.text = entry.text
        case "system_note":
            event.system_note.kind = NOTE_KIND[entry.kind]  # type: ignore[assignment]
            event.system_note.text = entry.text
            event.system_note.source = entry.source
        case "text_delta":
            event.text_delta.message_id = entry.message_id
            event.text_delta.text = entry.text
        case "turn_state":
            event.turn_state.status = TURN_STATUS[entry.status]  # type: ignore[assignment]
            event.turn_state.abort_source = entry.abort_source
            aborted_at = timestamp(entry.aborted_at)
            if aborted_at is not None:
                event.turn_state.aborted_at.CopyFrom(aborted_at)
        case "complete":
            event.complete.stop_reason = entry.stop_reason
        case "error":
            event.error.message = entry.message
            event.error.code = entry.code
        case _:
            return False
    return True


def _fill_truncation(result: pb.ToolResult, figures: tuple[int, ...], run_ref: str) -> None:
    """``ToolResult.truncation`` from the stored figures (stdout kept, stdout omitted, stderr
    kept, stderr omitted, budget; empty: nothing was left out)."""
    if len(figures) != 5:
        return
    record = result.truncation
    (
        record.stdout_bytes_kept,
        record.stdout_bytes_omitted,
        record.stderr_bytes_kept,
        record.stderr_bytes_omitted,
        record.budget_bytes,
    ) = figures
    record.run_ref = run_ref


def _fill_tools(event: pb.SessionEvent, entry: StoredMessage) -> bool:
    """Tool calls and interactions; False for other entries."""
    match entry.type:
        case "tool_call":
            event.tool_call.tool_call_id = entry.tool_call_id
            event.tool_call.name = entry.name
            event.tool_call.input = entry.input
        case "tool_output":
            event.tool_output.tool_call_id = entry.tool_call_id
            event.tool_output.text = entry.text
            event.tool_output.stream = (
                pb.TOOL_OUTPUT_STREAM_STDERR
                if entry.stream == "stderr"
                else pb.TOOL_OUTPUT_STREAM_STDOUT
            )
        case "tool_result":
            event.tool_result.SetInParent()
            event.tool_result.tool_call_id = entry.tool_call_id
            event.tool_result.output = entry.output
            event.tool_result.is_error = entry.is_error
            event.tool_result.run_ref = entry.run_ref
            if entry.exit_code is not None:
                event.tool_result.exit_code = entry.exit_code
            _fill_truncation(event.tool_result, entry.truncation, entry.run_ref)
            fill_result_boundary(event.tool_result, entry)
        case "sandbox_boundary_request":
            event.sandbox_boundary_request.request_id = entry.request_id
            event.sandbox_boundary_request.command = entry.command
            event.sandbox_boundary_request.cwd = entry.cwd
            event.sandbox_boundary_request.reason = entry.reason
            fill_request_boundary(event.sandbox_boundary_request, entry)
        case "user_question_request":
            event.user_question_request.request_id = entry.request_id
            event.user_question_request.question = entry.question
            event.user_question_request.options.extend(entry.options)
        case "interaction_resolved":
            resolved = event.interaction_resolved
            resolved.request_id = entry.request_id
            resolved.kind = INTERACTION_KIND[entry.kind]  # type: ignore[assignment]
            resolved.outcome = INTERACTION_OUTCOME[entry.outcome]  # type: ignore[assignment]
            resolved.answers.extend(entry.answers)
            resolved.reason = entry.reason
        case _:
            return False
    return True


def interaction_to_proto(record: InteractionRecord) -> pb.Interaction:
    outcome = interaction_outcome(record)
    proto = pb.Interaction(
        session_id=record.session_id,
        request_id=record.request_id,
        turn_id=record.turn_id,
        kind=INTERACTION_KIND[record.kind],  # type: ignore[arg-type]
        status=INTERACTION_STATUS[record.status],  # type: ignore[arg-type]
        decision=record.decision,
        answers=list(record.answers),
        reason=record.reason,
        created_at=timestamp(record.created_at),
        resolved_at=timestamp(record.resolved_at),
        outcome=INTERACTION_OUTCOME[outcome] if outcome else None,  # type: ignore[arg-type]
    )
    request = record.request
    if request.type == "sandbox_boundary_request":
        proto.sandbox_boundary_request.request_id = request.request_id
        proto.sandbox_boundary_request.command = request.command
        proto.sandbox_boundary_request.cwd = request.cwd
        proto.sandbox_boundary_request.reason = request.reason
        fill_request_boundary(proto.sandbox_boundary_request, request)
    else:
        proto.user_question_request.request_id = request.request_id
        proto.user_question_request.question = request.question
        proto.user_question_request.options.extend(request.options)
    return proto


def interaction_outcome(record: InteractionRecord) -> str:
    """How a request ended, as its ``interaction_resolved`` entry says (empty while pending)."""
    match record.status:
        case "pending":
            return ""
        case "answered":
            return "answered" if record.kind == "user_question" else record.decision
        case status:
            return status


def _permission_mode(value: int, *, default: str | None) -> str | None:
    if value == pb.PERMISSION_MODE_UNSPECIFIED:
        return default
    name = PERMISSION_MODE_NAME.get(value)
    if name is None:
        raise InvalidRequestError("permission_mode", f"unknown value {value}")
    return name


def new_session(request: pb.CreateSessionRequest, *, default_backend: str) -> NewSession:
    return NewSession(
        session_id=request.session_id,
        workspace_root=request.workspace_root,
        cwd=request.cwd,
        name=request.name,
        backend=request.backend or default_backend,
        model=request.model,
        permission_mode=_permission_mode(request.permission_mode, default="ask") or "ask",
        labels=tuple(request.labels),
        llm_connection_slug=request.llm_connection_slug,
        connection_locked=request.connection_locked,
        backend_options=dict(request.backend_options),
        profile=profile_of(request),
    )


def session_update(request: pb.UpdateSessionRequest) -> SessionUpdate:
    return SessionUpdate(
        name=request.name if request.HasField("name") else None,
        is_flagged=request.flagged if request.HasField("flagged") else None,
        labels=tuple(request.labels.values) if request.HasField("labels") else None,
        model=request.model if request.HasField("model") else None,
        permission_mode=_permission_mode(request.permission_mode, default=None),
        archived=request.archived if request.HasField("archived") else None,
        has_unread=request.has_unread if request.HasField("has_unread") else None,
        cwd=request.cwd if request.HasField("cwd") else None,
    )


def session_filters(request: pb.ListSessionsRequest) -> tuple[bool | None, str | None, int, str]:
    """A ``ListSessions`` request's archived filter, label, page size and page token, with
    their defaults (what :func:`session_query` holds)."""
    return (
        request.archived if request.HasField("archived") else None,
        request.label or None,
        request.page_size or DEFAULT_PAGE_SIZE,
        request.page_token,
    )


def session_query(request: pb.ListSessionsRequest) -> SessionQuery:
    archived, label, page_size, page_token = session_filters(request)
    return SessionQuery(archived=archived, label=label, page_size=page_size, page_token=page_token)


def stop_mode(value: int) -> StopMode:
    mode = STOP_MODE.get(value)
    if mode is None:
        raise InvalidRequestError("mode", f"unknown stop mode {value}")
    return mode


def sandbox_decision(value: int) -> str:
    decision = SANDBOX_DECISION.get(value)
    if decision is None:
        raise InvalidRequestError("decision", "must be ALLOW_ONCE, ALLOW_SESSION or DENY")
    return decision


def shutdown_response(
    report: DrainReport, resource: HostShutdownReport | None = None
) -> pb.ShutdownResponse:
    cascade = pb.ResourceShutdown()
    if resource is not None:
        cascade = pb.ResourceShutdown(
            attempted=True,
            reached=resource.reached,
            error=resource.error,
            runs_ended=resource.runs_ended,
            runs_unfinished=resource.runs_unfinished,
        )
    return pb.ShutdownResponse(
        resource=cascade,
        turns=[
            pb.DrainedTurn(
                session_id=turn.session_id,
                turn_id=turn.turn_id,
                outcome=DRAIN_OUTCOME[turn.outcome],  # type: ignore[arg-type]
                failure=turn.failure,
            )
            for turn in report.turns
        ],
    )

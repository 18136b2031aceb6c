"""How session log entries and turn events read to a person."""

from __future__ import annotations

from maka.kernel.v1 import kernel_pb2 as pb


def enum_name(enum: type, value: int, prefix: str) -> str:
    return str(enum.Name(value)).removeprefix(prefix).lower()  # type: ignore[attr-defined]


def turn_status(status: int) -> str:
    return enum_name(pb.TurnStatus, status, "TURN_STATUS_")


def short(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def describe_entry(event: pb.SessionEvent) -> tuple[str, str]:
    """One line (and its style) for a log entry or turn event."""
    kind = event.WhichOneof("event")
    if kind == "user":
        return f"user: {short(event.user.text)}", "bold"
    if kind == "assistant":
        return f"assistant: {short(event.assistant.text)}", ""
    if kind == "text_delta":
        return f"text: {short(event.text_delta.text)}", ""
    if kind == "system_note":
        note = event.system_note
        what = enum_name(pb.SystemNoteKind, note.kind, "SYSTEM_NOTE_KIND_")
        source = f" [{note.source}]" if note.source else ""
        return f"note {what}{source}: {short(note.text)}", "yellow"
    if kind == "tool_call":
        return f"tool {event.tool_call.name} {short(event.tool_call.input)}".rstrip(), "cyan"
    if kind == "tool_output":
        return f"  {short(event.tool_output.text)}", "dim"
    if kind == "tool_result":
        result = event.tool_result
        mark = "tool error" if result.is_error else "tool result"
        exit_code = f" (exit {result.exit_code})" if result.HasField("exit_code") else ""
        run = f" [{result.run_ref}]" if result.run_ref else ""
        if result.run_ref and not result.is_error and not result.HasField("exit_code"):
            # A run still going (a background run): the result says how to reach it, in full
            # (it ends with the command to attach, which must stay whole to be copied).
            return f"{mark}{run}: {' '.join(result.output.split())}", "green"
        # A run's output was shown as it streamed: repeat it only when something went wrong.
        shown = not result.run_ref or result.is_error
        text = f"{mark}{exit_code}{run}" + (f": {short(result.output)}" if shown else "")
        return text, "red" if result.is_error else "green"
    if kind == "sandbox_boundary_request":
        request = event.sandbox_boundary_request
        where = f" (in {request.cwd})" if request.cwd else ""
        why = f": {request.reason}" if request.reason else ""
        return f"approval needed to run {request.command!r}{where}{why}", "magenta"
    if kind == "user_question_request":
        question = event.user_question_request
        options = f" [{' | '.join(question.options)}]" if question.options else ""
        return f"question: {question.question}{options}", "magenta"
    if kind == "interaction_resolved":
        resolved = event.interaction_resolved
        outcome = enum_name(pb.InteractionOutcome, resolved.outcome, "INTERACTION_OUTCOME_")
        answers = f": {', '.join(resolved.answers)}" if resolved.answers else ""
        why = f" ({resolved.reason})" if resolved.reason else ""
        return f"resolved {outcome}{answers}{why}", "magenta"
    if kind == "turn_state":
        state = event.turn_state
        source = f" by {state.abort_source}" if state.abort_source else ""
        style = {"completed": "green", "running": "dim"}.get(turn_status(state.status), "red")
        return f"turn {turn_status(state.status)}{source}", style
    if kind == "complete":
        return f"complete ({event.complete.stop_reason})", "dim"
    if kind == "error":
        code = f" ({event.error.code})" if event.error.code else ""
        return f"error: {event.error.message}{code}", "red"
    return kind or "?", ""

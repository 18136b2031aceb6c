"""How session log entries and turn events read to a person."""

from __future__ import annotations

from collections.abc import Callable

from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb
from maka_runtime_proto.resource.v1 import sandbox_pb2 as sb

from maka_runtime_client.boundary import expansion_text
from maka_runtime_client.cli.output import printable


def enum_name(enum: type, value: int, prefix: str) -> str:
    return str(enum.Name(value)).removeprefix(prefix).lower()  # type: ignore[attr-defined]


def turn_status(status: int) -> str:
    return enum_name(pb.TurnStatus, status, "TURN_STATUS_")


def short(text: str, limit: int = 200) -> str:
    """*text* on one line, at most *limit* characters, control characters escaped."""
    flat = printable(" ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _expansion(expansion: sb.BoundaryExpansion) -> str:
    return printable(expansion_text(expansion))


#: The line under every result of a run that had no sandbox (foreground or background).
UNSANDBOXED = "\nran without a sandbox (danger-full-access)"


def describe_entry(event: pb.SessionEvent) -> tuple[str, str]:
    """One line (and its style) for a log entry or turn event."""
    kind = event.WhichOneof("event")
    describe = _DESCRIBE.get(kind or "")
    return describe(event) if describe is not None else (kind or "?", "")


def _system_note(event: pb.SessionEvent) -> tuple[str, str]:
    note = event.system_note
    what = enum_name(pb.SystemNoteKind, note.kind, "SYSTEM_NOTE_KIND_")
    source = f" [{printable(note.source)}]" if note.source else ""
    return f"note {what}{source}: {short(note.text)}", "yellow"


def _tool_result(event: pb.SessionEvent) -> tuple[str, str]:
    result = event.tool_result
    mark = "tool error" if result.is_error else "tool result"
    exit_code = f" (exit {result.exit_code})" if result.HasField("exit_code") else ""
    run = f" [{printable(result.run_ref)}]" if result.run_ref else ""
    if result.run_ref and not result.is_error and not result.HasField("exit_code"):
        # A run still going (a background run): the result says how to reach it, in full
        # (it ends with the command to attach, which must stay whole to be copied).
        text = f"{mark}{run}: {printable(' '.join(result.output.split()))}"
        if result.profile == sb.PERMISSION_PROFILE_DANGER_FULL_ACCESS:
            text += UNSANDBOXED
        return text, "green"
    # A run's output was shown as it streamed: repeat it only when something went wrong.
    shown = not result.run_ref or result.is_error
    text = f"{mark}{exit_code}{run}" + (f": {short(result.output)}" if shown else "")
    if result.HasField("truncation"):
        text += "\n" + truncation_line(result.truncation)
    if result.profile == sb.PERMISSION_PROFILE_DANGER_FULL_ACCESS:
        text += UNSANDBOXED
    if result.HasField("sandbox_failure"):
        failure = result.sandbox_failure
        text += f"\n{printable(failure.reason)}: needs {_expansion(failure.required_expansion)}"
    if result.HasField("once_expansion"):
        text += f"\nallowed once: {_expansion(result.once_expansion)}"
    return text, "red" if result.is_error else "green"


def truncation_line(truncation: pb.ToolOutputTruncation) -> str:
    """What the kernel left out of a tool call's output, in exact bytes, and where it is."""
    streams = [
        f"{name} {kept + omitted} bytes, {omitted} omitted (first {kept} kept)"
        for name, kept, omitted in (
            ("stdout", truncation.stdout_bytes_kept, truncation.stdout_bytes_omitted),
            ("stderr", truncation.stderr_bytes_kept, truncation.stderr_bytes_omitted),
        )
        if omitted
    ]
    where = (
        f"; the complete output: maka output {printable(truncation.run_ref)}"
        if truncation.run_ref
        else ""
    )
    return f"output truncated: {'; '.join(streams)}{where}"


def _sandbox_boundary_request(event: pb.SessionEvent) -> tuple[str, str]:
    request = event.sandbox_boundary_request
    # Every field is escaped: a justification or path cannot erase or forge this line.
    where = f" (in {printable(request.cwd)})" if request.cwd else ""
    why = f": {printable(request.reason)}" if request.reason else ""
    if not request.command and request.HasField("expansion"):
        widen = _expansion(request.expansion)
        return f"approval needed to widen the sandbox by {widen}{where}{why}", "magenta"
    return f"approval needed to run {request.command!r}{where}{why}", "magenta"


def _user_question_request(event: pb.SessionEvent) -> tuple[str, str]:
    question = event.user_question_request
    options = f" [{' | '.join(question.options)}]" if question.options else ""
    return printable(f"question: {question.question}{options}"), "magenta"


def _interaction_resolved(event: pb.SessionEvent) -> tuple[str, str]:
    resolved = event.interaction_resolved
    outcome = enum_name(pb.InteractionOutcome, resolved.outcome, "INTERACTION_OUTCOME_")
    answers = f": {', '.join(resolved.answers)}" if resolved.answers else ""
    why = f" ({resolved.reason})" if resolved.reason else ""
    return printable(f"resolved {outcome}{answers}{why}"), "magenta"


def _turn_state(event: pb.SessionEvent) -> tuple[str, str]:
    state = event.turn_state
    source = f" by {printable(state.abort_source)}" if state.abort_source else ""
    style = {"completed": "green", "running": "dim"}.get(turn_status(state.status), "red")
    return f"turn {turn_status(state.status)}{source}", style


def _error(event: pb.SessionEvent) -> tuple[str, str]:
    code = f" ({event.error.code})" if event.error.code else ""
    return printable(f"error: {event.error.message}{code}"), "red"


_DESCRIBE: dict[str, Callable[[pb.SessionEvent], tuple[str, str]]] = {
    "user": lambda e: (f"user: {short(e.user.text)}", "bold"),
    "assistant": lambda e: (f"assistant: {short(e.assistant.text)}", ""),
    "text_delta": lambda e: (f"text: {short(e.text_delta.text)}", ""),
    "system_note": _system_note,
    "tool_call": lambda e: (
        f"tool {short(e.tool_call.name)} {short(e.tool_call.input)}".rstrip(),
        "cyan",
    ),
    "tool_output": lambda e: (f"  {short(e.tool_output.text)}", "dim"),
    "tool_result": _tool_result,
    "sandbox_boundary_request": _sandbox_boundary_request,
    "user_question_request": _user_question_request,
    "interaction_resolved": _interaction_resolved,
    "turn_state": _turn_state,
    "complete": lambda e: (f"complete ({printable(e.complete.stop_reason)})", "dim"),
    "error": _error,
}

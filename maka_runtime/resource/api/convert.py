"""Protobuf <-> domain. Pure functions; no decisions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from google.protobuf import timestamp_pb2
from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from maka_runtime.resource.api.sandbox_convert import boundary_from_proto, run_sandbox_to_proto
from maka_runtime.resource.core import (
    BashInput,
    ControlResult,
    DrainReport,
    OutputChunk,
    OutputGap,
    OutputPage,
    PipesOutput,
    PtyControl,
    PtyOutput,
    RunKind,
    RunMode,
    ShellRunRecord,
    ShellRunStatus,
)

__all__ = [
    "BACKGROUND_FIELDS",
    "CONTROL_FIELDS",
    "bash_input_from_background",
    "bash_input_from_foreground",
    "chunk_into",
    "chunk_to_proto",
    "control_from_proto",
    "control_result_to_proto",
    "drain_to_proto",
    "gap_to_proto",
    "output_page_to_proto",
    "run_to_proto",
    "screen_to_proto",
]

_STATUS: Final[Mapping[ShellRunStatus, pb.RunStatus.ValueType]] = {
    "starting": pb.RUN_STATUS_STARTING,
    "running": pb.RUN_STATUS_RUNNING,
    "completed": pb.RUN_STATUS_COMPLETED,
    "failed": pb.RUN_STATUS_FAILED,
    "timed_out": pb.RUN_STATUS_TIMED_OUT,
    "cancelled": pb.RUN_STATUS_CANCELLED,
    "orphaned": pb.RUN_STATUS_ORPHANED,
}
_MODE: Final[Mapping[RunMode, pb.RunMode.ValueType]] = {
    "pipes": pb.RUN_MODE_PIPES,
    "pty": pb.RUN_MODE_PTY,
}
_KIND: Final[Mapping[RunKind, pb.RunKind.ValueType]] = {
    "foreground": pb.RUN_KIND_FOREGROUND,
    "background": pb.RUN_KIND_BACKGROUND,
}
_STREAM: Final[Mapping[str, pb.OutputStream.ValueType]] = {
    "stdout": pb.OUTPUT_STREAM_STDOUT,
    "stderr": pb.OUTPUT_STREAM_STDERR,
    "pty": pb.OUTPUT_STREAM_PTY,
}

#: Domain field names as StartBackground spells them.
BACKGROUND_FIELDS: Final = {"cols": "size.cols", "rows": "size.rows"}
#: Domain field names as ControlController spells them.
CONTROL_FIELDS: Final = {
    "control.input": "input",
    "control.kind": "input",
    "control.cols": "resize.cols",
    "control.rows": "resize.rows",
}


def _timestamp(ms: int | None) -> timestamp_pb2.Timestamp | None:
    if ms is None:
        return None
    stamp = timestamp_pb2.Timestamp()
    stamp.FromMilliseconds(ms)
    return stamp


def screen_to_proto(output: PtyOutput) -> pb.Screen:
    return pb.Screen(
        cols=output.cols,
        rows=output.rows,
        lines=list(output.screen),
        scrollback=list(output.scrollback),
        cursor_row=output.cursor_row,
        cursor_col=output.cursor_col,
        cursor_visible=output.cursor_visible,
        alternate_screen=output.alternate_screen,
    )


def run_to_proto(record: ShellRunRecord) -> pb.Run:
    run = pb.Run(
        ref=record.ref,
        session_id=record.session_id,
        source_turn_id=record.source_turn_id,
        source_tool_call_id=record.source_tool_call_id,
        kind=_KIND[record.kind],
        mode=_MODE[record.mode],
        command=record.command,
        cwd=record.cwd,
        timeout_ms=record.timeout_ms,
        status=_STATUS[record.status],
        revision=record.revision,
        change_seq=record.change_seq,
        created_at=_timestamp(record.created_at),
        updated_at=_timestamp(record.updated_at),
        started_at=_timestamp(record.started_at),
        ended_at=_timestamp(record.ended_at),
        exit_code=record.exit_code,
        signal=record.signal,
        message=record.message or "",
        pid=record.process.pid if record.process else 0,
        duration_ms=record.duration_ms,
    )
    if isinstance(record.output, PipesOutput):
        run.pipes.CopyFrom(
            pb.PipesOutput(
                stdout=record.output.stdout,
                stderr=record.output.stderr,
                stdout_truncated=record.output.stdout_truncated,
                stderr_truncated=record.output.stderr_truncated,
            )
        )
    else:
        run.screen.CopyFrom(screen_to_proto(record.output))
    if record.sandbox is not None:
        run.sandbox.CopyFrom(run_sandbox_to_proto(record.sandbox))
    return run


def chunk_to_proto(chunk: OutputChunk) -> pb.OutputChunk:
    return pb.OutputChunk(sequence=chunk.sequence, stream=_STREAM[chunk.stream], data=chunk.data)


def chunk_into(target: pb.OutputChunk, chunk: OutputChunk) -> None:
    """Fill *target*, the chunk field of a response being built, in place: a chunk message
    built on its own and then set on the response copies its data twice, into a fresh
    buffer each time (up to 256 KiB per chunk in a flood)."""
    target.sequence = chunk.sequence
    target.stream = _STREAM[chunk.stream]
    target.data = chunk.data


def gap_to_proto(gap: OutputGap) -> pb.OutputGap:
    return pb.OutputGap(
        first_sequence=gap.first_sequence,
        last_sequence=gap.last_sequence,
        stdout_bytes=gap.stdout_bytes,
        stderr_bytes=gap.stderr_bytes,
        pty_bytes=gap.pty_bytes,
    )


def output_page_to_proto(page: OutputPage) -> pb.ReadRunOutputResponse:
    return pb.ReadRunOutputResponse(
        chunks=[chunk_to_proto(chunk) for chunk in page.chunks],
        next_after_sequence=page.next_after_sequence,
        end_reached=page.end_reached,
        last_sequence=page.last_sequence,
        omitted=None if page.omitted is None else gap_to_proto(page.omitted),
        evicted=page.evicted,
    )


def bash_input_from_foreground(request: pb.RunForegroundRequest) -> BashInput:
    return BashInput(
        session_id=request.session_id,
        command=request.command,
        cwd=request.cwd,
        source_turn_id=request.source_turn_id,
        source_tool_call_id=request.source_tool_call_id,
        env=dict(request.env),
        pty=request.pty,
        timeout_ms=request.timeout_ms if request.HasField("timeout_ms") else None,
        boundary=boundary_from_proto(request.boundary) if request.HasField("boundary") else None,
    )


def bash_input_from_background(request: pb.StartBackgroundRequest) -> BashInput:
    size = request.size if request.HasField("size") else pb.TerminalSize(cols=80, rows=24)
    return BashInput(
        session_id=request.session_id,
        command=request.command,
        cwd=request.cwd,
        source_turn_id=request.source_turn_id,
        source_tool_call_id=request.source_tool_call_id,
        env=dict(request.env),
        pty=request.pty,
        cols=size.cols,
        rows=size.rows,
        timeout_ms=request.timeout_ms if request.HasField("timeout_ms") else None,
        boundary=boundary_from_proto(request.boundary) if request.HasField("boundary") else None,
    )


def control_from_proto(text: str, resize: pb.TerminalSize | None) -> PtyControl:
    """Input, resize or both, by what is present (neither is refused by the core)."""
    if resize is None:
        return PtyControl(kind="input", input=text)
    if text:
        return PtyControl(kind="both", input=text, cols=resize.cols, rows=resize.rows)
    return PtyControl(kind="resize", cols=resize.cols, rows=resize.rows)


def control_result_to_proto(result: ControlResult) -> pb.ControlControllerResponse:
    return pb.ControlControllerResponse(
        controller_id=result.controller_id,
        sequence=result.sequence,
        input_bytes=result.input_bytes,
        size=pb.TerminalSize(cols=result.cols, rows=result.rows),
    )


def drain_to_proto(report: DrainReport) -> pb.ShutdownResponse:
    return pb.ShutdownResponse(
        ended=[
            pb.RunCount(status=_STATUS[status], count=count)
            for status, count in sorted(report.ended.items())
        ],
        lost=report.lost,
        unfinished=len(report.unfinished),
        unfinished_refs=list(report.unfinished),
    )

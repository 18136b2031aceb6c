"""Shell-run records to and from JSON, as the SQLite store keeps them."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from maka_runtime.resource.core.output_counts import JournalSummary, StreamBytes
from maka_runtime.resource.core.records import (
    PipesOutput,
    ProcessIdentity,
    PtyOutput,
    RunSandbox,
    ShellRunOutput,
    ShellRunRecord,
)

__all__ = ["record_from_json", "record_to_json"]

# Bump when the JSON shape changes incompatibly; readers refuse newer formats.
FORMAT = 1


def record_to_json(record: ShellRunRecord) -> str:
    body: dict[str, Any] = {
        "format": FORMAT,
        "ref": record.ref,
        "session_id": record.session_id,
        "source_turn_id": record.source_turn_id,
        "source_tool_call_id": record.source_tool_call_id,
        "kind": record.kind,
        "mode": record.mode,
        "command": record.command,
        "cwd": record.cwd,
        "timeout_ms": record.timeout_ms,
        "status": record.status,
        "revision": record.revision,
        "change_seq": record.change_seq,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "started_at": record.started_at,
        "ended_at": record.ended_at,
        "exit_code": record.exit_code,
        "signal": record.signal,
        "message": record.message,
        "process": None
        if record.process is None
        else {
            "pid": record.process.pid,
            "start_time": record.process.start_time,
            "boot_id": record.process.boot_id,
        },
        "output": _output_to_dict(record.output),
        "sandbox": None if record.sandbox is None else dataclasses.asdict(record.sandbox),
    }
    if record.journal is not None:
        body["journal"] = _journal_to_dict(record.journal)
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def record_from_json(text: str) -> ShellRunRecord:
    body = json.loads(text)
    if body.get("format", 1) > FORMAT:
        raise ValueError(f"record format {body['format']} is newer than this host understands")
    process = body.get("process")
    sandbox = body.get("sandbox")
    return ShellRunRecord(
        ref=body["ref"],
        session_id=body["session_id"],
        source_turn_id=body["source_turn_id"],
        source_tool_call_id=body["source_tool_call_id"],
        kind=body["kind"],
        mode=body["mode"],
        command=body["command"],
        cwd=body["cwd"],
        timeout_ms=body["timeout_ms"],
        status=body["status"],
        revision=body["revision"],
        change_seq=body["change_seq"],
        created_at=body["created_at"],
        updated_at=body["updated_at"],
        started_at=body["started_at"],
        ended_at=body["ended_at"],
        exit_code=body["exit_code"],
        signal=body["signal"],
        message=body["message"],
        process=None if process is None else ProcessIdentity(**process),
        output=_output_from_dict(body["output"]),
        sandbox=None if sandbox is None else RunSandbox(**sandbox),
        journal=_journal_from_dict(body["journal"]) if "journal" in body else None,
    )


def _journal_to_dict(journal: JournalSummary) -> dict[str, Any]:
    return {
        "last_sequence": journal.last_sequence,
        "kept_sequence": journal.kept_sequence,
        "kept": dataclasses.astuple(journal.kept),
        "omitted": dataclasses.astuple(journal.omitted),
    }


def _journal_from_dict(data: dict[str, Any]) -> JournalSummary:
    return JournalSummary(
        last_sequence=data["last_sequence"],
        kept_sequence=data["kept_sequence"],
        kept=StreamBytes(*data["kept"]),
        omitted=StreamBytes(*data["omitted"]),
    )


def _output_to_dict(output: ShellRunOutput) -> dict[str, Any]:
    if isinstance(output, PipesOutput):
        return {
            "mode": "pipes",
            "stdout": output.stdout,
            "stderr": output.stderr,
            "stdout_truncated": output.stdout_truncated,
            "stderr_truncated": output.stderr_truncated,
        }
    return {
        "mode": "pty",
        "cols": output.cols,
        "rows": output.rows,
        "screen": list(output.screen),
        "scrollback": list(output.scrollback),
        "cursor_row": output.cursor_row,
        "cursor_col": output.cursor_col,
        "cursor_visible": output.cursor_visible,
        "alternate_screen": output.alternate_screen,
    }


def _output_from_dict(data: dict[str, Any]) -> ShellRunOutput:
    if data["mode"] == "pipes":
        return PipesOutput(
            stdout=data["stdout"],
            stderr=data["stderr"],
            stdout_truncated=data["stdout_truncated"],
            stderr_truncated=data["stderr_truncated"],
        )
    return PtyOutput(
        cols=data["cols"],
        rows=data["rows"],
        screen=tuple(data["screen"]),
        scrollback=tuple(data["scrollback"]),
        cursor_row=data["cursor_row"],
        cursor_col=data["cursor_col"],
        cursor_visible=data["cursor_visible"],
        alternate_screen=data["alternate_screen"],
    )

"""Terminal run records for tests of what keeps finished runs."""

from __future__ import annotations

from maka_runtime.resource.core import PipesOutput, ShellRunRecord


def finished_record(
    ref_id: str,
    *,
    session_id: str = "session",
    status: str = "completed",
    stdout: str = "",
    change_seq: int = 1,
    updated_at: int = 1,
    exit_code: int | None = None,
) -> ShellRunRecord:
    """A foreground pipes run of ``true`` with ref ``…/background-tasks/<ref_id>``."""
    return ShellRunRecord(
        ref=f"maka://runtime/background-tasks/{ref_id}",
        session_id=session_id,
        source_turn_id="",
        source_tool_call_id="",
        kind="foreground",
        mode="pipes",
        command="true",
        cwd="/",
        timeout_ms=1000,
        status=status,  # type: ignore[arg-type]
        revision=3,
        change_seq=change_seq,
        created_at=1,
        updated_at=updated_at,
        output=PipesOutput(stdout=stdout),
        exit_code=exit_code,
    )

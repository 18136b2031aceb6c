"""Run records for tests of the store, recovery and what keeps finished runs."""

from __future__ import annotations

import dataclasses
from typing import Any

from maka_runtime.resource.core import PipesOutput, ShellRunRecord


def run_record(ref_id: str, **changes: Any) -> ShellRunRecord:
    """A background pipes run of ``true`` with ref ``…/background-tasks/<ref_id>``, just
    admitted (``starting``, revision 1) in session ``session``; *changes* replace fields."""
    admitted = ShellRunRecord(
        ref=f"maka://runtime/background-tasks/{ref_id}",
        session_id="session",
        source_turn_id="turn-1",
        source_tool_call_id="call-1",
        kind="background",
        mode="pipes",
        command="true",
        cwd="/",
        timeout_ms=None,
        status="starting",
        revision=1,
        change_seq=0,
        created_at=1,
        updated_at=1,
        output=PipesOutput(),
    )
    return dataclasses.replace(admitted, **changes)


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
    """A foreground pipes run of ``true`` with ref ``…/background-tasks/<ref_id>``, ended."""
    return run_record(
        ref_id,
        session_id=session_id,
        source_turn_id="",
        source_tool_call_id="",
        kind="foreground",
        timeout_ms=1000,
        status=status,
        revision=3,
        change_seq=change_seq,
        updated_at=updated_at,
        output=PipesOutput(stdout=stdout),
        exit_code=exit_code,
    )

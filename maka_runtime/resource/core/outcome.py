"""How a run ended, as its terminal record: the one place that turns an exit status and the
host's reason for ending a run into a status, an exit code and a message."""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

from maka_runtime.resource.core.errors import InternalFailureError
from maka_runtime.resource.core.process import ExitStatus, signal_name
from maka_runtime.resource.core.records import ShellRunOutput, ShellRunRecord

__all__ = ["CANCELLED_MESSAGE", "TerminationReason", "final_record", "timed_out_message"]

#: Why the host ended a run (recorded before any signal is sent).
TerminationReason: TypeAlias = Literal["timed_out", "cancelled"]

CANCELLED_MESSAGE: Final = "Command cancelled"


def timed_out_message(timeout_ms: int) -> str:
    return f"Command timed out after {timeout_ms} ms"


def final_record(
    record: ShellRunRecord,
    *,
    output: ShellRunOutput,
    now: int,
    status: ExitStatus | None,
    reason: TerminationReason | None,
    start_error: BaseException | None,
) -> ShellRunRecord:
    """The terminal revision of *record*: could not start, timed out, cancelled, killed by a
    signal, or exited with a code (in that order of precedence)."""
    if start_error is not None:
        return record.finished(
            status="failed",
            now=now,
            output=output,
            message=f"Command could not start: {start_error}",
        )
    if reason is not None:
        return record.finished(
            status=reason,
            now=now,
            output=output,
            exit_code=124 if reason == "timed_out" else 130,
            signal=status.signal if status else None,
            message=timed_out_message(record.timeout_ms or 0)
            if reason == "timed_out"
            else CANCELLED_MESSAGE,
        )
    if status is None:
        raise InternalFailureError(f"{record.ref} ended without an exit status")
    if status.signal is not None:
        return record.finished(
            status="failed",
            now=now,
            output=output,
            exit_code=status.exit_code,
            signal=status.signal,
            message=f"Command terminated by {signal_name(status.signal)}",
        )
    return record.finished(
        status="completed" if status.exit_code == 0 else "failed",
        now=now,
        output=output,
        exit_code=status.exit_code,
    )

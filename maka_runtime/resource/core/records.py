"""Shell-run records: what a run is, as stored and as reported.

A record is immutable; every change produces a new record whose ``revision`` is one higher. The
store stamps each stored revision with ``change_seq``, a host-wide counter in commit order (the
order in which a session's watchers see changes). Once a record is terminal nothing about it
changes again.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from maka_runtime.resource.core.errors import InternalFailureError, InvalidRequestError
from maka_runtime.resource.core.output_counts import JournalSummary

__all__ = [
    "ACTIVE_STATUSES",
    "REF_PREFIX",
    "TERMINAL_STATUSES",
    "PipesOutput",
    "ProcessIdentity",
    "PtyOutput",
    "RunKind",
    "RunMode",
    "RunSandbox",
    "ShellRunOutput",
    "ShellRunRecord",
    "ShellRunStatus",
    "format_ref",
    "is_active_status",
    "parse_ref",
]

ShellRunStatus: TypeAlias = Literal[
    "starting", "running", "completed", "failed", "timed_out", "cancelled", "orphaned"
]
RunMode: TypeAlias = Literal["pipes", "pty"]
RunKind: TypeAlias = Literal["foreground", "background"]

ACTIVE_STATUSES: Final[frozenset[ShellRunStatus]] = frozenset({"starting", "running"})
TERMINAL_STATUSES: Final[frozenset[ShellRunStatus]] = frozenset(
    {"completed", "failed", "timed_out", "cancelled", "orphaned"}
)

REF_PREFIX: Final = "maka://runtime/background-tasks/"
_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


def is_active_status(status: ShellRunStatus) -> bool:
    """True for ``starting`` and ``running``: the run may still change."""
    return status in ACTIVE_STATUSES


def format_ref(run_id: str) -> str:
    """The ref of the run with id *run_id*."""
    if not _RUN_ID.fullmatch(run_id):
        raise ValueError(f"not a valid run id: {run_id!r}")
    return REF_PREFIX + run_id


def parse_ref(ref: str, *, field: str = "ref") -> str:
    """The run id inside *ref*; :class:`InvalidRequestError` naming *field* if malformed."""
    if not ref:
        raise InvalidRequestError("ref is required", field=field)
    limit = len(REF_PREFIX) + 128
    if len(ref.encode("utf-8", "surrogatepass")) > limit:
        raise InvalidRequestError(f"{field} is longer than {limit} bytes", field=field, limit=limit)
    if not ref.startswith(REF_PREFIX) or not _RUN_ID.fullmatch(ref[len(REF_PREFIX) :]):
        raise InvalidRequestError(
            f"malformed ref {ref[:80]!r}: expected {REF_PREFIX}<id>", field=field
        )
    return ref[len(REF_PREFIX) :]


@dataclass(frozen=True)
class PipesOutput:
    """Output of a pipes run: the retained tail of each stream."""

    stdout: str = ""
    stderr: str = ""
    #: True when older stdout was dropped to keep only the retained tail.
    stdout_truncated: bool = False
    stderr_truncated: bool = False

    @property
    def mode(self) -> Literal["pipes"]:
        return "pipes"


@dataclass(frozen=True)
class PtyOutput:
    """Output of a PTY run as a terminal shows it."""

    cols: int
    rows: int
    #: The visible rows, top to bottom, trailing blanks removed.
    screen: tuple[str, ...] = ()
    #: Rows that scrolled off the top, oldest first (bounded).
    scrollback: tuple[str, ...] = ()
    cursor_row: int = 0
    cursor_col: int = 0
    cursor_visible: bool = True
    #: True while a full-screen program has switched to the alternate screen.
    alternate_screen: bool = False

    @property
    def mode(self) -> Literal["pty"]:
        return "pty"

    def text(self) -> str:
        """Scrollback and screen as one text, oldest row first."""
        return "\n".join((*self.scrollback, *self.screen))


ShellRunOutput: TypeAlias = PipesOutput | PtyOutput


@dataclass(frozen=True)
class ProcessIdentity:
    """Which OS process a run started, precisely enough to never signal a recycled PID."""

    pid: int
    #: Start time in clock ticks since boot (field 22 of ``/proc/<pid>/stat``).
    start_time: int
    #: ``/proc/sys/kernel/random/boot_id`` at spawn; another boot means the process is gone.
    boot_id: str


@dataclass(frozen=True)
class RunSandbox:
    """How a run was confined: its boundary's profile and revision, and its containment."""

    #: ``read-only``, ``workspace-write`` or ``danger-full-access`` (no sandbox).
    profile: str
    #: The revision of the boundary the run carried (0: the default boundary).
    boundary_revision: int
    #: True when the run had the network.
    network: bool
    #: ``cgroup`` or ``process-group``.
    containment: str


@dataclass(frozen=True)
class ShellRunRecord:
    """One shell run. Times are milliseconds since the Unix epoch."""

    ref: str
    session_id: str
    source_turn_id: str
    source_tool_call_id: str
    kind: RunKind
    mode: RunMode
    command: str
    cwd: str
    #: The timeout that applies, or ``None`` for a background run without one.
    timeout_ms: int | None
    status: ShellRunStatus
    #: 1 when created, +1 per change.
    revision: int
    #: The host-wide change counter when this revision was stored (assigned by the store).
    change_seq: int
    created_at: int
    updated_at: int
    output: ShellRunOutput
    started_at: int | None = None
    ended_at: int | None = None
    exit_code: int | None = None
    #: The signal that ended the process, if one did.
    signal: int | None = None
    #: Why the run ended the way it did (timeout, cancellation, orphaning, start failure).
    message: str | None = None
    process: ProcessIdentity | None = None
    #: How the run is confined; ``None`` for runs recorded before sandboxing existed.
    sandbox: RunSandbox | None = None
    #: What the run's output journal kept (set on the terminal record; ``None`` before, and for
    #: runs recorded before journals existed).
    journal: JournalSummary | None = None

    @property
    def id(self) -> str:
        return self.ref[len(REF_PREFIX) :]

    @property
    def active(self) -> bool:
        return is_active_status(self.status)

    @property
    def duration_ms(self) -> int | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return self.ended_at - self.started_at

    def started(self, *, process: ProcessIdentity, now: int) -> ShellRunRecord:
        """The ``running`` revision: the process exists."""
        if self.status != "starting":
            raise InternalFailureError(f"{self.ref} cannot start from status {self.status}")
        return self._next(now, status="running", process=process, started_at=now)

    def finished(
        self,
        *,
        status: ShellRunStatus,
        now: int,
        output: ShellRunOutput,
        exit_code: int | None = None,
        signal: int | None = None,
        message: str | None = None,
    ) -> ShellRunRecord:
        """The terminal revision. Raises if the record is already terminal."""
        if is_active_status(status):
            raise InternalFailureError(f"{status} is not a terminal status")
        return self._next(
            now,
            status=status,
            output=output,
            exit_code=exit_code,
            signal=signal,
            message=message,
            ended_at=now,
        )

    def with_output(self, output: ShellRunOutput) -> ShellRunRecord:
        """This revision with a live view of its output (not a change: revision is kept)."""
        return dataclasses.replace(self, output=output)

    def with_journal(self, journal: JournalSummary) -> ShellRunRecord:
        """This (terminal) revision with what its journal kept (not a change either)."""
        return dataclasses.replace(self, journal=journal)

    def _next(self, now: int, **changes: object) -> ShellRunRecord:
        if not self.active:
            raise InternalFailureError(f"{self.ref} is {self.status}; terminal runs never change")
        return dataclasses.replace(
            self,
            revision=self.revision + 1,
            updated_at=now,
            **changes,  # type: ignore[arg-type]
        )

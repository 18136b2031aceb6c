"""The tool host protocol: where backends run shell commands (the resource service).

The kernel core never talks to the resource service itself; backends that run tools get a
:class:`ToolHost`, and the server layer supplies one that calls the resource service over gRPC
(see :mod:`maka_runtime.kernel.resource_link`). Every call carries a deadline; a host that cannot be
reached raises :class:`ToolHostUnavailableError`, which a turn reports as an ``error`` event and
ends ``failed``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Literal, Protocol, TypeAlias

from maka_runtime.kernel.core.boundary import Boundary
from maka_runtime.kernel.core.session import SessionHeader

log = logging.getLogger("maka_runtime.kernel.core")

RunStatusName = Literal[
    "starting", "running", "completed", "failed", "timed_out", "cancelled", "orphaned", "unknown"
]
ACTIVE_RUN_STATUSES = ("starting", "running")


class ToolHostError(Exception):
    """The tool host refused or failed a call (the message says why).

    ``reason`` is the host's stable error reason (e.g. ``SESSION_ARCHIVED``); ``error_code`` is
    the code of the ``error`` event a turn records when this ends it.
    """

    error_code = "resource_failed"

    def __init__(self, message: str, *, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        #: The run the call had started when the host failed after its start ("": none).
        self.run_ref = ""


class ToolHostUnavailableError(ToolHostError):
    """The tool host could not be reached in time (down, restarting or overloaded)."""

    error_code = "resource_unavailable"


@dataclass(frozen=True, kw_only=True, slots=True)
class RunSpec:
    """A command to run for a tool call."""

    session_id: str
    command: str
    cwd: str = ""
    turn_id: str = ""
    tool_call_id: str = ""
    #: ``None``: the host's default (two minutes for a foreground run, none for background).
    timeout_ms: int | None = None
    #: Background runs only: a PTY (a client can attach to it) instead of pipes.
    pty: bool = False
    #: Background PTY runs: (cols, rows).
    size: tuple[int, int] | None = None
    #: The execution boundary the run carries (``None``: the host's default).
    boundary: Boundary | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class RunInfo:
    """A run as the host reports it."""

    ref: str
    status: RunStatusName
    pid: int = 0
    exit_code: int | None = None
    signal: int | None = None
    #: Why the run ended the way it did (timeout, cancellation …), empty otherwise.
    message: str = ""
    #: The retained output (pipes: stdout then stderr tails; PTY: the screen text).
    output: str = ""

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_RUN_STATUSES


@dataclass(frozen=True, kw_only=True, slots=True)
class RunStarted:
    """A foreground run started: stop it with :meth:`ToolHost.stop_run` and this run."""

    run: RunInfo


@dataclass(frozen=True, kw_only=True, slots=True)
class RunOutput:
    """Output a foreground run produced: the bytes exactly as the program wrote them (the
    kernel's :mod:`~maka_runtime.kernel.core.tool_output` decodes and budgets them)."""

    data: bytes
    stream: Literal["stdout", "stderr"] = "stdout"

    @property
    def text(self) -> str:
        """The bytes decoded as UTF-8 on their own (a character split across chunks is not)."""
        return self.data.decode("utf-8", errors="replace")


@dataclass(frozen=True, kw_only=True, slots=True)
class RunGap:
    """Chunks of a foreground run's output the host dropped before the kernel read them."""

    stdout_bytes: int = 0
    stderr_bytes: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class RunEnded:
    """A foreground run's final state; always the last event."""

    run: RunInfo


RunEvent: TypeAlias = RunStarted | RunOutput | RunGap | RunEnded


@dataclass(frozen=True, kw_only=True, slots=True)
class HostShutdownReport:
    """What asking the host to shut down did."""

    reached: bool
    error: str = ""
    runs_ended: int = 0
    runs_unfinished: int = 0


class ToolHost(Protocol):
    """Runs shell commands for a session's tool calls."""

    @property
    def address(self) -> str: ...

    async def ensure_session(self, header: SessionHeader, *, wait: bool = True) -> None:
        """Make sure the host admits *header*'s session (registers it; cheap when known).

        With *wait*, a host that is not connected gets a moment to come back (a tool is about
        to run); without, an unconnected host fails at once (a best-effort notification).
        """
        ...

    async def archive_session(self, session_id: str, *, deleted: bool = False) -> list[RunInfo]:
        """Stop the session's runs and refuse its operations from now on."""
        ...

    def run_foreground(self, spec: RunSpec) -> AsyncIterator[RunEvent]:
        """Run over pipes: :class:`RunStarted`, output, then :class:`RunEnded`.

        Closing the iterator early cancels the run.
        """
        ...

    async def start_background(self, spec: RunSpec) -> RunInfo:
        """Start a background run (pipes or PTY); returns at once."""
        ...

    async def stop_run(self, session_id: str, ref: str) -> RunInfo:
        """Stop a run (TERM to its process group, grace, KILL); returns its final state."""
        ...

    async def shutdown(self) -> HostShutdownReport:
        """Ask the host to drain and exit (the shutdown cascade); never raises."""
        ...


ToolSessionAction: TypeAlias = Literal["register", "archive", "delete"]


async def tell_tool_host(
    host: ToolHost, session_id: str, action: ToolSessionAction, header: SessionHeader | None
) -> None:
    """Keep the tool host's view of the session in step (best effort: the kernel is the
    source of truth; a host that is down learns of an archive on its next call)."""
    try:
        if action == "register":
            assert header is not None
            await host.ensure_session(header, wait=False)
        else:
            stopped = await host.archive_session(session_id, deleted=action == "delete")
            if stopped:
                log.info(
                    "%s of session %s stopped %d run(s) on the resource service",
                    action,
                    session_id,
                    len(stopped),
                )
    except ToolHostError as error:
        log.warning("could not %s session %s on the tool host: %s", action, session_id, error)

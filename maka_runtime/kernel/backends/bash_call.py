"""One ``bash`` tool call and how it ended."""

from __future__ import annotations

from dataclasses import dataclass

from maka_runtime.kernel.core.boundary import Expansion
from maka_runtime.kernel.core.log.events import ToolResult
from maka_runtime.kernel.core.tools import RunInfo


class Stopped(Exception):
    """The turn was stopped: immediately, or ``after_step`` at a step boundary."""


class Denied(Exception):
    """A sandbox-boundary request was denied: the turn ends and nothing more runs."""

    def __init__(self, command: str) -> None:
        super().__init__(f"running {command!r} was denied")
        self.command = command


@dataclass(frozen=True, kw_only=True, slots=True)
class BashCall:
    """One ``bash`` tool call."""

    call_id: str
    command: str
    #: Start as a background run (the result reports its ref) instead of waiting for it.
    background: bool = False
    #: Background runs: a PTY (attachable) rather than pipes.
    pty: bool = True
    timeout_ms: int | None = None
    #: Why the agent wants to run it (shown in the sandbox-boundary request).
    reason: str = ""
    #: The working directory; empty: the session's.
    cwd: str = ""
    #: What the call declared it needs beyond the session's boundary (grant tokens).
    need: Expansion = ()
    #: Why it needs it (the sandbox-boundary request's justification).
    justification: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class BashOutcome:
    """How a bash tool call ended (the last event was its ``tool_result``)."""

    result: ToolResult
    run: RunInfo | None = None

    @property
    def cut_short(self) -> bool:
        return self.run is not None and self.run.status == "cancelled"

"""The processes of runs: spawning a command over pipes or a PTY, reading its output, and ending
its process group.

:class:`ProcessHandle` (``child.py``) is one spawned command, the leader of its own session and
process group; :class:`PipesProcess` and :class:`PtyProcess` are its two kinds. ``termination.py``
alone sends signals: the live kill sequence (TERM, grace, KILL), killing a child that could not
be set up, and the start-up sweep's killing of a dead host's leftovers.
"""

from maka_runtime.resource.core.process.child import (
    SHELL,
    ExitStatus,
    LeaderEndedError,
    OutputSink,
    ProcessHandle,
    child_environment,
)
from maka_runtime.resource.core.process.pipes import PipesProcess
from maka_runtime.resource.core.process.pty import MAX_PENDING_INPUT, PtyProcess
from maka_runtime.resource.core.process.termination import (
    RUN_MARKER_VARIABLE,
    ExitWatch,
    LeftoverCleanup,
    TerminationStep,
    kill_leftovers,
    signal_name,
    terminate_group,
)

__all__ = [
    "MAX_PENDING_INPUT",
    "RUN_MARKER_VARIABLE",
    "SHELL",
    "ExitStatus",
    "ExitWatch",
    "LeaderEndedError",
    "LeftoverCleanup",
    "OutputSink",
    "PipesProcess",
    "ProcessHandle",
    "PtyProcess",
    "TerminationStep",
    "child_environment",
    "kill_leftovers",
    "signal_name",
    "terminate_group",
]

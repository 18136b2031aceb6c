"""Running a command with its output on pipes (stdin is ``/dev/null``)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
from typing import TYPE_CHECKING

from maka_runtime.resource.core.process.child import OutputSink, ProcessHandle
from maka_runtime.resource.core.process.leader import Leader, start_leader
from maka_runtime.resource.core.process.termination import abandon_unstarted

if TYPE_CHECKING:
    from maka_runtime.resource.core.sandbox.launch import LaunchPlan

__all__ = ["PipesProcess"]

# A larger pipe buffer means fewer wake-ups per megabyte of output.
PIPE_SIZE = 1024 * 1024


class PipesProcess(ProcessHandle):
    """``bash -c command`` (as its launch plan starts it) with stdout and stderr on pipes."""

    def __init__(
        self,
        popen: Leader,
        stdout: int,
        stderr: int,
        sink: OutputSink,
        plan: LaunchPlan | None = None,
    ) -> None:
        super().__init__(popen, sink, plan)
        self._add_reader(stdout, "stdout")
        self._add_reader(stderr, "stderr")

    @classmethod
    def spawn(
        cls, command: str, *, cwd: str, plan: LaunchPlan, sink: OutputSink, gated: bool = False
    ) -> PipesProcess:
        """Start the command in a new session; raises ``OSError`` if it cannot start. A
        *gated* leader runs nothing of the command until :meth:`open_gate` (its stdin is the
        gate, then ``/dev/null``); if the gate closes first, it exits (code 125)."""
        # Every descriptor made so far is closed if a later one cannot be (EMFILE).
        ours: list[int] = []  # the host's ends
        theirs: list[int] = []  # the child's ends, closed once it has them
        try:
            out_r, out_w = _pipe(ours, theirs)
            err_r, err_w = _pipe(ours, theirs)
            gate_r, gate_w = _pipe(theirs, ours) if gated else (subprocess.DEVNULL, -1)
            for fd in (out_w, err_w):
                with contextlib.suppress(OSError):
                    fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
            popen = start_leader(
                plan.argv(command, gated=gated),
                stdin=gate_r,
                stdout=out_w,
                stderr=err_w,
                cwd=cwd,
                env=plan.env,
                cgroup=plan.entry_cgroup,
            )
        except BaseException:
            for fd in ours:
                os.close(fd)
            raise
        finally:
            for fd in theirs:
                os.close(fd)
        try:
            process = cls(popen, out_r, err_r, sink, plan)
        except BaseException:
            if gate_w >= 0:
                os.close(gate_w)
            abandon_unstarted(popen)
            raise
        process.gate = gate_w if gated else None
        return process


def _pipe(reads: list[int], writes: list[int]) -> tuple[int, int]:
    """A pipe whose ends are added to *reads* and *writes* at once."""
    read, write = os.pipe()
    reads.append(read)
    writes.append(write)
    return read, write

"""Running a command with its output on pipes (stdin is ``/dev/null``)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
from typing import TYPE_CHECKING

from maka_runtime.resource.core.process.child import OutputSink, ProcessHandle
from maka_runtime.resource.core.process.termination import abandon_unstarted

if TYPE_CHECKING:
    from maka_runtime.resource.core.sandbox.launch import LaunchPlan

__all__ = ["PipesProcess"]

# A larger pipe buffer means fewer wake-ups per megabyte of output.
_PIPE_SIZE = 1024 * 1024


class PipesProcess(ProcessHandle):
    """``bash -c command`` (as its launch plan starts it) with stdout and stderr on pipes."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        stdout: int,
        stderr: int,
        sink: OutputSink,
        plan: LaunchPlan | None = None,
    ) -> None:
        super().__init__(popen, sink, plan)
        self._add_reader(stdout, "stdout")
        self._add_reader(stderr, "stderr")

    @classmethod
    def spawn(cls, command: str, *, cwd: str, plan: LaunchPlan, sink: OutputSink) -> PipesProcess:
        """Start the command in a new session; raises ``OSError`` if it cannot start."""
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            for fd in (out_w, err_w):
                with contextlib.suppress(OSError):
                    fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
            popen = subprocess.Popen(
                plan.argv(command),
                stdin=subprocess.DEVNULL,
                stdout=out_w,
                stderr=err_w,
                cwd=cwd,
                env=plan.env,
                start_new_session=True,
                close_fds=True,
            )
        except BaseException:
            os.close(out_r)
            os.close(err_r)
            raise
        finally:
            os.close(out_w)
            os.close(err_w)
        try:
            return cls(popen, out_r, err_r, sink, plan)
        except BaseException:
            abandon_unstarted(popen)
            raise

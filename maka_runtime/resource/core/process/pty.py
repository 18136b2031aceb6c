"""Running a command on a pseudo-terminal.

The child gets ``TERM=xterm-256color`` and the requested window size before it executes, so
``stty size`` is right from its first line. The master is read through the event loop (``EIO``
means end of file) and written without ever blocking the loop: input the program has not yet
consumed waits in a bounded buffer.

Why not ``ptyprocess``: it forks and then runs Python code in the child. In a process with
gRPC threads that is unsafe (the child runs gRPC's at-fork handlers against state other threads
were changing; we saw it crash). Instead the child is started like a pipes run, by
``subprocess`` (``vfork``/``exec``, no Python between them), as the leader of a new session with
the PTY slave as stdio, and a tiny ``/bin/sh`` prologue (``sandbox/launch.py``) opens the slave
by name: a session leader without a controlling terminal that opens a terminal acquires it.
Then it ``exec``s the sandbox and the command's shell under the same PID, so Ctrl-C, job control
and ``/dev/tty`` work as in a real terminal.
"""

from __future__ import annotations

import errno
import fcntl
import os
import struct
import termios
from typing import TYPE_CHECKING, Final

from maka_runtime.resource.core.errors import ResourceExhaustedError, ShellRunPtyControlClosedError
from maka_runtime.resource.core.process.child import OutputSink, ProcessHandle
from maka_runtime.resource.core.process.leader import Leader, start_leader
from maka_runtime.resource.core.process.termination import abandon_unstarted

if TYPE_CHECKING:
    from maka_runtime.resource.core.sandbox.launch import LaunchPlan

__all__ = ["MAX_PENDING_INPUT", "PtyProcess"]

#: Input accepted but not yet written to the PTY; beyond this, input is refused.
MAX_PENDING_INPUT: Final = 1024 * 1024


def _set_window_size(fd: int, cols: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class PtyProcess(ProcessHandle):
    """``bash -c command`` as the session leader of a new PTY."""

    def __init__(
        self,
        popen: Leader,
        master: int,
        sink: OutputSink,
        plan: LaunchPlan | None = None,
    ) -> None:
        super().__init__(popen, sink, plan)
        self._fd = master
        self._pending = bytearray()
        self._writing = False
        self._input_closed = False
        self._fd_closed = False
        self._add_reader(master, "pty")

    @classmethod
    def spawn(
        cls,
        command: str,
        *,
        cwd: str,
        plan: LaunchPlan,
        cols: int,
        rows: int,
        sink: OutputSink,
        gated: bool = False,
    ) -> PtyProcess:
        """Start the command; raises ``OSError`` if it cannot start. A *gated* leader runs
        nothing of the command until :meth:`open_gate` (its stdin is the gate, then the
        terminal); if the gate closes first, it exits (code 125)."""
        master, slave = os.openpty()  # both close-on-exec; the child gets the slave as stdio
        gate_r = gate_w = -1
        try:
            _set_window_size(master, cols, rows)
            if gated:
                gate_r, gate_w = os.pipe()
            popen = start_leader(
                plan.argv(command, tty=os.ttyname(slave), gated=gated),
                stdin=gate_r if gated else slave,
                stdout=slave,
                stderr=slave,
                cwd=cwd,
                env=plan.env,
                cgroup=plan.entry_cgroup,
            )
        except BaseException:
            for fd in (master, gate_w):
                if fd >= 0:
                    os.close(fd)
            raise
        finally:
            for fd in (slave, gate_r):
                if fd >= 0:
                    os.close(fd)
        try:
            process = cls(popen, master, sink, plan)
        except BaseException:
            if gate_w >= 0:
                os.close(gate_w)
            abandon_unstarted(popen)
            os.close(master)
            raise
        process.gate = gate_w if gated else None
        return process

    @property
    def input_closed(self) -> bool:
        return self._input_closed

    def write(self, data: bytes) -> None:
        """Queue *data* for the program; never blocks."""
        if self._input_closed:
            raise ShellRunPtyControlClosedError("the terminal has closed")
        if len(self._pending) + len(data) > MAX_PENDING_INPUT:
            raise ResourceExhaustedError(
                f"the program has not read {len(self._pending)} bytes of earlier input; "
                "wait for it to catch up"
            )
        self._pending += data
        self._flush()

    def resize(self, cols: int, rows: int) -> None:
        if self._input_closed:
            raise ShellRunPtyControlClosedError("the terminal has closed")
        _set_window_size(self._fd, cols, rows)

    def close_input(self) -> None:
        """Refuse further input and drop what was not written (the run is ending)."""
        self._input_closed = True
        self._pending.clear()
        self._stop_writing()

    def _flush(self) -> None:
        while self._pending:
            try:
                written = os.write(self._fd, self._pending)
            except BlockingIOError:
                break
            except OSError as error:
                if error.errno not in (errno.EIO, errno.EBADF):
                    raise
                self.close_input()
                return
            del self._pending[:written]
        if self._pending and not self._writing:
            self._loop.add_writer(self._fd, self._flush)
            self._writing = True
        elif not self._pending:
            self._stop_writing()

    def _stop_writing(self) -> None:
        if self._writing:
            self._loop.remove_writer(self._fd)
            self._writing = False

    def _on_reader_closed(self, fd: int) -> None:
        # The master stays open for writing until close().
        pass

    def close(self) -> None:
        self.close_input()
        super().close()
        if not self._fd_closed:
            self._fd_closed = True
            os.close(self._fd)

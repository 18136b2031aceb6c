"""What pipes and PTY children share: identity, exit watch, and readers that always drain."""

from __future__ import annotations

import array
import asyncio
import errno
import fcntl
import functools
import os
import select
import termios
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from maka_runtime.common.aio import race
from maka_runtime.resource.core.errors import InternalFailureError
from maka_runtime.resource.core.output import OutputStream
from maka_runtime.resource.core.process import procfs as _procfs
from maka_runtime.resource.core.process.termination import (
    RUN_MARKER_VARIABLE,
    ExitWatch,
    kill_group,
    pin_process,
    signal_group,
)
from maka_runtime.resource.core.records import ProcessIdentity

if TYPE_CHECKING:
    from maka_runtime.resource.core.process.leader import Leader
    from maka_runtime.resource.core.sandbox.launch import LaunchPlan

__all__ = [
    "SHELL",
    "ExitStatus",
    "LeaderEndedError",
    "OutputSink",
    "ProcessHandle",
    "child_environment",
]

SHELL: Final = "/bin/bash"
_READ_SIZE: Final = 256 * 1024
_MAX_SIGNAL: Final = 64
#: What opens a gated leader's gate (see ``PipesProcess.spawn``).
#: What opens a gate.
GO: Final = b"go\n"

OutputSink = Callable[[OutputStream, bytes], None]


@dataclass(frozen=True)
class ExitStatus:
    """How the leader ended: an exit code, or the signal that killed it (code 128 + signal)."""

    exit_code: int
    signal: int | None = None

    @classmethod
    def from_wait_status(cls, code: int | None, sig: int | None) -> ExitStatus:
        if sig is not None:
            return cls(128 + sig, sig)
        if code is None:
            raise InternalFailureError("child reaped without an exit status")
        return cls(code)


class LeaderEndedError(Exception):
    """A gated leader ended before its gate: nothing of its command ran (see
    :meth:`ProcessHandle.ended_before_command`)."""

    def __init__(self, status: ExitStatus) -> None:
        if status.signal is not None:
            how = f"it was killed by signal {status.signal}"
        elif status.exit_code == 125:
            how = "exit code 125: it could not join the run's cgroup"
        else:
            how = f"exit code {status.exit_code}"
        super().__init__(f"its process ended before the command started ({how})")
        self.status = status


def child_environment(
    base: Mapping[str, str], overrides: Mapping[str, str], run_id: str, *, pty: bool
) -> dict[str, str]:
    env = dict(base)
    env.update(overrides)
    if pty:
        env["TERM"] = "xterm-256color"
        env.pop("COLUMNS", None)
        env.pop("LINES", None)
    env[RUN_MARKER_VARIABLE] = run_id
    return env


class ProcessHandle:
    """A spawned command: leader of its own session and process group.

    Children are started by :mod:`subprocess` (``vfork``/``exec`` in C, no Python code in the
    child), which is safe in a process with gRPC threads, and reaped only through
    :meth:`reap`, after the kill sequence is done with their group.

    Readers are registered with the event loop and read as soon as data is ready, whatever
    consumers do, so the child never blocks on a full pipe because of the host.
    """

    def __init__(self, popen: Leader, sink: OutputSink, plan: LaunchPlan | None = None) -> None:
        pid = popen.pid
        #: The run's own cgroup (``None``: contained by its process group only).
        self.cgroup = plan.cgroup if plan is not None else None
        # bubblewrap reports a command killed by signal N as exit code 128 + N.
        self._signal_from_code = plan is not None and plan.sandboxed
        self.pid = pid
        self._popen = popen
        self._loop = asyncio.get_running_loop()
        self._sink = sink
        self._readers: dict[int, OutputStream] = {}
        self._output_eof = asyncio.Event()
        self._output_eof.set()
        self.exit_watch = ExitWatch(pid)
        self._reaped: ExitStatus | None = None
        #: The write end of a gated leader's gate (``None``: not gated, or no longer).
        self.gate: int | None = None
        # The gate's write end once "go" was written, kept until the leader has exited: what
        # the leader left unread in it says whether it ever got past its gate.
        self._opened_gate: int | None = None
        self._gate_refused = False

    @functools.cached_property
    def identity(self) -> ProcessIdentity:
        """The leader's PID, start time and boot, read from ``/proc`` when first asked for (the
        ``running`` record): right after the spawn, a read of ``/proc/<pid>/stat`` can wait
        for the child's move into its cgroup, on the event loop. The leader is unreaped until
        after that record, so ``/proc/<pid>`` is still its own even if it has exited."""
        stat = _procfs.read_stat(self.pid)
        return ProcessIdentity(
            pid=self.pid, start_time=stat.start_time if stat else 0, boot_id=_procfs.boot_id()
        )

    @property
    def exited(self) -> bool:
        return self.exit_watch.is_set()

    def open_gate(self) -> None:
        """Let a gated leader run the command (see ``PipesProcess.spawn``). A leader that has
        already ended (its cgroup refused it) is not an error here: its exit is seen as usual,
        and :meth:`ended_before_command` tells it apart from the command's own."""
        gate, self.gate = self.gate, None
        if gate is None:
            return
        try:
            os.write(gate, GO)
        except BrokenPipeError:
            self._gate_refused = True  # it has already ended, before reading its gate
            os.close(gate)
        else:
            self._opened_gate = gate

    def adopt_gate(self, gate: int, *, refused: bool) -> None:
        """Take the write end of a gate opened before this handle existed (a leader created
        off the loop, ``gated.py``); *refused*: it had ended before "go" could be written."""
        if refused:
            self._gate_refused = True
            os.close(gate)
        elif gate >= 0:
            self._opened_gate = gate

    def ended_before_command(self) -> bool:
        """Whether this exited, gated leader ended before it passed its gate: then nothing of
        its command ran (its cgroup refused it, or it was killed first), whatever its exit
        status says. ``False`` for an ungated leader or one that read its gate."""
        if not self.exited:
            raise InternalFailureError("ended_before_command needs an exited leader")
        if self._gate_refused:
            return True
        if self._opened_gate is None:
            return False
        unread = array.array("i", [0])
        try:
            fcntl.ioctl(self._opened_gate, termios.FIONREAD, unread)
        except OSError:
            return False
        return unread[0] == len(GO)

    def close_gate(self) -> None:
        """End a gated leader at its gate, before anything of the command ran (and release an
        opened gate's write end)."""
        for gate in (self.gate, self._opened_gate):
            if gate is not None:
                os.close(gate)
        self.gate = self._opened_gate = None

    @property
    def reaped(self) -> bool:
        return self._reaped is not None

    def _add_reader(self, fd: int, stream: OutputStream) -> None:
        os.set_blocking(fd, False)
        self._readers[fd] = stream
        self._output_eof.clear()
        self._loop.add_reader(fd, self._on_readable, fd)

    def _on_readable(self, fd: int) -> None:
        stream = self._readers.get(fd)
        if stream is None:
            return
        # Read what is ready now, up to _READ_SIZE, as one chunk: a PTY hands out at most
        # about 4 KiB per read, and each chunk costs the log, the journal, the screen and
        # every follower a step, so a flood becomes a few large chunks instead of many small.
        pieces: list[bytes] = []
        size = 0
        eof = False
        while size < _READ_SIZE:
            try:
                data = os.read(fd, _READ_SIZE - size)
            except BlockingIOError:
                break
            except OSError as error:
                # EIO on a PTY master means every slave end is closed: end of file.
                if error.errno != errno.EIO:
                    raise
                data = b""
            if not data:
                eof = True
                break
            pieces.append(data)
            size += len(data)
        if pieces:
            self._sink(stream, pieces[0] if len(pieces) == 1 else b"".join(pieces))
        if eof:
            self._close_reader(fd)

    def _close_reader(self, fd: int) -> None:
        if self._readers.pop(fd, None) is None:
            return
        self._loop.remove_reader(fd)
        self._on_reader_closed(fd)
        if not self._readers:
            self._output_eof.set()

    def _on_reader_closed(self, fd: int) -> None:
        os.close(fd)

    async def wait_output_eof(self, within: float) -> bool:
        """Wait for end of file on every output fd; ``False`` if *within* seconds pass first."""
        if not self._output_eof.is_set():
            await race(self._output_eof.wait(), within=within)
        return self._output_eof.is_set()

    def drain_ready_output(self) -> None:
        """Read whatever is already buffered on each output fd, without waiting."""
        for fd in list(self._readers):
            for _ in range(64):
                if fd not in self._readers or not _readable(fd):
                    break
                self._on_readable(fd)

    def kill_leftovers(self) -> None:
        """SIGKILL what remains of the group once the leader has exited (still unreaped, so
        the group id cannot have been recycled)."""
        if not self.exited or self._reaped is not None:
            raise InternalFailureError("kill_leftovers needs an exited, unreaped leader")
        self.kill_all()

    def kill_all(self) -> None:
        """SIGKILL the process group, and everything in the run's cgroup (wherever it went)."""
        kill_group(self.pid)
        if self.cgroup is not None:
            self.cgroup.kill()

    async def release_cgroup(self, within: float) -> bool:
        """Once the leader is reaped: kill what is left in the run's cgroup, wait until it is
        empty (up to *within* seconds) and remove it; ``False`` if something survived."""
        if self.cgroup is None:
            return await _group_ended(self.pid, within)
        killed = self.cgroup.kill()
        # An empty cgroup may still have members killed earlier that have not quite exited.
        if (killed or self.cgroup.pinned) and not await self.cgroup.wait_empty(within):
            return False
        return self.cgroup.remove()

    async def kill(self, within: float) -> None:
        """SIGKILL the group now, reap the leader once it exits (within *within* seconds) and
        release everything: for a process whose run can no longer be recorded."""
        if self.reaped:
            self.close()
            return
        if not self.exited:
            self.kill_all()
            await asyncio.shield(self.exit_watch.wait(within))
        if self.exited:
            self.kill_leftovers()
            self.reap()
            await self.release_cgroup(within)
        self.close()

    def reap(self) -> ExitStatus:
        """Collect the leader's exit status (once it has exited)."""
        if self._reaped is None:
            self._reaped = self._reap()
            self.exit_watch.close()
        return self._reaped

    def _reap(self) -> ExitStatus:
        code = self._popen.poll()
        if code is None:
            code = self._popen.wait()
        if code < 0:
            return ExitStatus.from_wait_status(None, -code)
        if self._signal_from_code and 128 < code <= 128 + _MAX_SIGNAL:
            return ExitStatus.from_wait_status(None, code - 128)
        return ExitStatus.from_wait_status(code, None)

    def close(self) -> None:
        """Stop reading and release file descriptors; idempotent."""
        self.close_gate()
        for fd in list(self._readers):
            self._close_reader(fd)
        self.exit_watch.close()


async def _group_ended(pgid: int, within: float) -> bool:
    """Wait (up to *within* seconds) until no process of group *pgid* is still running: without
    a cgroup, this is how a sandboxed run's end waits for its PID namespace, whose init is in the
    group and ends only once the kernel has ended every process of the namespace.

    The kernel offers no wait for a group, but one for a process: each round finds the group's
    running members in ``/proc``, pins each with a pidfd and waits until every one has exited
    (readable pidfds on the event loop), then looks again, since a member may have started
    another before it ended. No round sleeps; a group that is gone ends the wait at once."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while signal_group(pgid, 0):
        members = _running_members(pgid)
        if not members:
            return True
        try:
            if not await _all_exited(loop, members, deadline - loop.time()):
                return False
        finally:
            for pidfd in members:
                os.close(pidfd)
    return True


def _running_members(pgid: int) -> list[int]:
    """Pidfds of the running (not zombie) processes of group *pgid*."""
    pinned = []
    for pid in _procfs.iter_pids():
        stat = _procfs.read_stat(pid)
        if stat is not None and stat.pgid == pgid and not stat.zombie:
            pidfd = pin_process(stat)
            if pidfd is not None:
                pinned.append(pidfd)
    return pinned


async def _all_exited(loop: asyncio.AbstractEventLoop, pidfds: list[int], within: float) -> bool:
    """Whether every process of *pidfds* exited within *within* seconds."""
    if within <= 0:
        return False
    waiting = set(pidfds)
    done: asyncio.Future[None] = loop.create_future()

    def exited(pidfd: int) -> None:
        loop.remove_reader(pidfd)
        waiting.discard(pidfd)
        if not waiting and not done.done():
            done.set_result(None)

    for pidfd in pidfds:
        loop.add_reader(pidfd, exited, pidfd)
    try:
        return await race(done, within=within) == 0
    finally:
        for pidfd in waiting:
            loop.remove_reader(pidfd)


def _readable(fd: int) -> bool:
    """Whether a read of *fd* would not block now (data, end of file, an error: a read says
    which). poll, not select: a descriptor may be numbered past select's 1024."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))

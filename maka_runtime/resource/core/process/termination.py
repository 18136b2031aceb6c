"""Ending process groups: the live kill sequence and the start-up cleanup of leftovers.

Every run's command is the leader of its own session and process group, and the host only reaps
the leader *after* it has finished signalling the group: while the leader is an unreaped zombie
its PID (and so the group id) cannot be recycled, which makes ``killpg`` on it safe. Leftovers of
a previous host are a different matter: their PIDs may have been recycled, so each candidate is
identified by its start time or an environment marker, pinned with a pidfd, re-checked, and only
then signalled through the pidfd.

Only ``ESRCH`` (the process is already gone) is tolerated when signalling. This module is the
only one that sends signals: the process handles, the run lifecycle and the start-up sweep all
signal through it.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from maka_runtime.common.aio import race
from maka_runtime.resource.core.process import procfs as _procfs
from maka_runtime.resource.core.records import ProcessIdentity

if TYPE_CHECKING:
    from maka_runtime.resource.core.process.leader import Leader

__all__ = [
    "RUN_MARKER_VARIABLE",
    "ExitWatch",
    "LeftoverCleanup",
    "TerminationStep",
    "abandon_unstarted",
    "kill_group",
    "kill_leftovers",
    "pin_process",
    "signal_group",
    "signal_name",
    "terminate_group",
]

log = logging.getLogger(__name__)

#: Every run's environment carries ``MAKA_SHELL_RUN_ID=<run id>``; a later host uses it to
#: recognise the run's processes (even ones that left its process group) without trusting PIDs.
RUN_MARKER_VARIABLE = "MAKA_SHELL_RUN_ID"


class TerminationStep(enum.Enum):
    """Which step of the kill sequence ended the process."""

    EXITED = "exited"  # it had ended before any signal was sent
    TERM = "term"  # it ended within the grace period after SIGTERM
    KILL = "kill"  # it needed SIGKILL
    SURVIVED = "survived"  # it was still there after SIGKILL and the verification timeout


def signal_group(pgid: int, sig: int) -> bool:
    """Send *sig* to process group *pgid*; ``False`` if the group no longer exists."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    return True


def kill_group(pgid: int) -> bool:
    """SIGKILL process group *pgid*; ``False`` if the group no longer exists."""
    return signal_group(pgid, signal.SIGKILL)


def abandon_unstarted(popen: Leader) -> None:
    """Kill and reap a child whose handle could not be set up (it never ran as a run)."""
    kill_group(popen.pid)
    popen.wait()


def signal_name(number: int) -> str:
    """``SIGTERM`` for 15; ``signal 99`` for a number that names no signal."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class ExitWatch:
    """Becomes set when a child process exits, without reaping it.

    Uses a pidfd registered with the event loop; where pidfds are unavailable a daemon thread
    waits with ``waitid(WEXITED | WNOWAIT)``, which also leaves the child unreaped.
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._loop = asyncio.get_running_loop()
        self._exited = asyncio.Event()
        self._pidfd: int | None = None
        try:
            self._pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            thread = threading.Thread(target=self._wait_in_thread, daemon=True)
            thread.start()
        else:
            self._loop.add_reader(self._pidfd, self._on_exit)

    def is_set(self) -> bool:
        return self._exited.is_set()

    async def wait(self, within: float | None = None) -> bool:
        """Wait for the exit; ``False`` if *within* seconds pass first."""
        if within is None:
            await self._exited.wait()
        elif not self._exited.is_set():
            await race(self._exited.wait(), within=within)
        return self._exited.is_set()

    def close(self) -> None:
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None

    def _on_exit(self) -> None:
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
        self._exited.set()

    def _wait_in_thread(self) -> None:
        with contextlib.suppress(ChildProcessError):
            os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOWAIT)
        with contextlib.suppress(RuntimeError):  # the loop has closed
            self._loop.call_soon_threadsafe(self._exited.set)


async def terminate_group(
    pgid: int,
    exited: ExitWatch,
    *,
    grace: float,
    kill_timeout: float,
    hurry: asyncio.Event | None = None,
    kill: Callable[[], object] | None = None,
) -> TerminationStep:
    """TERM (and CONT, so a stopped group can act on it) to the group, wait up to *grace*,
    then KILL and wait up to *kill_timeout* for the leader to exit. Setting *hurry* ends the
    grace period at once (the host has no more time to give).

    The caller must not reap the leader until this returns or the watch is set. *kill*, when
    given, is the KILL step instead of SIGKILL to the group (the run's cgroup as well).
    """
    if exited.is_set():
        return TerminationStep.EXITED
    signal_group(pgid, signal.SIGTERM)
    signal_group(pgid, signal.SIGCONT)
    if await _exits_within(exited, grace, hurry):
        return TerminationStep.TERM
    if kill is None:
        kill_group(pgid)
    else:
        kill()
    if await exited.wait(kill_timeout):
        return TerminationStep.KILL
    return TerminationStep.SURVIVED


async def _exits_within(exited: ExitWatch, grace: float, hurry: asyncio.Event | None) -> bool:
    """Wait up to *grace* for the exit, or until *hurry* is set; ``True`` if it exited."""
    if hurry is None:
        return await exited.wait(grace)
    if hurry.is_set():
        return exited.is_set()
    await race(exited.wait(grace), hurry.wait())
    return exited.is_set()


@dataclass(frozen=True)
class LeftoverCleanup:
    """What the start-up sweep did about one dead run's processes."""

    #: PIDs that were signalled with SIGKILL.
    killed: tuple[int, ...] = ()
    #: PIDs still alive after SIGKILL and the timeout.
    survived: tuple[int, ...] = ()
    #: True when the recorded PID belongs to another process now (recycled) and was left alone.
    pid_reused: bool = False


def kill_leftovers(
    identity: ProcessIdentity | None, run_id: str, *, timeout: float
) -> LeftoverCleanup:
    """Kill whatever is left of a run whose host died. Blocking; run it off the event loop.

    A process is the run's if it is in the group of the recorded leader *and* that leader is
    still the recorded process (same boot, same start time), or if its environment carries the
    run's marker. A recorded PID that now names another process is never signalled.
    """
    marker = f"{RUN_MARKER_VARIABLE}={run_id}".encode()
    group: int | None = None
    pid_reused = False
    if identity is not None and identity.boot_id == _procfs.boot_id():
        leader = _procfs.read_stat(identity.pid)
        if leader is not None:
            if leader.start_time == identity.start_time:
                group = identity.pid
            else:
                pid_reused = True

    pinned: dict[int, int] = {}
    try:
        for pid in _procfs.iter_pids():
            if pid == os.getpid():
                continue
            stat = _procfs.read_stat(pid)
            if stat is None or stat.zombie:
                continue
            if not ((group is not None and stat.pgid == group) or _procfs.environ_has(pid, marker)):
                continue
            pidfd = pin_process(stat)
            if pidfd is not None:
                pinned[pid] = pidfd
        for pidfd in pinned.values():
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        survived = _wait_pidfds(pinned, timeout)
    finally:
        for pidfd in pinned.values():
            os.close(pidfd)
    return LeftoverCleanup(
        killed=tuple(sorted(pinned)), survived=tuple(sorted(survived)), pid_reused=pid_reused
    )


def pin_process(stat: _procfs.ProcStat) -> int | None:
    """A pidfd for exactly the process *stat* describes, or ``None`` if it is gone."""
    try:
        pidfd = os.pidfd_open(stat.pid)
    except ProcessLookupError:
        return None
    again = _procfs.read_stat(stat.pid)
    if again is None or again.start_time != stat.start_time:
        # The PID was recycled between reading /proc and opening the pidfd.
        os.close(pidfd)
        return None
    return pidfd


def _wait_pidfds(pidfds: dict[int, int], timeout: float) -> set[int]:
    """Wait until every pinned process has exited; return the PIDs that have not."""
    remaining = dict(pidfds)
    deadline = time.monotonic() + timeout
    poller = select.poll()
    by_fd = {fd: pid for pid, fd in remaining.items()}
    for fd in by_fd:
        poller.register(fd, select.POLLIN)
    while by_fd:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        for fd, _ in poller.poll(left * 1000):
            poller.unregister(fd)
            del by_fd[fd]
    if by_fd:
        log.error("processes survived SIGKILL: %s", sorted(by_fd.values()))
    return set(by_fd.values())

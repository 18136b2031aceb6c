"""A pipes run's leader created off the event loop, waiting at its gate, with no shell.

Where a run's leader is created inside its cgroup (``leader.py``), the native spawner can also
read the gate and leave bubblewrap's signals ignored, the two things the ``/bin/sh`` prologue
is otherwise there for (``sandbox/launch.py``); the leader is then bubblewrap itself (or
``bash`` outside a sandbox), one ``exec`` less per run, about a millisecond here. The spawner's
thread waits until the child has passed its gate and executed, so the start is made on a
thread of :data:`_STARTS`, never on the event loop: the loop opens the gate once the run's
``starting`` record is committed, and the thread comes back with the leader.

What a gated leader guarantees is unchanged: nothing of the command runs before ``go`` is
written to its gate; end of file instead (the record was refused, the run stopped, the host
died) ends it with 125 at its gate.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import os
import queue
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeVar

from maka_runtime.common.aio import settle
from maka_runtime.resource.core.process.child import GO, OutputSink, ProcessHandle
from maka_runtime.resource.core.process.leader import ClonedLeader, clone_into
from maka_runtime.resource.core.process.pipes import PIPE_SIZE, PipesProcess
from maka_runtime.resource.core.process.termination import abandon_unstarted

if TYPE_CHECKING:
    from maka_runtime.resource.core.sandbox.launch import LaunchPlan

__all__ = ["Gated", "GatedStart", "opened"]

_T = TypeVar("_T")

#: Most leaders being created at once (each holds a thread until it has passed its gate);
#: another waits for a thread, and then passes its gate, or ends at it, at once.
MAX_STARTING: Final = 64


class _Starts:
    """Daemon threads, made as needed up to *most* and kept, that run the starts: unlike a
    ``ThreadPoolExecutor``'s, a thread still waiting for a child cannot hold up the
    service's exit (which closes every gate, and so ends every child at its gate)."""

    def __init__(self, most: int) -> None:
        self._most = most
        self._jobs: queue.SimpleQueue[tuple[asyncio.AbstractEventLoop, asyncio.Future[Any],
                                            Callable[[], Any]]] = queue.SimpleQueue()  # fmt: skip
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0

    def submit(self, work: Callable[[], _T]) -> asyncio.Future[_T]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[_T] = loop.create_future()
        with self._lock:
            if self._idle == 0 and self._threads < self._most:
                self._threads += 1
                name = f"run-start-{self._threads}"
                threading.Thread(target=self._serve, name=name, daemon=True).start()
            self._jobs.put((loop, future, work))
        return future

    def _serve(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            loop, future, work = self._jobs.get()
            with self._lock:
                self._idle -= 1
            try:
                outcome: tuple[Any, BaseException | None] = (work(), None)
            except BaseException as error:  # handed to the caller
                outcome = (None, error)
            with contextlib.suppress(RuntimeError):  # its loop is closed: nobody waits
                loop.call_soon_threadsafe(settle, future, *outcome)


_STARTS = _Starts(MAX_STARTING)


def _start(theirs: tuple[int, ...], **arguments: object) -> ClonedLeader:
    """On a thread of :data:`_STARTS`: create the leader (back once it is past its gate)."""
    try:
        return clone_into(**arguments)  # type: ignore[arg-type]
    finally:
        for fd in theirs:
            os.close(fd)


class GatedStart:
    """A pipes run's leader on its way: :meth:`open_gate`, then :meth:`started` gives its
    :class:`PipesProcess`; or :meth:`abandon` ends it (at its gate if it is still there)."""

    def __init__(
        self,
        starting: asyncio.Future[ClonedLeader],
        fds: tuple[int, int, int],
        sink: OutputSink,
        plan: LaunchPlan,
    ) -> None:
        self._starting = starting
        self._out, self._err, self._gate = fds
        self._sink = sink
        self._plan = plan
        self._opened = False
        #: The leader had ended before "go" could be written (it never passed its gate).
        self._refused = False

    @classmethod
    def begin(cls, command: str, *, cwd: str, plan: LaunchPlan, sink: OutputSink) -> GatedStart:
        """Start creating ``command``'s leader as :meth:`LaunchPlan.direct_argv` gives it."""
        assert plan.entry_cgroup is not None
        ours: list[int] = []  # the host's ends
        theirs: list[int] = []  # the child's ends, closed by the thread once it has them
        try:
            for reads, writes in ((ours, theirs), (ours, theirs), (theirs, ours)):
                read, write = os.pipe()
                reads.append(read)
                writes.append(write)
            for fd in theirs[:2]:
                with contextlib.suppress(OSError):
                    fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
            work = functools.partial(
                _start,
                tuple(theirs),
                argv=plan.direct_argv(command),
                cgroup=plan.entry_cgroup,
                stdio=(theirs[2], theirs[0], theirs[1]),
                cwd=cwd,
                env=plan.env,
                gated=True,
                ignored=plan.ignored_signals,
            )
            starting = _STARTS.submit(work)
        except BaseException:
            for fd in (*ours, *theirs):
                os.close(fd)
            raise
        return cls(starting, (ours[0], ours[1], ours[2]), sink, plan)

    def open_gate(self) -> None:
        """Let the leader run the command."""
        if self._opened:
            return
        self._opened = True
        try:
            os.write(self._gate, GO)
        except BrokenPipeError:
            self._refused = True  # it has already ended, before reading its gate

    async def started(self) -> PipesProcess:
        """The leader's process, once it has passed its gate and executed (or ended); raises
        ``OSError`` if it could not start (then nothing of it is left, its cgroup removed)."""
        try:
            leader = await asyncio.shield(self._starting)
        except BaseException as error:
            if isinstance(error, asyncio.CancelledError):
                await self.abandon()
            else:
                self._release(None)
            raise
        return self._process(leader)

    async def abandon(self, within: float = 5.0) -> None:
        """End the leader: at its gate if the gate is not open yet, else killed (and reaped,
        its cgroup released)."""
        process = await self.stopped()
        if process is not None:
            await process.kill(within)

    async def stopped(self) -> PipesProcess | None:
        """Close the gate if it is not open yet (a leader still at it ends there) and wait for
        the thread: the leader's process, to be ended and released by the caller (``None``:
        it never started, nothing is left of it)."""
        if not self._opened:
            self._opened = True
            os.close(self._gate)
            self._gate = -1
        try:
            leader = await asyncio.shield(self._starting)
        except Exception:
            self._release(None)
            return None
        return self._process(leader)

    def _process(self, leader: ClonedLeader) -> PipesProcess:
        try:
            process = PipesProcess(leader, self._out, self._err, self._sink, self._plan)
        except BaseException:
            self._release(leader)
            raise
        process.adopt_gate(self._gate, refused=self._refused)
        return process

    def _release(self, leader: ClonedLeader | None) -> None:
        """Close the host's ends and remove the cgroup of a leader that did not start (a
        *leader* that did is killed and reaped first)."""
        for fd in (self._out, self._err, self._gate):
            if fd >= 0:
                os.close(fd)
        self._out = self._err = self._gate = -1
        if leader is not None:
            abandon_unstarted(leader)
        if self._plan.cgroup is not None:
            self._plan.cgroup.remove()


#: A gated leader: started (its handle), or on its way (created off the loop).
Gated = ProcessHandle | GatedStart


async def opened(gated: Gated) -> ProcessHandle:
    """Open *gated*'s gate; its handle, once it has passed it (or could not start: raises)."""
    gated.open_gate()
    return await gated.started() if isinstance(gated, GatedStart) else gated

"""A gated leader created inside its cgroup with no shell (core/process/gated.py, ``_clone.c``):
the native spawner's child waits at its gate, executes only after ``go``, ends with 125 at
anything else, leaves the signals it is given ignored, and fails before its gate for anything
that can fail. The thread that starts it is back only once it is past its gate."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from maka_runtime.resource.core.process.leader import ClonedLeader, clone_into
from maka_runtime.resource.core.sandbox.cgroups import RunCgroup
from maka_runtime.resource.core.sandbox.launch import LaunchPlan

PATH = {"PATH": "/usr/bin:/bin"}


class Gated:
    """A leader being created on a thread, its gate's write end and its output's read end."""

    def __init__(self, pool: ThreadPoolExecutor, argv: list[str], cgroup: RunCgroup,
                 ignored: tuple[int, ...] = ()) -> None:  # fmt: skip
        gate_r, self.gate = os.pipe()
        self.output, out_w = os.pipe()
        self.cgroup = cgroup

        def start() -> ClonedLeader:
            try:
                return clone_into(argv, cgroup=cgroup.path, stdio=(gate_r, out_w, out_w),
                                  cwd="/", env=PATH, gated=True, ignored=ignored)  # fmt: skip
            finally:
                os.close(gate_r)
                os.close(out_w)

        self.started: Future[ClonedLeader] = pool.submit(start)

    def waiting(self) -> int:
        """The child's PID once it is in its cgroup, still unexecuted (at its gate)."""
        deadline = time.monotonic() + 10
        while not (members := self.cgroup.members()):
            assert time.monotonic() < deadline, "the child never appeared in its cgroup"
            time.sleep(0.001)
        [pid] = members
        # Not executed: it is still this process's image, and its thread still waits.
        assert Path(f"/proc/{pid}/exe").resolve() == Path(f"/proc/{os.getpid()}/exe").resolve()
        assert not self.started.done()
        return pid

    def finish(self, gate: bytes | None) -> tuple[int, str]:
        """Write *gate* (``None``: close it unwritten); the exit code and all the output."""
        if gate is not None:
            os.write(self.gate, gate)
        os.close(self.gate)
        code = self.started.result(timeout=30).wait()
        with os.fdopen(self.output, "rb") as output:
            return code, output.read().decode()


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(2) as executor:
        yield executor


def test_nothing_runs_before_go_and_then_stdin_is_dev_null(
    pool: ThreadPoolExecutor, cgroup: RunCgroup
) -> None:
    gated = Gated(pool, ["/bin/sh", "-c", "echo ran; cat; echo end"], cgroup)
    gated.waiting()
    os.set_blocking(gated.output, False)
    with pytest.raises(BlockingIOError):
        os.read(gated.output, 1)  # nothing of the command has run
    os.set_blocking(gated.output, True)
    # What follows "go" on the gate is not the command's: its stdin is /dev/null.
    assert gated.finish(b"go\nnot for cat\n") == (0, "ran\nend\n")


@pytest.mark.parametrize("gate", [None, b"no\n", b"gox\n", b"go", b"g\n", b"\n"])
def test_anything_but_go_ends_it_at_its_gate_with_125(
    pool: ThreadPoolExecutor, cgroup: RunCgroup, gate: bytes | None
) -> None:
    gated = Gated(pool, ["/bin/sh", "-c", "echo ran"], cgroup)
    gated.waiting()
    assert gated.finish(gate) == (125, "")
    assert not cgroup.populated()


def test_the_signals_given_stay_ignored_and_no_others(
    pool: ThreadPoolExecutor, cgroup: RunCgroup
) -> None:
    jailer = LaunchPlan(env={}, cgroup=cgroup, sandboxed=True, clone_into=True).ignored_signals
    assert sorted(jailer) == sorted(
        [signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGTSTP]
    )
    for ignored in (jailer, ()):
        gated = Gated(pool, ["/bin/cat", "/proc/self/status"], cgroup, ignored)
        code, status = gated.finish(b"go\n")
        [line] = [line for line in status.splitlines() if line.startswith("SigIgn:")]
        assert code == 0
        assert int(line.split()[1], 16) == sum(1 << (sig - 1) for sig in ignored)


def test_what_can_fail_fails_before_the_gate(cgroup: RunCgroup) -> None:
    # On this thread: a failing child ends before its gate, so the call returns at once.
    read, write = os.pipe()
    try:
        with pytest.raises(FileNotFoundError, match="the child's chdir"):
            clone_into(["/bin/true"], cgroup=cgroup.path, stdio=(read, write, write),
                       cwd="/no/such/dir", env=PATH, gated=True)  # fmt: skip
    finally:
        os.close(read)
        os.close(write)
    assert not cgroup.populated()


@pytest.mark.parametrize("bad", [signal.SIGKILL, signal.SIGSTOP, 0, 4096])
def test_a_signal_that_cannot_be_ignored_is_refused(cgroup: RunCgroup, bad: int) -> None:
    with pytest.raises(ValueError, match="cannot leave signal"):
        clone_into(["/bin/true"], cgroup=cgroup.path, stdio=(0, 1, 2), cwd="/", env=PATH,
                   ignored=(bad,))  # fmt: skip
    assert not cgroup.populated()


def test_a_direct_plan_starts_bubblewrap_or_bash_with_no_shell(cgroup: RunCgroup) -> None:
    sandboxed = LaunchPlan(env={}, cgroup=cgroup, sandboxed=True, clone_into=True)
    sandboxed._bwrap = ["/usr/bin/bwrap", "--die-with-parent"]
    assert sandboxed.direct
    assert sandboxed.direct_argv("true") == [
        "/usr/bin/bwrap", "--die-with-parent",
        "/usr/bin/env", "--default-signal=HUP,INT,QUIT,TERM,TSTP", "/bin/bash", "-c", "true",
    ]  # fmt: skip
    plain = LaunchPlan(env={}, cgroup=cgroup, sandboxed=False, clone_into=True)
    assert plain.direct and plain.direct_argv("true") == ["/bin/bash", "-c", "true"]
    assert plain.ignored_signals == ()
    # Joining a cgroup, or none: the prologue does the joining and the gate.
    assert not LaunchPlan(env={}, cgroup=cgroup, sandboxed=True).direct
    assert not LaunchPlan(env={}, cgroup=None, sandboxed=True, clone_into=True).direct

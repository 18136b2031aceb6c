"""Starting a run's leader process: inside its cgroup from the first instruction where the
host allows it, otherwise by :mod:`subprocess` with the leader joining the cgroup itself.

A process that writes its PID into ``cgroup.procs`` migrates, and the kernel's migration waits
for an RCU grace period unless another came just before (or cgroup2 is mounted with
``favordynmods``): 5-20 ms on a run's critical path after an idle spell, which is how an agent's
tool calls come. ``clone3(CLONE_INTO_CGROUP)`` (Linux 5.7) creates the process in its cgroup
instead, and takes no such wait. The standard library cannot ask for it, so
``_clone.c``, the project's one native piece, does (see there for what its child does: exactly
what ``subprocess.Popen(start_new_session=True, close_fds=True)`` does). It is built at install
where a C compiler is; where it is not, or where the host refuses ``clone3`` (a seccomp profile,
an old kernel), the start-up probe says so and runs fall back to joining from their leader.

Why not a library: glibc 2.39 added ``posix_spawnattr_setcgroup_np``, with which ``posix_spawn``
(through ``ctypes``, no compiler) could do all of this; Debian 12, the images' base and this
project's CI, has glibc 2.36. With a base on glibc 2.39 or newer, that would replace ``_clone.c``.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from types import ModuleType

__all__ = ["ClonedLeader", "Leader", "clone_into", "clone_into_unavailable", "start_leader"]

_clone: ModuleType | None
try:
    from maka_runtime.resource.core.process import _clone
except ImportError as missing:  # built at install where a C compiler is (pyproject.toml)
    _clone = None
    _MISSING = f"the native spawner is not built ({missing})"
else:
    _MISSING = ""


class Leader(Protocol):
    """What the host needs of a started leader (``subprocess.Popen`` is one)."""

    @property
    def pid(self) -> int: ...

    def poll(self) -> int | None: ...

    def wait(self) -> int: ...


class ClonedLeader:
    """A leader started by :func:`clone_into`: its exit status as ``Popen`` gives it
    (negative: killed by that signal)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self._wait(os.WNOHANG)

    def wait(self) -> int:
        code = self._wait(0)
        assert code is not None
        return code

    def _wait(self, options: int) -> int | None:
        if self.returncode is not None:
            return self.returncode
        while True:
            try:
                pid, status = os.waitpid(self.pid, options)
            except InterruptedError:
                continue
            except ChildProcessError:
                # Reaped elsewhere (as Popen does): its status is lost.
                self.returncode = 0
                return 0
            break
        if pid == 0:
            return None
        self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode


def clone_into_unavailable() -> str:
    """Why :func:`clone_into` cannot be used in this installation (empty: it can)."""
    return _MISSING


def clone_into(
    argv: list[str],
    *,
    cgroup: Path,
    stdio: tuple[int, int, int],
    cwd: str | None,
    env: Mapping[str, str],
    gated: bool = False,
    ignored: tuple[int, ...] = (),
) -> ClonedLeader:
    """Start ``argv`` (its first item an absolute path) in a new session inside *cgroup*,
    with *stdio* as its standard streams and only those open (the child needs three free
    descriptor numbers above 2 on the way) and the signals *ignored* left ignored; raises
    ``OSError`` if it cannot start (``ENOSYS``/``EINVAL``: the host has no ``clone3`` into a
    cgroup).

    *gated*: once every step that can fail is done, the child reads its stdin (the gate)
    and executes only after ``go`` and a newline, with ``/dev/null`` as its stdin; anything
    else, end of file included, ends it with 125 before it executes. This returns once it
    has done either, so call it off the event loop (:class:`~.pipes.GatedStart`)."""
    if _clone is None:
        raise OSError(f"cannot start inside a cgroup: {_MISSING}")
    path = os.fsencode(argv[0])
    if not os.path.isabs(path):
        raise ValueError(f"the leader's program must be an absolute path, not {argv[0]!r}")
    if any("=" in key or not key for key in env):
        raise ValueError("illegal environment variable name")
    encoded_env = [os.fsencode(f"{key}={value}") for key, value in env.items()]
    directory = os.open(cgroup, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        pid = _clone.spawn(
            path,
            [os.fsencode(arg) for arg in argv],
            encoded_env,
            None if cwd is None else os.fsencode(cwd),
            stdio,
            directory,
            gated,
            ignored,
        )
    finally:
        os.close(directory)
    return ClonedLeader(pid)


def start_leader(
    argv: list[str],
    *,
    stdin: int,
    stdout: int,
    stderr: int,
    cwd: str,
    env: Mapping[str, str],
    cgroup: Path | None = None,
) -> Leader:
    """Start a leader in a new session with only these standard streams open: inside
    *cgroup* (:func:`clone_into`) if given, else by ``subprocess``. Any of the three may be
    ``subprocess.DEVNULL``."""
    if cgroup is None:
        return subprocess.Popen(
            argv,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            cwd=cwd,
            env=env,
            start_new_session=True,
            close_fds=True,
        )
    null = -1
    stdio = (stdin, stdout, stderr)
    if subprocess.DEVNULL in stdio:  # as Popen opens it: for reading and writing
        null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        stdin, stdout, stderr = (null if fd == subprocess.DEVNULL else fd for fd in stdio)
    try:
        return clone_into(argv, cgroup=cgroup, stdio=(stdin, stdout, stderr), cwd=cwd, env=env)
    finally:
        if null >= 0:
            with contextlib.suppress(OSError):
                os.close(null)

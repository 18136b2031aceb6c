"""Containment in cgroup v2: every run in a cgroup of its own, so that ending the run ends
every process it started, whatever they did (``setsid``, a double fork, ``exec -a``, a dropped
marker variable). ``cgroup.kill`` SIGKILLs every member at once and nothing can leave a cgroup
without write access to a common ancestor's ``cgroup.procs``, which runs never get (the
sandbox mounts no ``/sys``).

The service's runs live under one directory per data directory,
``<cgroup2 mount>/<the service's own cgroup>/maka-runs/<instance>/run-<id>``, so a restarted
service finds (and the start-up sweep kills) what a dead one left. The child joins its cgroup
itself, before it executes anything of the command (see ``launch.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import select
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from maka_runtime.resource.core.process.leader import clone_into, clone_into_unavailable

__all__ = [
    "CgroupProbe",
    "CgroupTree",
    "RunCgroup",
    "cgroup2_mount",
    "cgroup2_options",
    "own_cgroup",
    "sweep_leftovers",
]

log = logging.getLogger(__name__)

_PROBE_TIMEOUT: Final = 5.0
_JOIN_CHOSEN: Final = "--run-cgroup-entry join"


def cgroup2_mount() -> Path | None:
    """Where the cgroup v2 hierarchy is mounted (``/sys/fs/cgroup`` or, on a hybrid host,
    ``/sys/fs/cgroup/unified``); ``None`` without one."""
    found = _cgroup2_entry(_mountinfo())
    return None if found is None else found[0]


def cgroup2_options(mountinfo: str | None = None) -> frozenset[str] | None:
    """The cgroup v2 hierarchy's own mount options (``nsdelegate``, ``favordynmods`` …), from
    *mountinfo* (default: this process's); ``None`` without a hierarchy."""
    found = _cgroup2_entry(_mountinfo() if mountinfo is None else mountinfo)
    return None if found is None else found[1]


def _mountinfo() -> str:
    try:
        return Path("/proc/self/mountinfo").read_text()
    except OSError:
        return ""


def _cgroup2_entry(mountinfo: str) -> tuple[Path, frozenset[str]] | None:
    """The mount point and super options of the first cgroup2 line of *mountinfo*."""
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fields = right.split(" ")
        if fields[0] == "cgroup2":
            options = fields[2] if len(fields) > 2 else ""
            return Path(left.split(" ")[4]), frozenset(filter(None, options.split(",")))
    return None


def own_cgroup() -> str | None:
    """This process's cgroup v2 path (``/`` at the root); ``None`` if it has none."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("0::"):
            return line[3:] or "/"
    return None


@dataclass(frozen=True)
class CgroupProbe:
    """What the start-up probe found: a usable tree, or why there is none."""

    tree: CgroupTree | None
    reason: str = ""


class RunCgroup:
    """The cgroup of one run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: pidfds of the members killed, to wait for their exit (a process leaves its cgroup
        #: a moment before it has exited).
        self._pinned: list[int] = []

    @property
    def pinned(self) -> bool:
        """Whether members killed earlier are still being waited for."""
        return bool(self._pinned)

    @property
    def procs(self) -> Path:
        return self.path / "cgroup.procs"

    def members(self) -> list[int]:
        with contextlib.suppress(OSError):
            return [int(pid) for pid in _read(self.procs).split()]
        return []

    def kill(self) -> bool:
        """SIGKILL every process in the cgroup (and in any cgroup below it); ``False`` if it
        was empty (then there is nothing to signal: no process can enter it from outside)."""
        if not self.populated():
            return False
        for pid in self.members():
            with contextlib.suppress(OSError):
                self._pinned.append(os.pidfd_open(pid))
        with contextlib.suppress(FileNotFoundError):
            _write(self.path / "cgroup.kill", b"1")
        return True

    def populated(self) -> bool:
        """Whether a live process is in the cgroup or below it (``cgroup.events``)."""
        try:
            events = _read(self.path / "cgroup.events")
        except FileNotFoundError:
            return False
        return b"populated 1" in events

    async def wait_empty(self, within: float) -> bool:
        """Wait until no process is left; ``False`` if *within* seconds pass first.

        The members killed are awaited through their pidfds (readable once the process has
        exited), so the usual case, a sandbox's init a moment behind its leader, ends as soon
        as it has exited instead of at the next poll; only a cgroup still populated by members
        that were not pinned (none is left to wait on) is polled."""
        deadline = time.monotonic() + within
        pause = 0.001
        while self.populated() or not self._exited():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if self._pinned:
                await _any_readable(self._pinned, remaining)
            else:
                await asyncio.sleep(min(pause, remaining))
                pause = min(pause * 2, 0.05)
        return True

    def _exited(self) -> bool:
        """True once every killed member has exited (its pidfd is readable)."""
        while self._pinned:
            # poll, not select: a descriptor may be numbered past select's 1024.
            poller = select.poll()
            for fd in self._pinned:
                poller.register(fd, select.POLLIN)
            ready = [fd for fd, _events in poller.poll(0)]
            for fd in ready:
                self._pinned.remove(fd)
                os.close(fd)
            if self._pinned and not ready:
                return False
        return True

    def remove(self) -> bool:
        """Remove the (empty) cgroup; ``False`` if it still has members."""
        for fd in self._pinned:
            os.close(fd)
        self._pinned.clear()
        try:
            self.path.rmdir()
        except FileNotFoundError:
            return True
        except OSError as error:
            log.warning("cannot remove %s: %s", self.path, error)
            return False
        return True


async def _any_readable(fds: list[int], within: float) -> None:
    """Wait until one of *fds* is readable (a pidfd: its process exited), at most *within* s."""
    loop = asyncio.get_running_loop()
    ready = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    for fd in fds:
        loop.add_reader(fd, wake)
    timer = loop.call_later(within, wake)
    try:
        await ready
    finally:
        timer.cancel()
        for fd in fds:
            loop.remove_reader(fd)


def _read(path: Path) -> bytes:
    """The contents of a small cgroup file (one read: these are generated, not stored)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, 65536)
    finally:
        os.close(fd)


def _write(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


class CgroupTree:
    """The directory under which this service makes its runs' cgroups."""

    def __init__(
        self, base: Path, *, controllers: tuple[str, ...], clone_into: bool = False,
        entry_reason: str = "",
    ) -> None:  # fmt: skip
        self.base = base
        #: Controllers the runs' cgroups can use (``pids``, ``memory`` …); may be empty.
        self.controllers = controllers
        #: Leaders are created inside their cgroup (``clone3``); else they join it themselves.
        self.clone_into = clone_into
        #: Why leaders join their cgroup themselves (empty when they are created inside it).
        self.entry_reason = entry_reason

    @classmethod
    def probe(cls, base: Path, *, clone_into: bool = True) -> CgroupProbe:
        """Make *base* and check that a child can be started inside a cgroup below it, or
        else join one, and be killed there (*clone_into* ``False``: leaders always join)."""
        try:
            base.mkdir(parents=True, exist_ok=True)
            probe = base / f"probe-{os.getpid()}"
            probe.mkdir(exist_ok=True)
        except OSError as error:
            return CgroupProbe(None, f"cannot create a cgroup under {base}: {error.strerror}")
        try:
            if not (probe / "cgroup.kill").exists():
                return CgroupProbe(None, "the kernel has no cgroup.kill (Linux 5.14 or newer)")
            refused = _clone_into_refused(probe) if clone_into else _JOIN_CHOSEN
            if refused:
                joined = subprocess.run(
                    ["/bin/sh", "-c", 'echo 0 > "$0/cgroup.procs"', str(probe)],
                    capture_output=True,
                    timeout=_PROBE_TIMEOUT,
                    check=False,
                )
                if joined.returncode != 0:
                    err = joined.stderr.decode(errors="replace").strip()
                    return CgroupProbe(None, f"a process cannot join a cgroup under {base}: {err}")
        except (OSError, subprocess.SubprocessError) as error:
            return CgroupProbe(None, f"cannot use cgroups under {base}: {error}")
        finally:
            with contextlib.suppress(OSError):
                probe.rmdir()
        controllers = _enable_controllers(base)
        tree = cls(base, controllers=controllers, clone_into=not refused, entry_reason=refused)
        return CgroupProbe(tree)

    def create(self, run_id: str, *, pids_max: int | None, memory_max: int | None) -> RunCgroup:
        """A new cgroup for run *run_id*, with the limits its controllers allow."""
        path = self.base / f"run-{run_id}"
        path.mkdir(parents=True, exist_ok=True)
        if pids_max is not None and "pids" in self.controllers:
            (path / "pids.max").write_text(str(pids_max))
        if memory_max is not None and "memory" in self.controllers:
            (path / "memory.max").write_text(str(memory_max))
            with contextlib.suppress(OSError):
                (path / "memory.swap.max").write_text("0")
        return RunCgroup(path)

    def close(self) -> None:
        """Remove the directory once no run cgroup is left in it."""
        with contextlib.suppress(OSError):
            self.base.rmdir()

    def leftovers(self) -> list[RunCgroup]:
        """The run cgroups a previous process left behind."""
        try:
            names = sorted(os.listdir(self.base))
        except OSError:
            return []
        return [RunCgroup(self.base / name) for name in names if name.startswith("run-")]


def _clone_into_refused(probe: Path) -> str:
    """Why a process cannot be created inside cgroup *probe* here (empty: it can)."""
    unavailable = clone_into_unavailable()
    if unavailable:
        return unavailable
    null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
    try:
        leader = clone_into(
            ["/bin/sh", "-c", ":"], cgroup=probe, stdio=(null, null, null), cwd="/", env={}
        )
    except OSError as error:
        if error.errno in (errno.ENOSYS, errno.EINVAL, errno.E2BIG, errno.EPERM, errno.EOPNOTSUPP):
            return f"the host refuses clone3 into a cgroup ({error.strerror or error})"
        return f"a process could not be started inside a cgroup ({error})"
    finally:
        os.close(null)
    code = leader.wait()
    if code != 0:
        return f"a process started inside a cgroup ended with {code}"
    return ""


def _enable_controllers(base: Path) -> tuple[str, ...]:
    """Enable ``pids`` and ``memory`` for the runs' cgroups where the hierarchy offers them
    (each level from the mount down must pass them on); returns those enabled below *base*."""
    wanted = ("pids", "memory")
    mount = cgroup2_mount()
    chain = [base]
    if mount is not None:
        node = base
        while node != mount and mount in node.parents:
            node = node.parent
            chain.insert(0, node)
    for node in chain:
        try:
            offered = (node / "cgroup.controllers").read_text().split()
        except OSError:
            return ()
        for name in wanted:
            if name in offered:
                with contextlib.suppress(OSError):
                    (node / "cgroup.subtree_control").write_text(f"+{name}")
    try:
        enabled = (base / "cgroup.subtree_control").read_text().split()
    except OSError:
        return ()
    return tuple(name for name in wanted if name in enabled)


async def sweep_leftovers(tree: CgroupTree, *, within: float) -> tuple[int, ...]:
    """Kill everything in the run cgroups a previous process left, and remove them; returns
    the PIDs that were there."""
    killed: list[int] = []
    for cgroup in tree.leftovers():
        killed.extend(cgroup.members())
        cgroup.kill()
        if not await cgroup.wait_empty(within):
            log.error("processes of %s survived cgroup.kill: %s", cgroup.path, cgroup.members())
            continue
        cgroup.remove()
    if killed:
        log.warning("killed %d leftover process(es) in run cgroups: %s", len(killed), killed)
    return tuple(killed)

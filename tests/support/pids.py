"""Is a process still running? Checked through /proc, by pid and by process group."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state first), or None."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def alive(pid: int) -> bool:
    """True while *pid* runs. A zombie has ended: it only waits for its parent (for orphans of
    a killed group, init) to collect its exit status."""
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def group_members(pgid: int) -> list[int]:
    """Every live (not zombie) process whose process group is *pgid*."""
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None and fields[0] != "Z" and int(fields[2]) == pgid:
                members.append(int(entry))
    return members


def _parent(pid: int) -> int | None:
    fields = _stat(pid)
    return int(fields[1]) if fields is not None else None


def host_pid(leader: int, pid_in_run: int) -> int:
    """The host's pid of the process a sandboxed run knows as *pid_in_run* (its own PID
    namespace numbers processes from 1): the descendant of *leader* whose last ``NSpid`` is it.
    A run without a PID namespace of its own gets *pid_in_run* back."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            with open(f"/proc/{pid}/status") as status:
                line = next(ln for ln in status if ln.startswith("NSpid:"))
        except (OSError, StopIteration):
            continue
        if int(line.split()[-1]) != pid_in_run:
            continue
        ancestor: int | None = pid
        while ancestor not in (None, 0, 1):
            if ancestor == leader:
                return pid
            ancestor = _parent(ancestor)
    raise LookupError(f"no descendant of {leader} is {pid_in_run} in its PID namespace")


def wait_gone(pids: Iterable[int], *, within: float = 10.0) -> bool:
    """Wait until none of *pids* runs (processes the test did not start, so it cannot wait for
    them); ``False`` if one still runs after *within* seconds."""
    deadline = time.monotonic() + within
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True

"""Facts about processes from Linux ``/proc``: start times, process groups, environment
markers. Every reader returns ``None`` for a process that is gone or unreadable."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ProcStat",
    "boot_id",
    "environ_has",
    "iter_pids",
    "read_stat",
]

_PROC = Path("/proc")


@dataclass(frozen=True)
class ProcStat:
    pid: int
    state: str
    pgid: int
    #: Clock ticks after boot at which the process started (``stat`` field 22).
    start_time: int

    @property
    def zombie(self) -> bool:
        return self.state in ("Z", "X")


def read_stat(pid: int) -> ProcStat | None:
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    try:
        raw = os.read(fd, 4096)  # one line, generated at once
    except ProcessLookupError:
        return None
    finally:
        os.close(fd)
    # Field 2 (comm) is in parentheses and may itself contain spaces and parentheses.
    rest = raw[raw.rfind(b")") + 2 :].split()
    # rest[0] is field 3 (state); field n is rest[n - 3].
    return ProcStat(pid=pid, state=rest[0].decode(), pgid=int(rest[2]), start_time=int(rest[19]))


def environ_has(pid: int, entry: bytes) -> bool:
    """True if the environment *pid* started with contains *entry* (``NAME=value``)."""
    try:
        raw = (_PROC / str(pid) / "environ").read_bytes()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return False
    return entry in raw.split(b"\0")


def iter_pids() -> Iterator[int]:
    for name in os.listdir(_PROC):
        if name.isdigit():
            yield int(name)


@functools.cache
def boot_id() -> str:
    try:
        return (_PROC / "sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""

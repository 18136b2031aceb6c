"""What a sandbox layout looked at on the host, so a later run can tell whether it still holds.

A layout (:func:`~.bwrap.layout`) depends on the file system: the real path of every root,
mask and expansion, which protected metadata exists, the directories below a writable root,
the gitdir a ``.git`` file names. A :class:`FileView` answers those questions for one
computation — each real path resolved once — and records, *before* it looks inside them, the
identity of every directory it looked up a name in or listed, and of every file it read
(device, inode, mtime, ctime). Whatever changes an answer changes one of those: a name
created, removed, renamed or replaced in a directory changes that directory's mtime and ctime
(a symlink is retargeted only by replacing it), a file's content its own, a mount over a
directory its device and inode, and a ctime cannot be set back by anyone. So a layout whose
:class:`Fingerprint` is unchanged is the layout the host would compute again now.

A change within the same timestamp tick as the recording leaves the timestamps as they were:
a fingerprint that holds a timestamp less than :data:`RACY_NS` older than the recording
(git's "racily clean" entries) is not reusable, and the layout is computed again next time.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeAlias

__all__ = ["RACY_NS", "FileView", "Fingerprint"]

#: A recorded timestamp this close to the recording (ns) may hide a change made in the same
#: tick (Linux file systems stamp with a clock of at most 10 ms resolution; 2 s covers the
#: coarsest, FAT's).
RACY_NS: Final = 2_000_000_000

#: (device, inode, mtime ns, ctime ns, size) of a path, or ``None`` if it could not be stat'ed.
Identity: TypeAlias = tuple[int, int, int, int, int] | None


def _identity(path: str) -> Identity:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size)


@dataclass(frozen=True)
class Fingerprint:
    """The identities a layout depended on, as they were before it looked."""

    entries: tuple[tuple[str, Identity], ...]
    #: False when a timestamp was too recent to prove that nothing changed after it.
    reusable: bool

    def holds(self) -> bool:
        """Whether every recorded path still has the identity it had (so the layout stands)."""
        return self.reusable and all(_identity(path) == seen for path, seen in self.entries)


class FileView:
    """The host's file system as one layout computation sees it (see the module docstring)."""

    def __init__(self, clock: Callable[[], int] = time.time_ns) -> None:
        self._clock = clock
        self._seen: dict[str, Identity] = {}
        self._real: dict[str, str] = {}

    def fingerprint(self) -> Fingerprint:
        """What this view looked at so far."""
        oldest_safe = self._clock() - RACY_NS
        reusable = all(
            seen is None or (seen[2] < oldest_safe and seen[3] < oldest_safe)
            for seen in self._seen.values()
        )
        return Fingerprint(tuple(self._seen.items()), reusable)

    def _record(self, path: str) -> None:
        if path not in self._seen:
            self._seen[path] = _identity(path)

    def real(self, path: str) -> str:
        """``os.path.realpath(path)``, recording every directory a name was looked up in."""
        path = os.path.abspath(path)
        found = self._real.get(path)
        if found is None:
            found, _ = self._join("", path, {})
            self._real[path] = found
        return found

    def _join(self, path: str, rest: str, seen: dict[str, str | None]) -> tuple[str, bool]:
        """``posixpath._joinrealpath`` (not strict), recording each lookup's directory."""
        if rest.startswith("/"):
            path, rest = "/", rest[1:]
        while rest:
            name, _, rest = rest.partition("/")
            if not name or name == ".":
                continue
            if name == "..":
                path = os.path.dirname(path) if path != "/" else path
                continue
            newpath = os.path.join(path, name)
            self._record(path)
            try:
                is_link = stat.S_ISLNK(os.lstat(newpath).st_mode)
            except OSError:
                is_link = False
            if not is_link:
                path = newpath
                continue
            if newpath in seen:
                known = seen[newpath]
                if known is not None:
                    path = known
                    continue
                return os.path.join(newpath, rest), False  # a symlink loop
            seen[newpath] = None
            path, ok = self._join(path, os.readlink(newpath), seen)
            if not ok:
                return os.path.join(path, rest), False
            seen[newpath] = path
        return path, True

    def exists(self, path: str) -> bool:
        return os.path.exists(self.real(path))

    def lexists(self, path: str) -> bool:
        """Whether *path* itself exists (a dangling symlink does)."""
        parent = self.real(os.path.dirname(os.path.abspath(path)))
        self._record(parent)
        return os.path.lexists(os.path.join(parent, os.path.basename(path)))

    def isdir(self, path: str) -> bool:
        return os.path.isdir(self.real(path))

    def isfile(self, path: str) -> bool:
        return os.path.isfile(self.real(path))

    def listing(self, path: str) -> list[os.DirEntry[str]]:
        """The entries of the directory *path* (``[]`` if it cannot be listed)."""
        real = self.real(path)
        self._record(real)
        try:
            with os.scandir(path) as entries:
                return list(entries)
        except OSError:
            return []

    def read_line(self, path: str, limit: int) -> str | None:
        """The first line (at most *limit* characters) of the file *path*, or ``None``."""
        self._record(self.real(path))
        try:
            with open(path, encoding="utf-8", errors="replace") as file:
                return file.readline(limit)
        except OSError:
            return None

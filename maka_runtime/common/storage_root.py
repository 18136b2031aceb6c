"""A data directory owned for writing by exactly one process.

A *storage root* is a directory with a marker file that names its kind (``kernel`` or
``resource``). A process becomes its *owner* by taking an exclusive, non-blocking ``flock`` on
``owner.lock`` inside it; a second process is refused at once, never queued. Stores open on the
owner's :class:`RootLease` and refuse every call once the owner has closed.

The root and every directory below it are kept 0700, every file 0600 (databases, their WAL
and shared-memory files, logs, the lock): :func:`resolve_storage_root` repairs wider modes of
a directory that already existed (another user could otherwise read a secret from the WAL).

The lock file descriptor is close-on-exec (PEP 446), so shell runs started by the owner never
inherit it: a ``kill -9`` of the owner frees the root even while its children live on.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MARKER_NAME = ".maka-root"
LOCK_NAME = "owner.lock"
MARKER_FORMAT = 1


class StorageRootError(Exception):
    """Base class: something is wrong with a storage root."""


class RootKindMismatchError(StorageRootError):
    """The directory is marked as a root of another kind (your configuration is wrong)."""


class RootOwnedError(StorageRootError):
    """Another live process owns the root (someone else holds it)."""

    def __init__(self, root: StorageRoot, owner: dict[str, Any] | None) -> None:
        self.root = root
        self.owner = owner
        super().__init__(
            f"data directory {root.path} is already owned by {describe_owner(owner)}; "
            "stop that process or choose another --data-dir"
        )


class RootLeaseClosedError(StorageRootError):
    """The owner has closed; this lease no longer permits writes (you closed it)."""


@dataclass(frozen=True)
class StorageRoot:
    """A resolved, marked data directory."""

    path: Path
    kind: str

    @property
    def lock_path(self) -> Path:
        return self.path / LOCK_NAME


def resolve_storage_root(path: str | os.PathLike[str], kind: str) -> StorageRoot:
    """Create (if needed) and validate the root directory at *path* for *kind*."""
    root_path = Path(path).expanduser().resolve()
    root_path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not root_path.is_dir():
        raise StorageRootError(f"{root_path} is not a directory")
    restrict_tree(root_path)
    marker = root_path / MARKER_NAME
    if marker.exists():
        try:
            recorded = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise StorageRootError(f"unreadable root marker {marker}: {error}") from error
        if recorded.get("kind") != kind:
            raise RootKindMismatchError(
                f"{root_path} is a {recorded.get('kind')!r} root, not a {kind!r} root"
            )
    else:
        tmp = marker.with_suffix(f".tmp-{os.getpid()}")
        tmp.write_text(json.dumps({"kind": kind, "format": MARKER_FORMAT}), encoding="utf-8")
        os.chmod(tmp, 0o600)
        os.replace(tmp, marker)
    return StorageRoot(path=root_path, kind=kind)


def restrict_tree(path: Path) -> None:
    """Make *path* and every directory below it 0700 and every file 0600 (symbolic links are
    not followed; entries of other users are left alone)."""
    uid = os.geteuid()
    for directory, dirs, files in os.walk(path):
        _restrict(Path(directory), 0o700, uid)
        for name in files:
            _restrict(Path(directory) / name, 0o600, uid)
        dirs[:] = [d for d in dirs if not (Path(directory) / d).is_symlink()]


def _restrict(path: Path, mode: int, uid: int) -> None:
    try:
        stat = path.lstat()
    except FileNotFoundError:
        return
    if stat.st_uid != uid or (stat.st_mode & 0o777) == mode or path.is_symlink():
        return
    with contextlib.suppress(FileNotFoundError):
        os.chmod(path, mode)


class RootLease:
    """Proof of ownership handed to stores; it dies with its owner."""

    def __init__(self, root: StorageRoot) -> None:
        self.root = root
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def check(self) -> None:
        """Raise :class:`RootLeaseClosedError` if the owner has closed."""
        if self._closed:
            raise RootLeaseClosedError(f"the owner of {self.root.path} has closed")

    def _close(self) -> None:
        self._closed = True


class RootOwner:
    """The single writer of a storage root. ``close()`` is idempotent."""

    def __init__(self, root: StorageRoot, fd: int) -> None:
        self.root = root
        self.lease = RootLease(root)
        self._fd: int | None = fd

    @property
    def closed(self) -> bool:
        return self._fd is None

    def close(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        self.lease._close()
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    def __enter__(self) -> RootOwner:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def try_acquire_root_owner(root: StorageRoot) -> RootOwner | None:
    """Take ownership of *root*, or return ``None`` at once if another process holds it."""
    fd = os.open(root.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    info = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "program": Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python",
        "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(info).encode(), 0)
    return RootOwner(root, fd)


def acquire_root_owner(root: StorageRoot) -> RootOwner:
    """Like :func:`try_acquire_root_owner` but raise :class:`RootOwnedError` naming the owner."""
    owner = try_acquire_root_owner(root)
    if owner is None:
        raise RootOwnedError(root, read_owner_info(root))
    return owner


def read_owner_info(root: StorageRoot) -> dict[str, Any] | None:
    """What the current (or last) owner wrote about itself, if readable."""
    try:
        data = json.loads(root.lock_path.read_text(encoding="utf-8") or "null")
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def describe_owner(owner: dict[str, Any] | None) -> str:
    if not owner:
        return "another process"
    return (
        f"pid {owner.get('pid')} ({owner.get('program', 'unknown')} on {owner.get('host', '?')}, "
        f"since {owner.get('since', '?')})"
    )

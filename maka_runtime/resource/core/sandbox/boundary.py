"""The execution boundary a run is confined to: a permission profile, the roots it may read and
write, and the expansions granted so far.

The kernel owns a session's boundary (durable, with a revision that only grows) and sends it
with every run; the resource service only enforces it. A run that carries no boundary gets the
default, :func:`default_boundary`: ``workspace-write`` rooted at the session's working directory
(and the run's own ``cwd``, when it names another one).

Every path is absolute, without NUL, at most 4,095 bytes; an expansion holds at most
:data:`MAX_EXPANSION_ENTRIES` file-system entries, a boundary at most :data:`MAX_ROOTS` roots and
:data:`MAX_EXPANSIONS` expansions. Anything else is :class:`InvalidRequestError` naming the field.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal, TypeAlias

from maka_runtime.resource.core.errors import InvalidRequestError

if TYPE_CHECKING:
    from maka_runtime.resource.core.requests import BashInput

__all__ = [
    "MAX_EXPANSIONS",
    "MAX_EXPANSION_ENTRIES",
    "MAX_ROOTS",
    "Access",
    "BoundaryExpansion",
    "ExecutionBoundary",
    "FilesystemEntry",
    "Match",
    "Profile",
    "default_boundary",
    "rooted",
]

Profile: TypeAlias = Literal["read-only", "workspace-write", "danger-full-access"]
Access: TypeAlias = Literal["read", "write"]
Match: TypeAlias = Literal["exact", "subtree"]

#: Most file-system entries in one expansion (the original's limit).
MAX_EXPANSION_ENTRIES: Final = 32
#: Most expansions a boundary carries (everything granted to a session so far).
MAX_EXPANSIONS: Final = 256
#: Most readable plus writable roots of a boundary.
MAX_ROOTS: Final = 64
_MAX_PATH_BYTES: Final = 4095
#: Directories a default boundary never makes writable (the sandbox binds most read-only).
SYSTEM_DIRS: Final = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/proc",
                      "/dev", "/sys", "/boot", "/var", "/run")  # fmt: skip


@dataclass(frozen=True)
class FilesystemEntry:
    """One granted path: read or write, the path only (``exact``) or all below it
    (``subtree``). A directory can only be granted with all it contains: bubblewrap binds
    whole directories, so ``exact`` on a directory grants what ``subtree`` grants."""

    path: str
    access: Access
    match: Match = "subtree"


@dataclass(frozen=True)
class BoundaryExpansion:
    """What one approval widened: file-system entries and/or the network."""

    filesystem: tuple[FilesystemEntry, ...] = ()
    network: bool = False


@dataclass(frozen=True)
class ExecutionBoundary:
    """The sandbox of a run. ``writable_roots`` empty means the session's working directory
    (for ``workspace-write``; under ``read-only`` the roots are readable only)."""

    profile: Profile = "workspace-write"
    writable_roots: tuple[str, ...] = ()
    readable_roots: tuple[str, ...] = ()
    expansions: tuple[BoundaryExpansion, ...] = ()
    #: The kernel's revision of the session's boundary; 0 for the default boundary.
    revision: int = 0

    @property
    def sandboxed(self) -> bool:
        """Whether runs under this boundary start inside bubblewrap."""
        return self.profile != "danger-full-access"

    @property
    def network(self) -> bool:
        """True when an expansion granted the network (or the profile is unsandboxed)."""
        return not self.sandboxed or any(e.network for e in self.expansions)

    def entries(self) -> tuple[FilesystemEntry, ...]:
        """Every granted file-system entry, in the order granted."""
        return tuple(entry for expansion in self.expansions for entry in expansion.filesystem)

    def with_default_roots(self, roots: tuple[str, ...]) -> ExecutionBoundary:
        """This boundary, with *roots* as its writable roots when it names none."""
        if self.writable_roots:
            return self
        return ExecutionBoundary(
            profile=self.profile,
            writable_roots=roots,
            readable_roots=self.readable_roots,
            expansions=self.expansions,
            revision=self.revision,
        )

    def check(self) -> None:
        """Raise :class:`InvalidRequestError` for the first malformed field."""
        if self.revision < 0:
            raise InvalidRequestError(
                "boundary.revision must not be negative", field="boundary.revision"
            )
        roots = len(self.writable_roots) + len(self.readable_roots)
        if roots > MAX_ROOTS:
            raise InvalidRequestError(
                f"boundary has {roots} roots; the limit is {MAX_ROOTS}",
                field="boundary.writable_roots",
                limit=MAX_ROOTS,
            )
        for name, paths in (
            ("boundary.writable_roots", self.writable_roots),
            ("boundary.readable_roots", self.readable_roots),
        ):
            for path in paths:
                _check_path(path, name)
        if len(self.expansions) > MAX_EXPANSIONS:
            raise InvalidRequestError(
                f"boundary has {len(self.expansions)} expansions; the limit is {MAX_EXPANSIONS}",
                field="boundary.expansions",
                limit=MAX_EXPANSIONS,
            )
        for expansion in self.expansions:
            _check_expansion(expansion)


def _check_expansion(expansion: BoundaryExpansion) -> None:
    field = "boundary.expansions"
    if not expansion.filesystem and not expansion.network:
        raise InvalidRequestError(
            "an expansion must grant file-system entries, the network, or both", field=field
        )
    if len(expansion.filesystem) > MAX_EXPANSION_ENTRIES:
        raise InvalidRequestError(
            f"an expansion has {len(expansion.filesystem)} file-system entries; the limit is "
            f"{MAX_EXPANSION_ENTRIES}",
            field=field,
            limit=MAX_EXPANSION_ENTRIES,
        )
    for entry in expansion.filesystem:
        _check_path(entry.path, f"{field}.filesystem.path")


def _check_path(path: str, field: str) -> None:
    size = len(path.encode("utf-8", "surrogatepass"))
    if size > _MAX_PATH_BYTES:
        raise InvalidRequestError(
            f"{field} holds a path of {size} bytes; the limit is {_MAX_PATH_BYTES}",
            field=field,
            limit=_MAX_PATH_BYTES,
        )
    if "\0" in path or not os.path.isabs(path):
        raise InvalidRequestError(
            f"{field} must hold absolute paths, got {path[:200]!r}", field=field
        )


def default_boundary(session_cwd: str, run_cwd: str) -> ExecutionBoundary:
    """The boundary of a run that carries none: ``workspace-write`` over the session's working
    directory (when the session registered one), and over the run's own ``cwd`` when it lies
    outside it — unless that is ``/`` or a system directory (by real path), which the run may
    then read but not write. With nothing left to write, the profile is ``read-only``."""
    writable: list[str] = []
    readable: list[str] = []
    paths = [session_cwd] if session_cwd else []
    if run_cwd and not (session_cwd and _within(run_cwd, session_cwd)):
        paths.append(run_cwd)
    for path in paths:
        (readable if _system(path) else writable).append(path)
    return ExecutionBoundary(
        profile="workspace-write" if writable else "read-only",
        writable_roots=tuple(writable),
        readable_roots=tuple(readable),
    )


def _system(path: str) -> bool:
    real = os.path.realpath(path)
    return real == "/" or any(_within(p, root) for p in (path, real) for root in SYSTEM_DIRS)


def rooted(request: BashInput, session_cwd: str, fallback_cwd: str) -> BashInput:
    """*request* with its ``cwd`` filled in (the session's registered working directory, else
    *fallback_cwd*) and its boundary (the default one if it carries none) rooted there."""
    cwd = request.cwd or session_cwd or fallback_cwd
    boundary = request.boundary or default_boundary(session_cwd, cwd)
    return dataclasses.replace(
        request, cwd=cwd, boundary=boundary.with_default_roots((session_cwd or cwd,))
    )


def _within(path: str, root: str) -> bool:
    path, root = os.path.normpath(path), os.path.normpath(root)
    return path == root or path.startswith(root.rstrip("/") + "/")

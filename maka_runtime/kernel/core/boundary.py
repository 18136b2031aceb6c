"""A session's execution boundary: its permission profile, the expansions granted so far and
the revision that grows with every change (the kernel owns it; the resource service enforces it).

An *expansion* is a tuple of grant tokens, kept as primitives so the log and the store hold them
as plain strings: ``"network"``, or ``"ACCESS:MATCH:PATH"`` with ACCESS ``read``/``write``, MATCH
``exact``/``subtree`` and an absolute PATH (``write:subtree:/srv/data``). Expansion is monotonic:
:func:`widened` only ever adds, and adds nothing (same revision) for what is already covered.

What a profile covers without expansions (:func:`covers`): ``danger-full-access`` everything;
``workspace-write`` reading and writing inside the workspace root (except its protected
metadata, ``.git`` and ``.maka``); ``read-only`` reading inside the workspace root. (A run's
``/tmp`` is private to it: a path under the host's ``/tmp`` is not covered.) A need is
*covered* when every one of its tokens is. A write grant covers protected metadata below it
only when it names a path in that metadata itself (``write .git``), as the resource service
re-binds metadata read-only under every writable path and reopens only what a write
expansion names inside it.

What can never be granted (:func:`expansion` refuses it, so nothing proposes, asks for or
stores it): writing ``/`` or a path that is, or lies inside, a system directory
(:data:`SYSTEM_DIRS`) — only a ``danger-full-access`` session writes there — and any access to
the kernel's own data directory (:func:`outside`). Paths may hold no control characters.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final, Literal, TypeAlias

Profile = Literal["read-only", "workspace-write", "danger-full-access"]
PROFILES: Final = ("read-only", "workspace-write", "danger-full-access")
DEFAULT_PROFILE: Final[Profile] = "workspace-write"
#: A session's revision when it is created; every change adds one.
INITIAL_REVISION: Final = 1
NETWORK: Final = "network"
#: The failure reason of a command that needs more than its boundary.
BOUNDARY_REQUIRED: Final = "sandbox_boundary_required"
#: Limits of one expansion (as the resource service enforces them).
MAX_ENTRIES: Final = 32
MAX_PATH_BYTES: Final = 4095
#: At most this many expansions per session (the resource service refuses more).
MAX_EXPANSIONS: Final = 256
PROTECTED: Final = (".git", ".maka")
#: The failure reason of a command whose need can never be granted (``/``, a system
#: directory, the kernel's data directory): not recoverable by any approval.
REQUIRES_BYPASS: Final = "requires_bypass"
#: Directories no expansion may make writable (nor ``/``); ``lib*`` is every top-level
#: directory whose name starts with ``lib``.
SYSTEM_DIRS: Final = ("/proc", "/sys", "/dev", "/etc", "/usr", "/bin", "/sbin", "/lib*", "/boot",
                      "/run")  # fmt: skip
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

Expansion: TypeAlias = tuple[str, ...]


class BoundaryError(ValueError):
    """An expansion or profile that is not valid (the message says which part)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Grant:
    """One file-system entry of an expansion."""

    path: str
    access: Literal["read", "write"] = "write"
    match: Literal["exact", "subtree"] = "subtree"

    @property
    def token(self) -> str:
        return f"{self.access}:{self.match}:{self.path}"


def entry(token: str) -> Grant | None:
    """The file-system entry of *token* (``None`` for ``network``)."""
    if token == NETWORK:
        return None
    access, _, rest = token.partition(":")
    match, _, path = rest.partition(":")
    if access not in ("read", "write") or match not in ("exact", "subtree"):
        raise BoundaryError(f"not a grant: {token!r}")
    return Grant(path=path, access=access, match=match)  # type: ignore[arg-type]


def check_path(path: str) -> str:
    """*path*, normalized; refused unless absolute, without control characters (C0, DEL, C1:
    newlines and NUL too) and at most 4095 bytes."""
    if path.startswith("~"):
        raise BoundaryError(f"{path!r}: '~' is not expanded; give the path in full")
    if not path.startswith("/") or _CONTROL.search(path) or len(path.encode()) > MAX_PATH_BYTES:
        raise BoundaryError(
            f"path {path!r} must be absolute, without control characters, at most "
            f"{MAX_PATH_BYTES} bytes"
        )
    return posixpath.normpath(path).replace("//", "/")


def system_dir(path: str) -> bool:
    """Whether *path* (absolute, normalized) is ``/`` or is, or lies inside, a system
    directory (:data:`SYSTEM_DIRS`)."""
    top = path.strip("/").split("/")[0]
    return not top or top.startswith("lib") or f"/{top}" in SYSTEM_DIRS


def never_granted(path: str) -> str:
    """Why writing *path* can never be granted (a sentence), for messages."""
    return (
        f"writing {path} can never be granted: it is / or lies inside a system directory "
        "(only a danger-full-access session, which runs without a sandbox, writes there)"
    )


def resolve(path: str, cwd: str) -> str:
    """*path* as it really is: taken from *cwd* when relative, ``..`` and symlinks resolved
    (:class:`BoundaryError` for a ``~`` path, which is not expanded, or a malformed one)."""
    if path.startswith("~"):
        raise BoundaryError(f"{path!r}: '~' is not expanded; give the path in full")
    return os.path.realpath(check_path(posixpath.join(cwd, path)))


def outside(need: Expansion, protected: Sequence[str]) -> None:
    """Refuse (:class:`BoundaryError`) a *need* naming a path that is, or lies inside, one of
    the *protected* directories (the kernel's data directory), symlinks resolved."""
    for token in need:
        grant = entry(token)
        if grant is None:
            continue
        real = os.path.realpath(grant.path)
        for directory in protected:
            if _under(real, os.path.realpath(directory)):
                raise BoundaryError(
                    f"{grant.path} can never be granted: it lies inside the kernel's data "
                    "directory, which holds its state and credentials"
                )


def expansion(grants: tuple[Grant, ...] = (), network: bool = False) -> Expansion:
    """A normalized expansion (sorted, without duplicates); refused when empty or too big."""
    if not grants and not network:
        raise BoundaryError("an expansion names at least one path or the network")
    if len(grants) > MAX_ENTRIES:
        raise BoundaryError(f"an expansion has at most {MAX_ENTRIES} entries")
    grants = tuple(replace(grant, path=check_path(grant.path)) for grant in grants)
    for grant in grants:
        if grant.access == "write" and system_dir(grant.path):
            raise BoundaryError(never_granted(grant.path))
    tokens = {grant.token for grant in grants}
    return tuple(sorted(tokens)) + ((NETWORK,) if network else ())


def checked(tokens: tuple[str, ...]) -> Expansion:
    """*tokens* as a normalized expansion (:class:`BoundaryError` when one is not valid)."""
    grants = tuple(grant for token in tokens if (grant := entry(token)) is not None)
    return expansion(grants, NETWORK in tokens)


@dataclass(frozen=True, kw_only=True, slots=True)
class Boundary:
    """A session's boundary as the kernel keeps it."""

    profile: Profile = DEFAULT_PROFILE
    workspace_root: str = "/"
    expansions: tuple[Expansion, ...] = ()
    revision: int = INITIAL_REVISION

    def with_once(self, once: Expansion) -> Boundary:
        """This boundary plus *once* for one run (same revision: nothing durable changed)."""
        return replace(self, expansions=(*self.expansions, once)) if once else self


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _protected(path: str, root: str) -> bool:
    relative = posixpath.relpath(path, root).split("/")
    return any(part in PROTECTED for part in relative)


def _by_profile(boundary: Boundary, grant: Grant) -> bool:
    if boundary.profile == "danger-full-access":
        return True
    root = boundary.workspace_root
    if not _under(grant.path, root):
        return False
    if grant.access == "read":
        return True
    return boundary.profile == "workspace-write" and not _protected(grant.path, root)


def _by_grant(granted: Grant, need: Grant) -> bool:
    if need.access == "write" and granted.access != "write":
        return False
    if granted.match == "exact":
        return need.path == granted.path and need.match == "exact"
    if not _under(need.path, granted.path):
        return False
    # Protected metadata below a write grant stays read-only unless a grant names it.
    return need.access == "read" or not _protected(need.path, granted.path)


def _token_covered(boundary: Boundary, token: str) -> bool:
    need = entry(token)
    granted = [token for expansion in boundary.expansions for token in expansion]
    if need is None:
        return boundary.profile == "danger-full-access" or NETWORK in granted
    if _by_profile(boundary, need):
        return True
    return any(_by_grant(grant, need) for token in granted if (grant := entry(token)) is not None)


def missing(boundary: Boundary, need: Expansion) -> Expansion:
    """The part of *need* that *boundary* does not cover (empty: it is covered)."""
    return tuple(token for token in need if not _token_covered(boundary, token))


def covers(boundary: Boundary, need: Expansion) -> bool:
    return not missing(boundary, need)


def widened(boundary: Boundary, granted: Expansion) -> Boundary:
    """*boundary* with *granted* added at the next revision; unchanged when it already covers
    it. Refused (:class:`BoundaryError`) past :data:`MAX_EXPANSIONS`."""
    new = missing(boundary, granted)
    if not new:
        return boundary
    if len(boundary.expansions) >= MAX_EXPANSIONS:
        raise BoundaryError(f"the session's boundary holds at most {MAX_EXPANSIONS} expansions")
    return replace(boundary, expansions=(*boundary.expansions, new), revision=boundary.revision + 1)


def describe(tokens: Expansion) -> str:
    """*tokens* in words: ``write /srv/data (and below), the network``."""
    words = []
    for token in tokens:
        grant = entry(token)
        if grant is None:
            words.append("the network")
        else:
            below = " (and below)" if grant.match == "subtree" else ""
            words.append(f"{grant.access} {grant.path}{below}")
    return ", ".join(words)

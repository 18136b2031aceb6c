"""The bubblewrap command line of a sandboxed run, built from its boundary.

In order: the namespaces (``--die-with-parent``, its own PID, IPC and UTS namespaces, no network
unless granted), then the mounts from the shallowest path to the deepest — system directories
read-only, a private ``/tmp``, readable roots read-only, writable roots read-write, the
expansions as granted — then ``/proc`` and a minimal ``/dev``, then the protected metadata of
every writable path re-bound read-only, then the write expansions that name protected metadata
re-bound read-write, then secrets of the system directories masked, the sandbox's root made
read-only, and the working directory. A later mount covers an earlier one, so
the order is the policy.

Why no ``--new-session``: it guards a terminal shared with the outside against ``TIOCSTI``
input injection. A pipes run has no terminal at all (its leader starts a new session, stdin is
``/dev/null``); a PTY run's terminal is its own, made for it and read only by the service, and
it needs that terminal as its controlling terminal for job control.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from maka_runtime.resource.core.sandbox.boundary import ExecutionBoundary

__all__ = [
    "MASKED_FILES",
    "PROTECTED_NAMES",
    "SYSTEM_ROOTS",
    "SandboxLayout",
    "bwrap_argv",
    "layout",
    "roots_inside_masked",
]

#: Bound read-only into every sandbox (those that exist).
SYSTEM_ROOTS: Final = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
#: Files of the system directories a run never reads (covered with an empty file).
MASKED_FILES: Final = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-")
#: Names inside a writable path that stay read-only unless an expansion names them.
PROTECTED_NAMES: Final = (".git", ".maka")

_Kind = Literal["ro", "rw", "tmpfs"]
_FLAGS: Final[dict[_Kind, str]] = {"ro": "--ro-bind-try", "rw": "--bind-try"}


@dataclass(frozen=True)
class SandboxLayout:
    """Where a run's boundary puts things, before it becomes arguments."""

    #: (path, kind) in mount order.
    mounts: tuple[tuple[str, _Kind], ...]
    #: Protected metadata re-bound read-only, after the mounts (where the run sees it).
    protected: tuple[str, ...]
    #: The host realpath each of ``protected`` is bound from (same order).
    protected_from: tuple[str, ...]
    #: Write expansions inside protected metadata, bound read-write after it.
    reopened: tuple[str, ...]
    #: The service's own files inside a mounted root, covered last: (path, is a directory).
    masked: tuple[tuple[str, bool], ...]
    #: Every path the run can read (for checking its working directory).
    visible: tuple[str, ...]
    network: bool


def layout(
    boundary: ExecutionBoundary,
    *,
    readable: Sequence[str] = (),
    masked: Sequence[str] = (),
    depth: int = 0,
    scan_max: int = 0,
) -> SandboxLayout:
    """Where *boundary* (with its default roots already filled in) puts every path; *readable*
    are the service's extra readable roots, *masked* the paths no run may see, and nested
    metadata is protected down to *depth* directories below a writable root, looking at
    *scan_max* directories at most (settings)."""
    writable_roots = boundary.writable_roots if boundary.profile == "workspace-write" else ()
    read_roots = [*readable, *boundary.readable_roots]
    if boundary.profile == "read-only":
        read_roots.extend(boundary.writable_roots)
    planned: list[tuple[str, _Kind]] = [(path, "ro") for path in SYSTEM_ROOTS]
    planned.append(("/tmp", "tmpfs"))
    planned.extend((_norm(path), "ro") for path in read_roots)
    planned.extend((_norm(path), "rw") for path in writable_roots)
    entries = boundary.entries()
    planned.extend((_norm(e.path), "rw" if e.access == "write" else "ro") for e in entries)
    mounts = sorted(planned, key=lambda item: _depth(item[0]))  # stable: later wins on ties
    written = _Roots([path for path, kind in mounts if kind == "rw"])
    sources: dict[str, str] = {}
    for root in written.paths:
        sources.update(protected_metadata(root, written))
    for nested in nested_directories(written.paths, depth=depth, scan_max=scan_max):
        sources.update(protected_metadata(nested, written))
    named = [_norm(e.path) for e in entries if e.access == "write"]
    reopened = [n for n in named if any(_within(n, p) for p in sources)]
    visible = tuple(path for path, kind in mounts if kind != "tmpfs")
    return SandboxLayout(
        mounts=tuple(mounts),
        protected=tuple(sources),
        protected_from=tuple(sources.values()),
        reopened=tuple(dict.fromkeys(reopened)),
        masked=masked_within(masked, _Roots(list(visible))),
        visible=visible,
        network=boundary.network,
    )


def bwrap_argv(bwrap: str, plan: SandboxLayout, *, cwd: str) -> list[str]:
    """The arguments that start a command (appended after them) inside *plan*."""
    argv = [bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    if not plan.network:
        argv.append("--unshare-net")
    for path, kind in plan.mounts:
        if kind == "tmpfs":
            argv += ["--tmpfs", path]
        else:
            argv += [_FLAGS[kind], path, path]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    for path, source in zip(plan.protected, plan.protected_from, strict=True):
        argv += ["--ro-bind", source, path]
    for path in plan.reopened:
        argv += ["--bind-try", path, path]
    for path in MASKED_FILES:
        if os.path.exists(path):
            argv += ["--ro-bind", "/dev/null", path]
    for path, is_dir in plan.masked:
        argv += ["--tmpfs", path, "--remount-ro", path] if is_dir else _null(path)
    # The sandbox's own root (where bubblewrap made the mount points) is read-only too.
    argv += ["--remount-ro", "/", "--chdir", cwd, "--"]
    return argv


class _Roots:
    """Mounted roots, each as the run sees it and as it really is on the host."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.paths = tuple(paths)
        self._real = [(path, os.path.realpath(path)) for path in self.paths]

    def inside(self, real: str) -> str | None:
        """Where the host path *real* (a realpath) appears in the sandbox through these roots
        (the deepest root that holds it), or ``None`` if it is outside all of them."""
        best: tuple[int, str] | None = None
        for path, root in self._real:
            if _within(real, root) and (best is None or len(root) > best[0]):
                best = (len(root), path + real[len(root) :] if real != root else path)
        return None if best is None else _norm(best[1])


def protected_metadata(root: str, written: _Roots | None = None) -> dict[str, str]:
    """The protected metadata directly inside *root* that exists — ``.git`` (and, where it is
    a file, the gitdir it names) and ``.maka`` — as {path in the sandbox: host realpath}.

    Only ever something already writable is re-bound (read-only): an entry whose realpath is
    outside the writable roots (a symlink elsewhere, a gitdir naming ``/proc``) is left alone,
    and the run cannot see it, for it is outside its roots."""
    written = written or _Roots([root])
    found: dict[str, str] = {}
    for name in PROTECTED_NAMES:
        path = os.path.join(root, name)
        if not os.path.lexists(path):
            continue
        real = os.path.realpath(path)
        inside = written.inside(real) if os.path.exists(real) else None
        if inside is None:
            continue
        found[inside] = real
        if name == ".git" and os.path.isfile(real):
            gitdir = _gitdir(real)
            if gitdir is None or not os.path.isdir(gitdir):
                continue
            real_gitdir = os.path.realpath(gitdir)
            seen = written.inside(real_gitdir)
            if seen is not None:
                found[seen] = real_gitdir
    return found


def nested_directories(roots: Sequence[str], *, depth: int, scan_max: int) -> list[str]:
    """The directories down to *depth* levels below *roots* (breadth first, symlinks not
    followed, not into protected metadata), at most *scan_max* of them."""
    found: list[str] = []
    level = list(roots)
    for _ in range(depth):
        below: list[str] = []
        for path in level:
            for entry in _subdirectories(path):
                if len(found) >= scan_max:
                    return found
                found.append(entry)
                below.append(entry)
        level = below
    return found


def _subdirectories(path: str) -> list[str]:
    try:
        with os.scandir(path) as entries:
            return sorted(
                entry.path
                for entry in entries
                if entry.name not in PROTECTED_NAMES and _is_directory(entry)
            )
    except OSError:
        return []


def _is_directory(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def masked_within(masked: Sequence[str], visible: _Roots) -> tuple[tuple[str, bool], ...]:
    """(path in the sandbox, is a directory) of every *masked* path that exists and lies
    inside a mounted root."""
    found: dict[str, bool] = {}
    for path in masked:
        real = os.path.realpath(path)
        if not os.path.exists(real):
            continue
        inside = visible.inside(real)
        if inside is not None:
            found[inside] = os.path.isdir(real)
    return tuple(sorted(found.items(), key=lambda item: _depth(item[0])))


def roots_inside_masked(plan: SandboxLayout, masked: Sequence[str]) -> list[str]:
    """The mounted roots of *plan* that lie inside a *masked* path (a run there would see
    what the mask hides, so it is refused)."""
    reals = [os.path.realpath(path) for path in masked]
    return [
        root
        for root in plan.visible
        if any(_within(os.path.realpath(root), real) for real in reals) and root not in SYSTEM_ROOTS
    ]


def _null(path: str) -> list[str]:
    return ["--ro-bind", "/dev/null", path]


def _gitdir(dot_git: str) -> str | None:
    try:
        with open(dot_git, encoding="utf-8", errors="replace") as file:
            first = file.readline(8192).strip()
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:") :].strip()
    return os.path.normpath(os.path.join(os.path.dirname(dot_git), target))


def _norm(path: str) -> str:
    return os.path.normpath(path)


def _depth(path: str) -> int:
    return 0 if path == "/" else path.count("/")


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")

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

from resource_service.core.sandbox.boundary import ExecutionBoundary

__all__ = ["MASKED_FILES", "PROTECTED_NAMES", "SYSTEM_ROOTS", "SandboxLayout", "bwrap_argv"]

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
    #: Protected metadata re-bound read-only, after the mounts.
    protected: tuple[str, ...]
    #: Write expansions inside protected metadata, bound read-write after it.
    reopened: tuple[str, ...]
    #: Every path the run can read (for checking its working directory).
    visible: tuple[str, ...]
    network: bool


def layout(boundary: ExecutionBoundary, *, readable: Sequence[str] = ()) -> SandboxLayout:
    """Where *boundary* (with its default roots already filled in) puts every path; *readable*
    are the service's extra readable roots (a setting)."""
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
    written = [path for path, kind in mounts if kind == "rw"]
    protected = list(dict.fromkeys(p for root in written for p in protected_metadata(root)))
    named = [_norm(e.path) for e in entries if e.access == "write"]
    reopened = [n for n in named if any(_within(n, p) for p in protected)]
    return SandboxLayout(
        mounts=tuple(mounts),
        protected=tuple(protected),
        reopened=tuple(dict.fromkeys(reopened)),
        visible=tuple(path for path, kind in mounts if kind != "tmpfs"),
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
    for path in plan.protected:
        argv += ["--ro-bind", path, path]
    for path in plan.reopened:
        argv += ["--bind-try", path, path]
    for path in MASKED_FILES:
        if os.path.exists(path):
            argv += ["--ro-bind", "/dev/null", path]
    # The sandbox's own root (where bubblewrap made the mount points) is read-only too.
    argv += ["--remount-ro", "/", "--chdir", cwd, "--"]
    return argv


def protected_metadata(root: str) -> list[str]:
    """The protected metadata directly inside *root* that exists: ``.git`` (and, where it is
    a file, the gitdir it names) and ``.maka``."""
    found: list[str] = []
    for name in PROTECTED_NAMES:
        path = os.path.join(root, name)
        if not os.path.lexists(path):
            continue
        found.append(path)
        if name == ".git" and os.path.isfile(path):
            gitdir = _gitdir(path)
            if gitdir is not None and os.path.isdir(gitdir):
                found.append(gitdir)
    return found


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

"""The bubblewrap command line of a sandboxed run, built from its boundary.

In order: the namespaces (``--die-with-parent``, its own PID, IPC and UTS namespaces, no network
unless granted), then the mounts from the shallowest path to the deepest — system directories
read-only, a private ``/tmp``, readable roots read-only, writable roots read-write, the
expansions as granted — then ``/proc`` and a minimal ``/dev``, then the protected metadata of
every writable path re-bound read-only, then the write expansions that name protected metadata
re-bound read-write, then secrets of the system directories masked (wherever they are visible),
an empty read-only ``/sys``, the sandbox's root made read-only, and the working directory. A
later mount covers an earlier one, so the order is the policy: whatever a root of ``/`` brings
along, the host's ``/proc``, ``/dev``, ``/sys`` and ``/run`` are covered.

Every root and expansion is resolved (symlinks followed) before it is checked and bound: it is
bound from its real path, and the rules — no write to ``/`` or a system directory
(:func:`system_writes`), nothing of the service's own data — apply to that real path.

Why no ``--new-session``: it guards a terminal shared with the outside against ``TIOCSTI``
input injection. A pipes run has no terminal at all (its leader starts a new session, stdin is
``/dev/null``); a PTY run's terminal is its own, made for it and read only by the service, and
it needs that terminal as its controlling terminal for job control.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from maka_runtime.resource.core.sandbox.boundary import ExecutionBoundary, FilesystemEntry
from maka_runtime.resource.core.sandbox.fileview import FileView

__all__ = [
    "MASKED_FILES",
    "PROTECTED_NAMES",
    "SYSTEM_ROOTS",
    "SandboxLayout",
    "bwrap_argv",
    "layout",
    "roots_inside_masked",
    "system_writes",
]

log = logging.getLogger(__name__)

#: Bound read-only into every sandbox (those that exist).
SYSTEM_ROOTS: Final = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
#: Files of the system directories a run never reads (covered with an empty file).
MASKED_FILES: Final = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-")
#: A sandboxed run never writes these (nor ``/``), whatever its boundary says.
WRITE_REFUSED: Final = ("/proc", "/sys", "/dev", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32",
                        "/lib64", "/libx32", "/boot", "/run")  # fmt: skip
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
    #: The host realpath each of ``mounts`` is bound from (same order; a tmpfs: its path).
    mounts_from: tuple[str, ...] = ()
    #: Where :data:`MASKED_FILES` are visible in the sandbox (by real path), covered with
    #: an empty file.
    secrets: tuple[str, ...] = ()
    #: Expansion entries not bound: they lie inside the service's own data (still masked).
    skipped: tuple[str, ...] = ()
    #: Paths this layout would make writable that are ``/`` or in a system directory (by
    #: real path): such a boundary is refused (:func:`system_writes`).
    refused: tuple[str, ...] = ()


def layout(
    boundary: ExecutionBoundary,
    *,
    readable: Sequence[str] = (),
    masked: Sequence[str] = (),
    depth: int = 0,
    scan_max: int = 0,
    fs: FileView | None = None,
) -> SandboxLayout:
    """Where *boundary* (with its default roots already filled in) puts every path; *readable*
    are the service's extra readable roots, *masked* the paths no run may see, and nested
    metadata is protected down to *depth* directories below a writable root, looking at
    *scan_max* directories at most (settings). An expansion entry inside a *masked* path is
    left out (a durable grant there must not make every later run fail). *fs* is how the host
    is looked at (and what was looked at recorded: :mod:`.fileview`)."""
    fs = fs or FileView()
    writable_roots = boundary.writable_roots if boundary.profile == "workspace-write" else ()
    read_roots = [*readable, *boundary.readable_roots]
    if boundary.profile == "read-only":
        read_roots.extend(boundary.writable_roots)
    planned: list[tuple[str, _Kind]] = [(path, "ro") for path in SYSTEM_ROOTS]
    planned += [("/tmp", "tmpfs"), ("/run", "tmpfs")]
    planned.extend((_norm(path), "ro") for path in read_roots)
    planned.extend((_norm(path), "rw") for path in writable_roots)
    entries, skipped = _outside_masked(boundary.entries(), masked, fs)
    planned.extend((_norm(e.path), "rw" if e.access == "write" else "ro") for e in entries)
    mounts = sorted(planned, key=lambda item: _depth(item[0]))  # stable: later wins on ties
    written = _Roots([path for path, kind in mounts if kind == "rw"], fs=fs)
    sources: dict[str, str] = {}
    for root in written.paths:
        sources.update(protected_metadata(root, written, fs))
    for nested in nested_directories(written.paths, depth=depth, scan_max=scan_max, fs=fs):
        sources.update(protected_metadata(nested, written, fs))
    named = [_norm(e.path) for e in entries if e.access == "write"]
    reopened = [n for n in named if any(_within(n, p) for p in sources)]
    visible = _Roots([path for path, kind in mounts if kind != "tmpfs"], mounts, fs=fs)
    return SandboxLayout(
        mounts=tuple(mounts),
        protected=tuple(sources),
        protected_from=tuple(sources.values()),
        reopened=tuple(dict.fromkeys(reopened)),
        masked=masked_within(masked, visible, fs),
        visible=visible.paths,
        network=boundary.network,
        mounts_from=tuple(path if kind == "tmpfs" else fs.real(path) for path, kind in mounts),
        secrets=tuple(path for path, _ in masked_within(MASKED_FILES, visible, fs)),
        skipped=skipped,
        refused=tuple(dict.fromkeys(p for p, real in written.real if _system(real, fs))),
    )


def _outside_masked(
    entries: Sequence[FilesystemEntry], masked: Sequence[str], fs: FileView
) -> tuple[list[FilesystemEntry], tuple[str, ...]]:
    """(*entries* not inside a *masked* path, the paths of those that are), by real path."""
    reals = [fs.real(path) for path in masked]
    kept: list[FilesystemEntry] = []
    skipped: list[FilesystemEntry] = []
    for entry in entries:
        real = fs.real(entry.path)
        (skipped if any(_within(real, m) for m in reals) else kept).append(entry)
    return kept, tuple(dict.fromkeys(_norm(e.path) for e in skipped))


def system_writes(plan: SandboxLayout) -> str:
    """Why *plan* may not start — it would make ``/`` or a system directory writable — or
    ``""``. Checked on the real path, so a symlink to ``/etc`` is ``/etc``."""
    if not plan.refused:
        return ""
    named = ", ".join(
        path if _real(path) == path else f"{path} (really {_real(path)})" for path in plan.refused
    )
    return (
        f"the boundary makes {named} writable: a sandboxed run never writes / or a system "
        f"directory ({' '.join(WRITE_REFUSED)})"
    )


def bwrap_argv(bwrap: str, plan: SandboxLayout, *, cwd: str) -> list[str]:
    """The arguments that start a command (appended after them) inside *plan*."""
    if plan.refused:
        raise PermissionError(system_writes(plan))
    argv = [bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    if not plan.network:
        argv.append("--unshare-net")
    sources = plan.mounts_from or tuple(path for path, _ in plan.mounts)
    for (path, kind), source in zip(plan.mounts, sources, strict=True):
        if kind == "tmpfs":
            argv += ["--tmpfs", path]
        else:
            argv += [_FLAGS[kind], source, path]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    for path, source in zip(plan.protected, plan.protected_from, strict=True):
        argv += ["--ro-bind", source, path]
    for path in plan.reopened:
        argv += ["--bind-try", path, path]
    for path in plan.secrets:
        argv += _null(path)
    for path, is_dir in plan.masked:
        argv += ["--tmpfs", path, "--remount-ro", path] if is_dir else _null(path)
    # Nothing of the host's /sys (cgroups included), whatever a root of / brought along; the
    # sandbox's own root (where bubblewrap made the mount points) is read-only too.
    argv += ["--tmpfs", "/sys", "--remount-ro", "/sys"]
    argv += ["--remount-ro", "/", "--chdir", cwd, "--"]
    return argv


class _Roots:
    """Mounted roots, each as the run sees it and as it really is on the host; *cover* are all
    the sandbox's mounts (tmpfs included), to tell where a root is itself covered."""

    def __init__(
        self,
        paths: Sequence[str],
        cover: Sequence[tuple[str, _Kind]] = (),
        *,
        fs: FileView | None = None,
    ) -> None:
        self.paths = tuple(paths)
        real = fs.real if fs is not None else _real
        self.real = [(path, real(path)) for path in self.paths]
        self._cover = [path for path, _ in cover] or list(self.paths)

    def inside(self, real: str) -> str | None:
        """Where the host path *real* (a realpath) appears in the sandbox through these roots
        (the deepest root that holds it), or ``None`` if it is outside all of them."""
        best: tuple[int, str] | None = None
        for path, root in self.real:
            if _within(real, root) and (best is None or len(root) > best[0]):
                best = (len(root), path + real[len(root) :] if real != root else path)
        return None if best is None else _norm(best[1])

    def everywhere(self, real: str) -> list[str]:
        """Every place the host path *real* (a realpath) is visible in the sandbox: through
        each root that holds it, where no deeper mount covers that place."""
        found: list[str] = []
        for path, root in self.real:
            if not _within(real, root):
                continue
            place = _norm(path + real[len(root) :]) if real != root else path
            deepest = max((c for c in self._cover if _within(place, c)), key=_depth)
            if _depth(deepest) == _depth(path) and place not in found:
                found.append(place)
        return found


def protected_metadata(
    root: str, written: _Roots | None = None, fs: FileView | None = None
) -> dict[str, str]:
    """The protected metadata directly inside *root* that exists — ``.git`` (and, where it is
    a file, the gitdir it names) and ``.maka`` — as {path in the sandbox: host realpath}.

    Only ever something already writable is re-bound (read-only): an entry whose realpath is
    outside the writable roots (a symlink elsewhere, a gitdir naming ``/proc``) is left alone,
    and the run cannot see it, for it is outside its roots."""
    fs = fs or FileView()
    written = written or _Roots([root], fs=fs)
    found: dict[str, str] = {}
    for name in PROTECTED_NAMES:
        path = os.path.join(root, name)
        if not fs.lexists(path):
            continue
        real = fs.real(path)
        inside = written.inside(real) if fs.exists(real) else None
        if inside is None:
            continue
        found[inside] = real
        if name == ".git" and fs.isfile(real):
            gitdir = _gitdir(real, fs)
            if gitdir is None or not fs.isdir(gitdir):
                continue
            real_gitdir = fs.real(gitdir)
            seen = written.inside(real_gitdir)
            if seen is not None:
                found[seen] = real_gitdir
    return found


def nested_directories(
    roots: Sequence[str], *, depth: int, scan_max: int, fs: FileView | None = None
) -> list[str]:
    """The directories down to *depth* levels below *roots* (breadth first, symlinks not
    followed, not into protected metadata), at most *scan_max* of them."""
    fs = fs or FileView()
    found: list[str] = []
    level = list(roots)
    for _ in range(depth):
        below: list[str] = []
        for path in level:
            for entry in _subdirectories(path, fs):
                if len(found) >= scan_max:
                    return found
                found.append(entry)
                below.append(entry)
        level = below
    return found


def _subdirectories(path: str, fs: FileView) -> list[str]:
    return sorted(
        entry.path
        for entry in fs.listing(path)
        if entry.name not in PROTECTED_NAMES and _is_directory(entry)
    )


def _is_directory(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def masked_within(
    masked: Sequence[str], visible: _Roots, fs: FileView | None = None
) -> tuple[tuple[str, bool], ...]:
    """(path in the sandbox, is a directory) of every *masked* path that exists, wherever it is
    visible through a mounted root (by real path: a root that is a symlink to ``/etc`` shows
    ``/etc/shadow`` under another name)."""
    fs = fs or FileView()
    found: dict[str, bool] = {}
    for path in masked:
        real = fs.real(path)
        if not fs.exists(real):
            continue
        for inside in visible.everywhere(real):
            found[inside] = fs.isdir(real)
    return tuple(sorted(found.items(), key=lambda item: _depth(item[0])))


def roots_inside_masked(
    plan: SandboxLayout, masked: Sequence[str], fs: FileView | None = None
) -> list[str]:
    """The mounted roots of *plan* that lie inside a *masked* path (a run there would see
    what the mask hides, so it is refused)."""
    fs = fs or FileView()
    reals = [fs.real(path) for path in masked]
    return [
        root
        for root in plan.visible
        if any(_within(fs.real(root), real) for real in reals) and root not in SYSTEM_ROOTS
    ]


def _system(real: str, fs: FileView | None = None) -> bool:
    resolve = fs.real if fs is not None else _real
    return real == "/" or any(_within(real, d) or _within(real, resolve(d)) for d in WRITE_REFUSED)


def _real(path: str) -> str:
    return os.path.realpath(path)


def _null(path: str) -> list[str]:
    return ["--ro-bind", "/dev/null", path]


def _gitdir(dot_git: str, fs: FileView) -> str | None:
    line = fs.read_line(dot_git, 8192)
    if line is None:
        return None
    first = line.strip()
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

"""The sandbox and containment settings of the shell-run host (flags and environment in
``maka_runtime/resource/server.py``; the README's configuration table)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = ["CgroupEntry", "ContainmentMode", "SandboxSettings"]

#: ``auto``: a cgroup per run where the service can make one, else the process group.
#: ``process-group``: never a cgroup (forces the fallback).
ContainmentMode: TypeAlias = Literal["auto", "process-group"]
#: How a run's leader enters its cgroup. ``auto``: created inside it (``clone3``) where the
#: start-up probe finds that possible, else it joins. ``join``: it always writes itself into
#: ``cgroup.procs`` (the way without the native spawner).
CgroupEntry: TypeAlias = Literal["auto", "join"]


@dataclass(frozen=True)
class SandboxSettings:
    """How runs are confined."""

    #: The bubblewrap executable: a name looked up on PATH, or a path.
    bwrap: str = "bwrap"
    #: Extra read-only roots of every sandbox, besides the system directories and the
    #: boundary's own roots (a toolchain outside /usr, say).
    readable_roots: tuple[str, ...] = ()
    #: Extra variable names of the service's environment that runs see, besides the
    #: allow-list (``environment.ALLOWED_VARIABLES``).
    env_allow: tuple[str, ...] = ()
    #: Paths no run may see (the service's data directory, its token file and TLS key, and
    #: the ``--sandbox-masked-paths`` setting): covered with an empty tmpfs (a directory) or
    #: ``/dev/null`` (a file) wherever they lie inside a mounted root.
    masked_paths: tuple[str, ...] = ()
    #: How many directory levels below a writable root nested ``.git``/``.maka`` are
    #: protected too (0: only those directly inside the root).
    protect_depth: int = 3
    #: Most directories that scan looks at per run (it stops there).
    protect_scan_max: int = 1024
    #: Most boundaries whose sandbox layout is kept for later runs while the host still looks
    #: the same (``layouts.LayoutCache``); 0: every run computes its own.
    layout_cache_entries: int = 64
    containment: ContainmentMode = "auto"
    cgroup_entry: CgroupEntry = "auto"
    #: The cgroup v2 directory under which runs get their cgroups; ``None``: ``maka-runs``
    #: under the service's own cgroup.
    cgroup_root: str | None = None
    #: Names this service's directory under the cgroup root (the server uses a digest of its
    #: data directory, so a restarted service finds what a dead one left); ``""``: one of
    #: this process's own.
    cgroup_instance: str = ""
    #: Most processes (``pids.max``) of one run; ``None``: no limit.
    pids_max: int | None = None
    #: Most memory (``memory.max``, bytes) of one run; ``None``: no limit.
    memory_max: int | None = None

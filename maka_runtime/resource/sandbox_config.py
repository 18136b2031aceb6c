"""The sandbox and containment settings of ``maka-resource`` (flags and environment)."""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
from pathlib import Path
from typing import Any

from maka_runtime.common.config import CommonConfig, SettingsParser, bounded_int
from maka_runtime.resource.core import SandboxSettings

__all__ = ["add_sandbox_settings", "masked_service_paths", "sandbox_settings"]

_MAX_PIDS = 4_194_304
_MAX_MEMORY = 1 << 50


def _names(value: str) -> tuple[str, ...]:
    names = tuple(name for name in (part.strip() for part in value.split(",")) if name)
    for name in names:
        if not name.replace("_", "a").isalnum() or name[0].isdigit():
            raise argparse.ArgumentTypeError(f"not a variable name: {name!r}")
    return names


def _paths(value: str) -> tuple[str, ...]:
    paths = tuple(path for path in value.split(os.pathsep) if path)
    for path in paths:
        if not os.path.isabs(path):
            raise argparse.ArgumentTypeError(f"not an absolute path: {path!r}")
    return paths


def add_sandbox_settings(settings: SettingsParser) -> None:
    settings.add(
        "sandbox-bwrap",
        default="bwrap",
        metavar="PATH",
        help="the bubblewrap executable (a name on PATH or a path); without a working one, "
        "sandboxed runs are refused with SANDBOX_UNAVAILABLE",
    )
    settings.add(
        "sandbox-readable-roots",
        type=_paths,
        default="",
        metavar="DIRS",
        help="extra read-only directories of every sandbox, separated by ':' (besides /usr, "
        "/bin, /sbin, /lib*, /etc and the boundary's roots)",
    )
    settings.add(
        "sandbox-env-allow",
        type=_names,
        default="",
        metavar="NAMES",
        help="extra variables of the service's environment that runs see, separated by ',' "
        "(besides PATH, HOME, USER, LOGNAME, SHELL, LANG, LANGUAGE, LC_*, TERM, TZ)",
    )
    settings.add(
        "sandbox-masked-paths",
        type=_paths,
        default="",
        metavar="PATHS",
        help="extra files or directories no run may see, separated by ':' (besides the "
        "service's data directory, token file and TLS key, always hidden)",
    )
    _add_layout_settings(settings)
    _add_containment_settings(settings)


def _add_layout_settings(settings: SettingsParser) -> None:
    settings.add(
        "sandbox-protect-depth",
        type=bounded_int(0, 16),
        default="3",
        metavar="N",
        help="protect nested .git and .maka down to N directory levels below a writable root "
        "(0: only those directly inside it)",
    )
    settings.add(
        "sandbox-protect-scan-max",
        type=bounded_int(0, 1_000_000),
        default="1024",
        metavar="N",
        help="most directories the nested .git/.maka scan looks at per run (it stops there)",
    )
    settings.add(
        "sandbox-layout-cache",
        type=bounded_int(0, 65_536),
        default="64",
        metavar="N",
        help="most boundaries whose sandbox layout is kept for later runs while nothing it "
        "looked at changed (0: every run computes its own)",
    )


def _add_containment_settings(settings: SettingsParser) -> None:
    settings.add(
        "run-containment",
        choices=("auto", "process-group"),
        default="auto",
        help="auto: every run in a cgroup v2 of its own where the service can make one, else "
        "its process group; process-group: never a cgroup",
    )
    settings.add(
        "run-cgroup-entry",
        choices=("auto", "join"),
        default="auto",
        help="how a run's first process enters its cgroup. auto: it is created inside it "
        "(clone3) where the host allows that, else it joins; join: it always joins it itself "
        "(which can wait for the kernel after an idle spell)",
    )
    settings.add(
        "run-cgroup-root",
        default="",
        metavar="DIR",
        help="the cgroup v2 directory under which runs get their cgroups (empty: maka-runs "
        "under the service's own cgroup)",
    )
    settings.add(
        "run-pids-max",
        type=bounded_int(0, _MAX_PIDS),
        default="0",
        metavar="N",
        help="most processes of one run (cgroup pids.max; 0: no limit; needs the pids "
        "controller in the cgroup v2 tree)",
    )
    settings.add(
        "run-memory-max",
        type=bounded_int(0, _MAX_MEMORY, "bytes"),
        default="0",
        metavar="BYTES",
        help="most memory of one run (cgroup memory.max; 0: no limit; needs the memory "
        "controller in the cgroup v2 tree)",
    )


def sandbox_settings(ns: Any, data_dir: Path) -> SandboxSettings:
    """The settings parsed into *ns*; the cgroup directory is named after *data_dir*, so a
    restarted service over the same data finds the cgroups a dead one left."""
    digest = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:16]
    return SandboxSettings(
        bwrap=str(ns.sandbox_bwrap),
        readable_roots=tuple(ns.sandbox_readable_roots),
        env_allow=tuple(ns.sandbox_env_allow),
        masked_paths=tuple(ns.sandbox_masked_paths),
        protect_depth=int(ns.sandbox_protect_depth),
        protect_scan_max=int(ns.sandbox_protect_scan_max),
        layout_cache_entries=int(ns.sandbox_layout_cache),
        containment="process-group" if ns.run_containment == "process-group" else "auto",
        cgroup_entry="join" if ns.run_cgroup_entry == "join" else "auto",
        cgroup_root=str(ns.run_cgroup_root) or None,
        cgroup_instance=f"data-{digest}",
        pids_max=int(ns.run_pids_max) or None,
        memory_max=int(ns.run_memory_max) or None,
    )


def masked_service_paths(common: CommonConfig, settings: SandboxSettings) -> SandboxSettings:
    """*settings* also hiding the service's own data from every run: the common data
    directory (credentials, both services' stores), the token file and the TLS key."""
    own = [common.data_dir, common.token_file, common.tls_key]
    paths = [str(path) for path in own if path is not None]
    masked = tuple(dict.fromkeys([*paths, *settings.masked_paths]))
    return dataclasses.replace(settings, masked_paths=masked)

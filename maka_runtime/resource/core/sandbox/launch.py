"""How a run's process is started: inside the sandbox its boundary asks for (or deliberately
not, for ``danger-full-access``), in a cgroup of its own where the host can make one, with the
clean environment.

The leader is a tiny ``/bin/sh`` prologue (no Python in the child). Where the host allows it,
it is created inside the run's cgroup (``process/leader.py``: ``clone3`` with
``CLONE_INTO_CGROUP``); elsewhere ``subprocess`` starts it and it first joins the run's cgroup
itself. Either way that is before anything of the command runs, so nothing the command starts
can be outside it. Then, for a PTY run, it opens the terminal (a session leader without a
controlling terminal that opens one acquires it), and ``exec``s bubblewrap or the shell under
the same PID. Inside a sandbox the leader is bubblewrap, which ignores the terminal's and the
host's HUP/INT/QUIT/TERM/TSTP (so a program that handles them gets them, not its jailer);
``env --default-signal`` restores them for the command. bubblewrap reports a command killed by
signal N as exit code 128 + N; the host records that as the signal.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from maka_runtime.resource.core.errors import InvalidRequestError, SandboxUnavailableError
from maka_runtime.resource.core.records import RunSandbox
from maka_runtime.resource.core.recovery import RecoveryReport
from maka_runtime.resource.core.sandbox.bwrap import SandboxLayout, bwrap_argv, system_writes
from maka_runtime.resource.core.sandbox.cgroups import (
    CgroupTree,
    RunCgroup,
    cgroup2_mount,
    own_cgroup,
    sweep_leftovers,
)
from maka_runtime.resource.core.sandbox.environment import check_request_env, run_environment
from maka_runtime.resource.core.sandbox.layouts import LayoutCache
from maka_runtime.resource.core.sandbox.probe import BwrapProbe, probe_bwrap
from maka_runtime.resource.core.sandbox.settings import SandboxSettings

if TYPE_CHECKING:
    from collections.abc import Mapping

    from maka_runtime.resource.core.requests import BashInput
    from maka_runtime.resource.core.sandbox.boundary import ExecutionBoundary

__all__ = ["Capabilities", "LaunchPlan", "Sandbox"]

log = logging.getLogger(__name__)

SHELL: Final = "/bin/bash"
#: What restores the jailer's ignored signals for the command, by its path inside the sandbox
#: (``/usr`` is always bound there): never looked up on the run's ``PATH``, which the request
#: may set to anything.
ENV: Final = "/usr/bin/env"
_JOIN: Final = 'if [ -n "$0" ]; then echo 0 > "$0" || exit 125; fi; '
# A gated leader waits at its gate (its stdin, a pipe) for "go" before anything of the command
# runs; end of file instead (the host refused or lost the run, or died) ends it there.
_GATE: Final = 'IFS= read -r go && [ "$go" = go ] || exit 125; exec </dev/null; '
_TTY: Final = 'if [ -n "$1" ]; then exec 3<>"$1" 3<&-; fi; shift; '
# A gated PTY leader's stdin is its gate; past it, its stdin becomes the terminal, opened by
# name, which (as the leader of a session without one) makes it its controlling terminal.
_GATE_THEN_TTY: Final = 'IFS= read -r go && [ "$go" = go ] || exit 125; exec 0<>"$1"; shift; '
# $0: the cgroup.procs to join (or ""), $1: the terminal to open (or ""), then the argv.
_PROLOGUE: Final = _JOIN + _TTY
_GATED_PROLOGUE: Final = _JOIN + _GATE + _TTY
_GATED_TTY_PROLOGUE: Final = _JOIN + _GATE_THEN_TTY
#: The prologue by (gated, with a terminal).
_PROLOGUES: Final = {
    (False, False): _PROLOGUE,
    (False, True): _PROLOGUE,
    (True, False): _GATED_PROLOGUE,
    (True, True): _GATED_TTY_PROLOGUE,
}
_JAILER_SIGNALS: Final = "HUP,INT,QUIT,TERM,TSTP"
_JAILER_SIGNAL_NUMBERS: Final = tuple(
    int(getattr(signal, f"SIG{name}")) for name in _JAILER_SIGNALS.split(",")
)
#: Most distinct skipped expansion paths logged (each once).
_SKIPPED_LOGGED_MAX: Final = 1024


@dataclass(frozen=True)
class Capabilities:
    """What the host can do, as the start-up probes found it (GetServerInfo reports it)."""

    bwrap: BwrapProbe
    #: ``cgroup`` or ``process-group``.
    containment: str
    #: Why there are no cgroups (empty with them).
    containment_reason: str = ""
    cgroup_root: str = ""
    cgroup_controllers: tuple[str, ...] = ()
    #: How a run's leader enters its cgroup: ``clone3`` (created inside it) or ``join`` (it
    #: writes itself into ``cgroup.procs``); empty without cgroups.
    cgroup_entry: str = ""
    #: Why leaders join their cgroup instead (empty otherwise).
    cgroup_entry_reason: str = ""
    #: Configured per-run limits that cannot be enforced here, and why.
    unenforced_limits: tuple[str, ...] = ()


@dataclass
class LaunchPlan:
    """The argv, environment and cgroup of one run's process."""

    env: dict[str, str]
    cgroup: RunCgroup | None
    sandboxed: bool
    _bwrap: list[str] = field(default_factory=list)
    #: The leader is started inside :attr:`cgroup` (``clone3``) instead of joining it.
    clone_into: bool = False

    @property
    def entry_cgroup(self) -> Path | None:
        """The cgroup to start the leader in (``None``: start it where the service is)."""
        return self.cgroup.path if self.cgroup is not None and self.clone_into else None

    @property
    def direct(self) -> bool:
        """Whether a gated pipes leader can skip the ``/bin/sh`` prologue: it is created
        inside its cgroup (nothing to join) and the native spawner reads its gate and leaves
        :attr:`ignored_signals` ignored itself (``PipesProcess.spawn``)."""
        return self.entry_cgroup is not None

    @property
    def ignored_signals(self) -> tuple[int, ...]:
        """What the leader leaves ignored: bubblewrap the terminal's and the host's signals
        (``env --default-signal`` restores them for the command); nothing outside a sandbox."""
        return _JAILER_SIGNAL_NUMBERS if self.sandboxed else ()

    def direct_argv(self, command: str) -> list[str]:
        """The leader's argv without the prologue (see :attr:`direct`)."""
        if not self.sandboxed:
            return [SHELL, "-c", command]
        inner = [ENV, f"--default-signal={_JAILER_SIGNALS}", SHELL, "-c", command]
        return [*self._bwrap, *inner]

    def argv(self, command: str, *, tty: str = "", gated: bool = False) -> list[str]:
        """The leader's argv; *gated*: it reads its gate on stdin first (see ``_GATE``; a
        gated leader with a *tty* then takes the terminal as its stdin)."""
        joins = self.cgroup is not None and not self.clone_into
        procs = str(self.cgroup.procs) if self.cgroup is not None and joins else ""
        prologue = _PROLOGUES[gated, bool(tty)]
        if not self.sandboxed:
            return ["/bin/sh", "-c", prologue + 'exec "$@"', procs, tty, SHELL, "-c", command]
        inner = [ENV, f"--default-signal={_JAILER_SIGNALS}", SHELL, "-c", command]
        script = prologue + "trap '' " + _JAILER_SIGNALS.replace(",", " ") + '; exec "$@"'
        return ["/bin/sh", "-c", script, procs, tty, *self._bwrap, *inner]


class Sandbox:
    """Builds every run's launch from its boundary and the host's capabilities."""

    def __init__(self, settings: SandboxSettings, bwrap: BwrapProbe, tree: CgroupTree | None,
                 capabilities: Capabilities) -> None:  # fmt: skip
        self.settings = settings
        self._bwrap = bwrap
        self._tree = tree
        self.capabilities = capabilities
        self._skipped_logged: set[str] = set()
        #: The layouts of recent boundaries, while the host still looks the same.
        self.layouts = LayoutCache(settings)

    @classmethod
    def open(cls, settings: SandboxSettings) -> Sandbox:
        """Probe bubblewrap and cgroups (blocking: a few milliseconds of child processes, the
        two probes' side by side, so the start waits for the slower only)."""
        with ThreadPoolExecutor(1, thread_name_prefix="maka-cgroup-probe") as pool:
            cgroups = pool.submit(_cgroup_tree, settings)
            bwrap = probe_bwrap(settings.bwrap)
            tree, reason = cgroups.result()
        if not bwrap.available:
            log.warning("sandbox unavailable: %s; sandboxed runs are refused", bwrap.reason)
        caps = Capabilities(
            bwrap=bwrap,
            containment="cgroup" if tree is not None else "process-group",
            containment_reason=reason,
            cgroup_root=str(tree.base) if tree is not None else "",
            cgroup_controllers=tree.controllers if tree is not None else (),
            cgroup_entry=("clone3" if tree.clone_into else "join") if tree is not None else "",
            cgroup_entry_reason=tree.entry_reason if tree is not None else "",
            unenforced_limits=_unenforced(settings, tree),
        )
        if tree is None:
            log.warning("runs are contained by their process group only: %s", reason)
        for limit in caps.unenforced_limits:
            log.warning("limit not enforced: %s", limit)
        return cls(settings, bwrap, tree, caps)

    @property
    def tree(self) -> CgroupTree | None:
        return self._tree

    def close(self) -> None:
        """Remove this host's (empty) cgroup directory."""
        if self._tree is not None:
            self._tree.close()

    async def sweep(self, recovery: RecoveryReport, *, within: float) -> RecoveryReport:
        """Kill what is left in the run cgroups of a dead host; *recovery* with those PIDs."""
        if self._tree is None:
            return recovery
        killed = await sweep_leftovers(self._tree, within=within)
        pids = tuple(sorted({*recovery.killed_pids, *killed}))
        return dataclasses.replace(recovery, killed_pids=pids)

    def admit(self, request: BashInput) -> SandboxLayout | None:
        """Refuse a run this host cannot confine as its boundary asks, before it is recorded;
        returns the layout its sandbox will have (``None``: it has none), for :meth:`prepare`."""
        boundary = _boundary_of(request)
        check_request_env(request.env, sandboxed=boundary.sandboxed)
        if not boundary.sandboxed:
            return None
        if not self._bwrap.available:
            raise SandboxUnavailableError(
                f"the {boundary.profile} profile needs the sandbox, and it is unavailable: "
                f"{self._bwrap.reason}"
            )
        shape = self.layouts.shape(boundary)
        plan, hidden = shape.layout, shape.hidden
        refused = system_writes(plan)
        if refused:
            raise InvalidRequestError(refused, field="boundary")
        if hidden:
            raise InvalidRequestError(
                f"the run's roots {', '.join(hidden)} lie inside the service's own data, "
                "which no run may see",
                field="boundary",
            )
        if not any(_within(request.cwd, root) for root in plan.visible):
            raise InvalidRequestError(
                f"cwd {request.cwd} is outside the run's boundary (its roots: "
                f"{', '.join(boundary.writable_roots + boundary.readable_roots)})",
                field="cwd",
            )
        return plan

    def record_of(self, request: BashInput) -> RunSandbox:
        boundary = _boundary_of(request)
        return RunSandbox(
            profile=boundary.profile,
            boundary_revision=boundary.revision,
            network=boundary.network,
            containment=self.capabilities.containment,
        )

    def prepare(self, request: BashInput, run_id: str, service_env: Mapping[str, str],
                marker: Mapping[str, str],
                shape: SandboxLayout | None = None) -> LaunchPlan:  # fmt: skip
        """Make the run's cgroup and build its launch, in *shape* (the layout :meth:`admit`
        returned; ``None``: as the host is now); raises ``OSError`` if it cannot."""
        boundary = _boundary_of(request)
        env = run_environment(service_env, request.env, also_allowed=self.settings.env_allow)
        if request.pty:
            env["TERM"] = "xterm-256color"
            env.pop("COLUMNS", None)
            env.pop("LINES", None)
        env.update(marker)
        cgroup = None
        if self._tree is not None:
            cgroup = self._tree.create(
                run_id, pids_max=self.settings.pids_max, memory_max=self.settings.memory_max
            )
        plan = LaunchPlan(
            env=env,
            cgroup=cgroup,
            sandboxed=boundary.sandboxed,
            clone_into=self._tree is not None and self._tree.clone_into,
        )
        if boundary.sandboxed:
            shape = shape or self.layouts.shape(boundary).layout
            self._note_skipped(shape.skipped)
            plan._bwrap = bwrap_argv(self._bwrap.path, shape, cwd=request.cwd)
        return plan

    def _note_skipped(self, skipped: tuple[str, ...]) -> None:
        """Log, once per path (up to a bound), an expansion left out for it lies inside the
        service's own data."""
        for path in skipped:
            if path in self._skipped_logged or len(self._skipped_logged) >= _SKIPPED_LOGGED_MAX:
                continue
            self._skipped_logged.add(path)
            log.info("expansion %s not bound: it lies inside the service's own data", path)


def _boundary_of(request: BashInput) -> ExecutionBoundary:
    from maka_runtime.resource.core.sandbox.boundary import default_boundary

    if request.boundary is None:
        return default_boundary(request.cwd, request.cwd)
    return request.boundary.with_default_roots((request.cwd,))


def _cgroup_tree(settings: SandboxSettings) -> tuple[CgroupTree | None, str]:
    if settings.containment == "process-group":
        return None, "cgroups are turned off (--run-containment process-group)"
    if settings.cgroup_root:
        root = Path(settings.cgroup_root)
    else:
        mount, own = cgroup2_mount(), own_cgroup()
        if mount is None or own is None:
            return None, "no cgroup v2 hierarchy is mounted"
        root = mount / own.lstrip("/") / "maka-runs"
    instance = settings.cgroup_instance or f"p{os.getpid()}-{os.urandom(4).hex()}"
    probe = CgroupTree.probe(root / instance, clone_into=settings.cgroup_entry == "auto")
    return probe.tree, probe.reason


def _unenforced(settings: SandboxSettings, tree: CgroupTree | None) -> tuple[str, ...]:
    found = []
    for name, value in (("pids", settings.pids_max), ("memory", settings.memory_max)):
        if value is None:
            continue
        if tree is None:
            found.append(f"--run-{name}-max: runs have no cgroups")
        elif name not in tree.controllers:
            found.append(f"--run-{name}-max: the {name} controller is not in the cgroup v2 tree")
    return tuple(found)


def _within(path: str, root: str) -> bool:
    path, root = os.path.normpath(path), os.path.normpath(root)
    return root in (path, "/") or path.startswith(root.rstrip("/") + "/")

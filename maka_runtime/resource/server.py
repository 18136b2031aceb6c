"""``maka-resource``: configuration, wiring and the process entry point."""

from __future__ import annotations

import gc

# The start-up imports below allocate a great many objects and free next to none, so the
# cyclic collector, which runs every few hundred allocations, finds nothing to collect: it
# is paused while they run, and at the end of the module what they made is moved out of
# its reach (gc.freeze: modules, classes and functions live as long as the process), so no
# later collection walks it again. About a tenth of the start-up CPU.
_COLLECTING = gc.isenabled()
gc.disable()

import argparse
import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

import grpc
from maka_runtime_client.keepalive import RESOURCE_SERVER, KeepalivePolicy
from maka_runtime_proto.resource.v1 import resource_pb2, resource_pb2_grpc

from maka_runtime.common import event_loop
from maka_runtime.common.aio import TaskOwner, race
from maka_runtime.common.config import (
    DEFAULT_PAGE_BYTES,
    PAGE_BYTES_RANGE,
    CommonConfig,
    SettingsParser,
    bounded_int,
    positive_seconds,
)
from maka_runtime.common.per_caller import PerCaller
from maka_runtime.common.server import ServerHost, StartupError, run_main
from maka_runtime.common.sqlite import Synchronous, add_synchronous_setting, durability
from maka_runtime.common.storage_root import (
    RootOwner,
    StorageRootError,
    acquire_root_owner,
    resolve_storage_root,
)
from maka_runtime.resource.api import convert
from maka_runtime.resource.api.connections import ConnectionRegistry
from maka_runtime.resource.api.info import server_info
from maka_runtime.resource.api.servicer import ResourceServicer
from maka_runtime.resource.core import (
    Capabilities,
    DrainReport,
    ResourceError,
    ResourceHost,
    RunSupervisor,
    SessionAdmissionGate,
    SessionDirectory,
    SessionRegistry,
    ShellRunConfig,
)
from maka_runtime.resource.core.drain import drain
from maka_runtime.resource.core.sandbox import Sandbox
from maka_runtime.resource.core.sandbox.cgroups import cgroup2_options
from maka_runtime.resource.run_metrics import RunObserver
from maka_runtime.resource.sandbox_config import (
    add_sandbox_settings,
    masked_service_paths,
    sandbox_settings,
)
from maka_runtime.resource.store import SqliteShellRunStore

DEFAULT_PORT = 50052
SERVICE_NAME = resource_pb2.DESCRIPTOR.services_by_name["ResourceService"].full_name

log = logging.getLogger("maka.resource")


@dataclass(frozen=True)
class ResourceConfig:
    """Every setting of ``maka-resource`` (flags and environment, see ``--help``)."""

    common: CommonConfig
    shell: ShellRunConfig
    #: Admit any well-formed session id, not only the sessions the kernel registered.
    standalone: bool = False
    #: The event loop: ``uvloop`` (libuv's, the default: less CPU per call) or ``asyncio``.
    event_loop: str = "uvloop"
    #: The shell-run store's durability: ``NORMAL`` survives a crashed process, ``FULL`` also a
    #: power loss (``--sqlite-synchronous``, as the kernel's).
    sqlite_synchronous: Synchronous = "NORMAL"


def _limit(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if not 1 <= number <= 100_000:
        raise argparse.ArgumentTypeError(f"expected 1 to 100000, got {value!r}")
    return number


def parse_config(argv: Sequence[str] | None = None) -> ResourceConfig:
    settings = SettingsParser(
        service="resource",
        description="Maka Runtime resource service: shell runs over pipes and PTYs.",
        default_port=DEFAULT_PORT,
    )
    _add_shell_settings(settings, ShellRunConfig())
    add_sandbox_settings(settings)
    _add_output_settings(settings, ShellRunConfig())
    event_loop.add_setting(settings, "every stream, process and store call", default="uvloop")
    add_synchronous_setting(settings, "the shell-run store")
    common, ns = settings.parse(argv)
    shell = ShellRunConfig(
        max_live_runs=int(ns.max_live_runs),
        max_live_ptys=int(ns.max_live_ptys),
        max_live_runs_per_session=int(ns.max_live_runs_per_session) or None,
        max_page_bytes=int(ns.max_page_bytes),
        termination_grace=float(ns.termination_grace),
        watch_backlog=int(ns.watch_backlog),
        sandbox=sandbox_settings(ns, common.service_data_dir),
        max_run_output_bytes=int(ns.max_run_output_bytes),
        max_kept_output_bytes=int(ns.max_kept_output_bytes),
        finished_run_cache_bytes=int(ns.finished_run_cache_bytes),
        list_page_cache=int(ns.list_page_cache),
    )
    return ResourceConfig(
        common=common,
        shell=shell,
        standalone=bool(ns.standalone),
        event_loop=ns.event_loop,
        sqlite_synchronous=ns.sqlite_synchronous,
    )


def _add_output_settings(settings: SettingsParser, defaults: ShellRunConfig) -> None:
    """The bounds of the runs' output journals (maka_runtime/resource/core/journals.py)."""
    settings.add(
        "max-run-output-bytes",
        type=bounded_int(0, 1 << 40, "bytes"),
        default=str(defaults.max_run_output_bytes),
        metavar="BYTES",
        help="most output one run's journal keeps (its first part; the rest is counted per "
        "stream and reported as an OutputGap); 0 keeps none",
    )
    settings.add(
        "max-kept-output-bytes",
        type=bounded_int(0, 1 << 44, "bytes"),
        default=str(defaults.max_kept_output_bytes),
        metavar="BYTES",
        help="most bytes the output journals of ended runs keep together; the journals of the "
        "runs that ended first are removed first",
    )
    settings.add(
        "finished-run-cache-bytes",
        type=bounded_int(0, 1 << 34, "bytes"),
        default=str(defaults.finished_run_cache_bytes),
        metavar="BYTES",
        help="most bytes of finished runs' records kept in memory, as committed, so GetRun and "
        "ListRuns answer them without reading the store; 0 keeps none",
    )
    settings.add(
        "list-page-cache",
        type=bounded_int(0, 100_000),
        default=str(defaults.list_page_cache),
        metavar="N",
        help="most ListRuns pages of a session kept in memory for queries asked again, each "
        "while no run of the session has changed (0: none)",
    )


def _add_shell_settings(settings: SettingsParser, defaults: ShellRunConfig) -> None:
    settings.add(
        "max-live-runs",
        type=_limit,
        default=str(defaults.max_live_runs),
        metavar="N",
        help="most runs live at once; more starts are RESOURCE_EXHAUSTED",
    )
    settings.add(
        "max-live-ptys",
        type=_limit,
        default=str(defaults.max_live_ptys),
        metavar="N",
        help="most PTY runs live at once",
    )
    settings.add(
        "max-live-runs-per-session",
        type=bounded_int(0, 100_000),
        default="0",
        metavar="N",
        help="most runs of one session live at once (0: a quarter of --max-live-runs), so one "
        "session cannot starve the others",
    )
    settings.add(
        "max-page-bytes",
        type=bounded_int(*PAGE_BYTES_RANGE, "bytes"),
        default=str(DEFAULT_PAGE_BYTES),
        metavar="BYTES",
        help="most bytes one page of ListRuns (or the runs an ArchiveSession reply lists with "
        "their output) holds",
    )
    settings.add(
        "termination-grace",
        type=positive_seconds,
        default=str(defaults.termination_grace),
        metavar="SECONDS",
        help="between SIGTERM and SIGKILL when a run is stopped, times out or is drained",
    )
    settings.add(
        "watch-backlog",
        type=_limit,
        default=str(defaults.watch_backlog),
        metavar="N",
        help="most revisions queued for a WatchRuns watcher; past that: each run's latest",
    )
    settings.add_flag(
        "standalone",
        help="admit any well-formed session id, not only the sessions the kernel registered "
        "(RegisterSession); archived sessions are still refused",
    )


def _log_capabilities(caps: Capabilities) -> None:
    if caps.bwrap.available:
        log.info("sandbox: bubblewrap %s (%s)", caps.bwrap.version, caps.bwrap.path)
    else:
        log.warning("sandbox UNAVAILABLE, sandboxed runs are refused: %s", caps.bwrap.reason)
    if caps.containment == "cgroup":
        log.info("containment: a cgroup per run under %s", caps.cgroup_root)
        if caps.cgroup_entry == "clone3":
            log.info("containment: each run's leader is created inside its cgroup (clone3)")
        else:
            log.info(
                "containment: each run's leader joins its cgroup (%s)", caps.cgroup_entry_reason
            )
        if caps.cgroup_entry != "clone3" and "favordynmods" not in (cgroup2_options() or ()):
            log.info(
                "containment: cgroup2 is mounted without favordynmods, so moving a run into its "
                "cgroup can wait for an RCU grace period (5-20 ms) after an idle spell (README: "
                "Sandboxed execution)"
            )
    else:
        log.warning("containment: process groups only (%s)", caps.containment_reason)


class _Residencies:
    """Counts active background runs (each holds one token until it ends)."""

    def __init__(self) -> None:
        self.active = 0

    def acquire(self) -> _Residency:
        self.active += 1
        return _Residency(self)


class _Residency:
    def __init__(self, owner: _Residencies) -> None:
        self._owner: _Residencies | None = owner

    def release(self) -> None:
        owner, self._owner = self._owner, None
        if owner is not None:
            owner.active -= 1


class ResourceService:
    """The resource service as a :class:`maka_runtime.common.server.Service`."""

    service_names = (SERVICE_NAME,)
    #: The server's ping policy: the shared one, also accepting the kernel link's faster pings.
    keepalive: KeepalivePolicy = RESOURCE_SERVER

    def __init__(self, config: ResourceConfig, *, sessions: SessionDirectory | None = None) -> None:
        self.config = config
        #: Which sessions exist: unless given, the session registry kept in the store (opened
        #: by :meth:`open`), in kernel or standalone mode as configured.
        self._given_sessions = sessions
        self._sessions: SessionDirectory | None = sessions
        self._owner: RootOwner | None = None
        self._host: ServerHost | None = None
        self._store: SqliteShellRunStore | None = None
        self._supervisor: RunSupervisor | None = None
        self._resources: ResourceHost | None = None
        self._connections: ConnectionRegistry | None = None
        self._residencies = _Residencies()
        self._closing = asyncio.Event()
        self._tasks = TaskOwner(log)

    @property
    def host(self) -> ServerHost | None:
        """The process shell serving this service (once :meth:`open` has run)."""
        return self._host

    @property
    def storage_owner(self) -> RootOwner | None:
        """The lease on the storage root (once :meth:`open` has run): closing it is losing the
        store."""
        return self._owner

    @property
    def sessions(self) -> SessionDirectory:
        """The session directory (once :meth:`open` has run, unless one was given)."""
        assert self._sessions is not None
        return self._sessions

    @property
    def resources(self) -> ResourceHost:
        """The resource host, the core's façade (once :meth:`open` has run)."""
        assert self._resources is not None
        return self._resources

    @property
    def supervisor(self) -> RunSupervisor:
        """The run supervisor behind the resource host (once :meth:`open` has run)."""
        assert self._supervisor is not None
        return self._supervisor

    @property
    def active_residencies(self) -> int:
        """How many background runs hold a residency token now."""
        return self._residencies.active

    @property
    def failed(self) -> bool:
        """Whether the fail-stop latch has tripped."""
        return self._resources is not None and self._resources.failed

    @property
    def connections(self) -> ConnectionRegistry:
        """The open client connections (once :meth:`open` has run)."""
        assert self._connections is not None
        return self._connections

    async def open(self, host: ServerHost) -> None:
        self._host = host
        try:
            root = resolve_storage_root(self.config.common.service_data_dir, "resource")
            self._owner = acquire_root_owner(root)
        except (StorageRootError, OSError) as error:
            raise StartupError(str(error)) from error
        self._supervisor = supervisor = await self._open_store_and_supervisor(self._owner)
        _log_capabilities(supervisor.sandbox.capabilities)
        log.info("event loop: %s", event_loop.running_loop())
        log.info("store: %s", durability(self.config.sqlite_synchronous))
        recovery = self._supervisor.recovery
        if recovery is not None and recovery.orphaned:
            log.warning(
                "orphaned %d run(s) of a previous process; killed %d leftover process(es)",
                len(recovery.orphaned),
                len(recovery.killed_pids),
            )
        if isinstance(self._sessions, SessionRegistry):
            log.info(
                "sessions: %s mode; %d registered or archived",
                "standalone" if self._sessions.standalone else "kernel",
                len(self._sessions.known()),
            )
        self._resources = ResourceHost(
            supervisor=self._supervisor,
            admission=SessionAdmissionGate(self.sessions),
            acquire_residency=self._residencies.acquire,
            request_drain=self._fail_stop,
        )
        self._connections = ConnectionRegistry(self._resources)
        runs = RunObserver(self._supervisor, host.metrics)
        host.metrics.add_live(runs.live_runs)
        host.metrics.set_live_ptys(runs.live_ptys)

    async def _open_store_and_supervisor(self, owner: RootOwner) -> RunSupervisor:
        shell = replace(
            self.config.shell,
            output_dir=str(owner.lease.root.path / "output"),
            sandbox=masked_service_paths(self.config.common, self.config.shell.sandbox),
        )
        # The sandbox probes (child processes) run while the store opens, not after it.
        probing = asyncio.ensure_future(asyncio.to_thread(Sandbox.open, shell.sandbox))
        try:
            self._store = await SqliteShellRunStore.open(
                owner.lease, synchronous=self.config.sqlite_synchronous
            )
            if self._given_sessions is None:
                self._sessions = await SessionRegistry.open(
                    self._store, standalone=self.config.standalone
                )
            return await RunSupervisor.open(store=self._store, config=shell, sandbox=await probing)
        except (ResourceError, OSError) as error:
            await _close_unused(probing)
            await self.close()
            raise StartupError(f"cannot open the shell-run store: {error}") from error

    def register(self, server: grpc.aio.Server) -> None:
        assert self._host is not None and self._resources is not None
        assert self._connections is not None
        host, resources, supervisor = self._host, self._resources, self.supervisor
        answers: PerCaller[tuple[bool, bool, Capabilities], resource_pb2.GetServerInfoResponse]
        answers = PerCaller(
            lambda caller, state: server_info(
                host, caller, draining=state[0], standalone=state[1], sandbox=state[2]
            )
        )
        servicer = ResourceServicer(
            resources=resources,
            connections=self._connections,
            server_info=lambda: answers(
                (
                    host.draining or resources.draining,
                    resources.standalone,
                    supervisor.sandbox.capabilities,
                )
            ),
            shutdown=self._shutdown_rpc,
            closing=self._closing,
            finished_run_cache_bytes=supervisor.config.finished_run_cache_bytes,
            list_pages=supervisor.config.list_page_cache,
        )
        resource_pb2_grpc.add_ResourceServiceServicer_to_server(servicer, server)

    async def _shutdown_rpc(self) -> resource_pb2.ShutdownResponse:
        assert self._host is not None and self._resources is not None
        # Refuse new starts before this call yields: the host first reports NOT_SERVING.
        self._resources.begin_drain()
        # Shielded: a caller that goes away (or whose deadline passes) must not cancel the
        # shutdown it started; SIGTERM and later callers share the same one.
        response: resource_pb2.ShutdownResponse = await asyncio.shield(
            self._host.shutdown("Shutdown RPC")
        )
        return response

    async def drain(self, grace: float) -> resource_pb2.ShutdownResponse:
        """Climb the drain ladder (:mod:`maka_runtime.resource.core.drain`); answer with its report
        once the grace is over (or every run has ended). The ladder's last rung, waiting for
        the final records of the runs still ending, goes on: :meth:`close` waits for it."""
        assert self._resources is not None
        reported: asyncio.Future[DrainReport] = asyncio.get_running_loop().create_future()

        def report(drained: DrainReport) -> None:
            self._closing.set()
            reported.set_result(drained)

        ladder = self._tasks.spawn(
            drain(self._resources, grace, reported=report), name="drain", log_failure=True
        )
        await race(asyncio.shield(reported), asyncio.shield(ladder))
        if not reported.done():
            ladder.result()  # the ladder failed before its report: raise why
        return convert.drain_to_proto(reported.result())

    async def close(self) -> None:
        self._closing.set()
        if self._resources is not None:
            await self._resources.close()
        if self._supervisor is not None:
            await self._supervisor.close()
        await self._tasks.wait()
        if self._store is not None:
            await self._store.close()
        if self._owner is not None:
            self._owner.close()

    def _fail_stop(self, reason: str) -> None:
        """The fail-stop latch tripped (once, :mod:`maka_runtime.resource.core.failstop`): stop
        serving and drain."""
        log.error("fail-stop: %s; reporting NOT_SERVING and draining", reason)
        if self._resources is not None:
            self._resources.begin_drain()
        if self._host is not None:
            self._tasks.spawn(self._host.set_serving(False), name="not serving", log_failure=True)


async def _close_unused(probing: asyncio.Future[Sandbox]) -> None:
    """The sandbox of a start that failed before a supervisor took it: closed (its cgroup)."""
    try:
        sandbox = await probing
    except Exception:  # the start is failing already, and reports its own error
        return
    sandbox.close()


def main(argv: Sequence[str] | None = None) -> int:
    config = parse_config(argv)
    return run_main(
        config.common,
        ResourceService(config),
        loop_factory=event_loop.loop_factory(config.event_loop),
    )


gc.freeze()
if _COLLECTING:
    gc.enable()


if __name__ == "__main__":
    raise SystemExit(main())

"""``maka-resource``: configuration, wiring and the process entry point."""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from maka.resource.v1 import resource_pb2, resource_pb2_grpc

from maka_common.config import (
    DEFAULT_PAGE_BYTES,
    PAGE_BYTES_RANGE,
    CommonConfig,
    SettingsParser,
    bounded_int,
    positive_seconds,
)
from maka_common.server import ServerHost, StartupError, run_main
from maka_common.storage_root import (
    RootOwner,
    StorageRootError,
    acquire_root_owner,
    resolve_storage_root,
)
from resource_service.api import convert
from resource_service.api.connections import ConnectionRegistry
from resource_service.api.info import server_info
from resource_service.api.servicer import ResourceServicer
from resource_service.core import (
    HostRuntimeResourceCoordinator,
    ResourceError,
    SessionAdmissionGate,
    SessionDirectory,
    SessionRegistry,
    ShellRunConfig,
    ShellRunProcessManager,
)
from resource_service.store import SqliteShellRunStore

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
    defaults = ShellRunConfig()
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
    settings.add_flag(
        "standalone",
        help="admit any well-formed session id, not only the sessions the kernel registered "
        "(RegisterSession); archived sessions are still refused",
    )
    common, ns = settings.parse(argv)
    shell = ShellRunConfig(
        max_live_runs=int(ns.max_live_runs),
        max_live_ptys=int(ns.max_live_ptys),
        max_live_runs_per_session=int(ns.max_live_runs_per_session) or None,
        max_page_bytes=int(ns.max_page_bytes),
        termination_grace=float(ns.termination_grace),
    )
    return ResourceConfig(common=common, shell=shell, standalone=bool(ns.standalone))


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
    """The resource service as a :class:`maka_common.server.Service`."""

    service_names = (SERVICE_NAME,)

    def __init__(self, config: ResourceConfig, *, sessions: SessionDirectory | None = None) -> None:
        self.config = config
        #: Which sessions exist: unless given, the session registry kept in the store (opened
        #: by :meth:`open`), in kernel or standalone mode as configured.
        self._given_sessions = sessions
        self._sessions: SessionDirectory | None = sessions
        self._owner: RootOwner | None = None
        self._host: ServerHost | None = None
        self._store: SqliteShellRunStore | None = None
        self._manager: ShellRunProcessManager | None = None
        self._coordinator: HostRuntimeResourceCoordinator | None = None
        self._connections: ConnectionRegistry | None = None
        self._residencies = _Residencies()
        self._closing = asyncio.Event()
        self._failed = False
        self._background: set[asyncio.Task[Any]] = set()

    @property
    def sessions(self) -> SessionDirectory:
        """The session directory (once :meth:`open` has run, unless one was given)."""
        assert self._sessions is not None
        return self._sessions

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
        try:
            self._store = await SqliteShellRunStore.open(self._owner.lease)
            if self._given_sessions is None:
                self._sessions = await SessionRegistry.open(
                    self._store, standalone=self.config.standalone
                )
            self._manager = await ShellRunProcessManager.open(
                store=self._store, config=self.config.shell
            )
        except (ResourceError, OSError) as error:
            await self.close()
            raise StartupError(f"cannot open the shell-run store: {error}") from error
        recovery = self._manager.recovery
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
        self._coordinator = HostRuntimeResourceCoordinator(
            manager=self._manager,
            admission=SessionAdmissionGate(self.sessions),
            acquire_residency=self._residencies.acquire,
            request_drain=self._fail_stop,
        )
        self._connections = ConnectionRegistry(self._coordinator)

    def register(self, server: grpc.aio.Server) -> None:
        assert self._host is not None and self._coordinator is not None
        assert self._connections is not None
        host, coordinator = self._host, self._coordinator
        servicer = ResourceServicer(
            coordinator=coordinator,
            connections=self._connections,
            server_info=lambda: server_info(
                host,
                draining=host.draining or coordinator.draining,
                standalone=coordinator.standalone,
            ),
            shutdown=self._shutdown_rpc,
            closing=self._closing,
        )
        resource_pb2_grpc.add_ResourceServiceServicer_to_server(servicer, server)

    async def _shutdown_rpc(self) -> resource_pb2.ShutdownResponse:
        assert self._host is not None and self._coordinator is not None
        # Refuse new starts before this call yields: the host first reports NOT_SERVING.
        self._coordinator.begin_drain()
        # Shielded: a caller that goes away (or whose deadline passes) must not cancel the
        # shutdown it started; SIGTERM and later callers share the same one.
        response: resource_pb2.ShutdownResponse = await asyncio.shield(
            self._host.shutdown("Shutdown RPC")
        )
        return response

    async def drain(self, grace: float) -> resource_pb2.ShutdownResponse:
        """Refuse new runs, drop controllers, cancel live runs; wait up to *grace*.

        The report says how the runs live at the start of the drain ended within *grace*, and
        which had not ended by then. Those are not abandoned: their kill sequence skips the
        rest of its grace period (SIGKILL now), and :meth:`close` waits for their final states
        to be recorded before the process exits.
        """
        assert self._coordinator is not None and self._manager is not None
        self._coordinator.begin_drain()
        closing = asyncio.ensure_future(self._coordinator.close())
        self._background.add(closing)
        closing.add_done_callback(self._background.discard)
        try:
            report = await asyncio.wait_for(asyncio.shield(closing), grace)
        except TimeoutError:
            report = self._manager.drain_progress()
            self._manager.hurry()
            log.warning(
                "%d run(s) still ending after the %.1f s shutdown grace period; killing them: %s",
                len(report.unfinished),
                grace,
                ", ".join(report.unfinished),
            )
        self._closing.set()
        log.info(
            "drained: %s; %d unfinished; %d lost",
            dict(report.ended) or "no live runs",
            len(report.unfinished),
            report.lost,
        )
        return convert.drain_to_proto(report)

    async def close(self) -> None:
        self._closing.set()
        if self._coordinator is not None:
            await self._coordinator.close()
        if self._manager is not None:
            await self._manager.close()
        if self._store is not None:
            await self._store.close()
        if self._owner is not None:
            self._owner.close()

    def _fail_stop(self, reason: str) -> None:
        """State was lost or an invariant broke: stop serving and drain (once)."""
        if self._failed:
            return
        self._failed = True
        log.error("fail-stop: %s; reporting NOT_SERVING and draining", reason)
        if self._coordinator is not None:
            self._coordinator.begin_drain()
        if self._host is not None:
            task = asyncio.get_running_loop().create_task(self._host.set_serving(False))
            self._background.add(task)
            task.add_done_callback(self._background.discard)


def main(argv: Sequence[str] | None = None) -> int:
    config = parse_config(argv)
    return run_main(config.common, ResourceService(config))


if __name__ == "__main__":
    raise SystemExit(main())

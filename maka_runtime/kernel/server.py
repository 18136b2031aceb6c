"""``maka-kernel``: configuration, wiring and the process entry point.

Start-up: own the data directory (``DATA_DIR/kernel``), open the SQLite store on that lease,
run the start-up sweep (turns a dead process left running become aborted with an
``interrupted`` note; their pending interaction requests close as ``host_restarted``), then
build the kernel: the link to the resource service (where tools run), the backend registry
(shell — the default —, llm when connections are configured, scripted), the hosted interaction
and message authorities. The resource service need not be up yet: calls to it carry deadlines
and the link reconnects on its own.

Shutdown (the RPC, SIGTERM or SIGINT) drains the kernel: no new turns, running turns stopped
``after_step`` within the grace period and then ``immediate``; then the cascade asks the
resource service to shut down too (``--shutdown-resource``, on by default). If it cannot be
reached the kernel still exits 0 and says so (log line and ``ShutdownResponse.resource``).
"""

from __future__ import annotations

import gc

# The start-up imports below allocate a great many objects and free next to none, so the
# cyclic collector, which runs every few hundred allocations, finds nothing to collect: it
# is paused while they run, and at the end of the module what they made is moved out of
# its reach (gc.freeze: modules, classes and functions live as long as the process), so no
# later collection walks it again. About a tenth of the start-up CPU.
_COLLECTING = gc.isenabled()
gc.disable()

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from maka_runtime_client.credentials import TlsFiles
from maka_runtime_proto.kernel.v1 import kernel_pb2, kernel_pb2_grpc

from maka_runtime.common import event_loop, observability
from maka_runtime.common.config import (
    DEFAULT_PAGE_BYTES,
    CommonConfig,
    SettingsParser,
)
from maka_runtime.common.server import ServerHost, StartupError, run_main
from maka_runtime.common.sqlite import Synchronous, durability
from maka_runtime.common.storage_root import (
    RootOwner,
    StorageRootError,
    acquire_root_owner,
    resolve_storage_root,
)
from maka_runtime.kernel.api import convert
from maka_runtime.kernel.api.servicer import KernelServicer
from maka_runtime.kernel.backends import llm
from maka_runtime.kernel.backends.approvals import SessionApprovals
from maka_runtime.kernel.backends.factories import (
    SCRIPTED,
    SHELL,
    scripted_factory,
    shell_factory,
)
from maka_runtime.kernel.core import (
    BackendRegistry,
    HostedInteractionAuthority,
    HostedMessageAuthority,
    KernelError,
    RuntimeKernel,
)
from maka_runtime.kernel.core.interactions.messaging import DEFAULT_MAX_BYTES, DEFAULT_MAX_MESSAGES
from maka_runtime.kernel.core.recovery import SweepReport, recover_interrupted
from maka_runtime.kernel.core.tool_output import DEFAULT_BUDGET_BYTES
from maka_runtime.kernel.core.tools import HostShutdownReport
from maka_runtime.kernel.core.validation import KernelLimits
from maka_runtime.kernel.resource_link import LinkCredential, ResourceLink
from maka_runtime.kernel.settings import DEFAULT_LOOP, add_settings
from maka_runtime.kernel.store.observed import ObservedSessionStore
from maka_runtime.kernel.store.sqlite import SqliteSessionStore

DEFAULT_PORT = 50051
SERVICE_NAME = kernel_pb2.DESCRIPTOR.services_by_name["KernelService"].full_name
# After the shutdown grace, turns stopped immediately get this long to settle.
ESCALATION_GRACE = 5.0

log = logging.getLogger("maka.kernel")


@dataclass(frozen=True)
class KernelConfig:
    """Every setting of ``maka-kernel`` (flags and environment, see ``--help``)."""

    common: CommonConfig
    resource_address: str
    answer_timeout: float | None = None
    sqlite_synchronous: Synchronous = "NORMAL"
    default_backend: str = SHELL
    #: The LLM connections (``--llm-connections FILE``); empty: the llm backend has none.
    llm_connections: Mapping[str, llm.LlmConnection] = field(default_factory=dict)
    llm_connections_file: str = ""
    resource_timeout: float = 10.0
    shutdown_resource: bool = True
    max_page_bytes: int = DEFAULT_PAGE_BYTES
    max_queued_messages: int = DEFAULT_MAX_MESSAGES
    max_queued_bytes: int = DEFAULT_MAX_BYTES
    max_early_stops: int = 16
    session_header_cache: int = 1024
    list_page_cache: int = 64
    #: Bounds of a stop (``--stop-confirm-timeout``, ``--stop-settle-timeout``).
    stop_confirm_timeout: float = 10.0
    stop_settle_timeout: float = 5.0
    #: Per stream, the most bytes of one tool call's output kept in the log.
    tool_output_budget_bytes: int = DEFAULT_BUDGET_BYTES
    #: The resource link's credential: a file holding its bearer token (empty: ``MAKA_TOKEN``,
    #: then the local credential of the data directory) and TLS files (empty: plaintext).
    resource_token_file: str = ""
    resource_tls_ca: str = ""
    resource_tls_cert: str = ""
    resource_tls_key: str = ""
    #: The event loop (``--event-loop``): ``uvloop`` (the default) or ``asyncio``.
    event_loop: str = DEFAULT_LOOP

    def kernel_limits(self) -> KernelLimits:
        """The kernel core's limits from these settings."""
        return KernelLimits(
            max_response_bytes=self.max_page_bytes,
            max_early_stops=self.max_early_stops,
            list_page_cache=self.list_page_cache,
            stop_confirm_timeout=self.stop_confirm_timeout,
            stop_settle_timeout=self.stop_settle_timeout,
            protected_dirs=(str(self.common.data_dir),),
        )


def resource_credential(config: KernelConfig) -> LinkCredential:
    """How the kernel authenticates to the resource service (see ``--resource-token-file``)."""
    token = None
    if config.resource_token_file:
        try:
            token = Path(config.resource_token_file).read_text(encoding="utf-8").strip()
        except OSError as error:
            raise StartupError(f"cannot read --resource-token-file: {error}") from None
    files = (config.resource_tls_ca, config.resource_tls_cert, config.resource_tls_key)
    tls = TlsFiles(*(Path(f) if f else None for f in files)) if any(files) else None
    return LinkCredential(token=token, data_dir=str(config.common.data_dir), tls=tls)


def parse_config(argv: Sequence[str] | None = None) -> KernelConfig:
    settings = SettingsParser(
        service="kernel",
        description="Maka Runtime kernel service: sessions, turns, stops, interactions.",
        default_port=DEFAULT_PORT,
    )
    add_settings(settings)
    common, ns = settings.parse(argv)
    return KernelConfig(
        common=common,
        resource_address=ns.resource_address,
        answer_timeout=ns.answer_timeout or None,
        sqlite_synchronous=ns.sqlite_synchronous,
        default_backend=ns.default_backend,
        llm_connections=ns.llm_connections[1],
        llm_connections_file=ns.llm_connections[0],
        resource_timeout=ns.resource_timeout or 10.0,
        shutdown_resource=ns.shutdown_resource,
        max_page_bytes=int(ns.max_page_bytes),
        max_queued_messages=int(ns.max_queued_messages),
        max_queued_bytes=int(ns.max_queued_bytes),
        max_early_stops=int(ns.max_early_stops),
        session_header_cache=int(ns.session_header_cache),
        list_page_cache=int(ns.list_page_cache),
        stop_confirm_timeout=ns.stop_confirm_timeout or 10.0,
        stop_settle_timeout=ns.stop_settle_timeout or 5.0,
        tool_output_budget_bytes=int(ns.tool_output_budget_bytes),
        resource_token_file=ns.resource_token_file,
        resource_tls_ca=ns.resource_tls_ca,
        resource_tls_cert=ns.resource_tls_cert,
        resource_tls_key=ns.resource_tls_key,
        event_loop=ns.event_loop,
    )


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class KernelService:
    """The kernel as a :class:`maka_runtime.common.server.Service`."""

    service_names = (SERVICE_NAME,)

    def __init__(self, config: KernelConfig) -> None:
        self.config = config
        self._owner: RootOwner | None = None
        self._host: ServerHost | None = None
        self.store: SqliteSessionStore | None = None
        self._interactions: HostedInteractionAuthority | None = None
        self.kernel: RuntimeKernel | None = None
        self.resources: ResourceLink | None = None
        self.approvals = SessionApprovals(protected=(str(self.config.common.data_dir),))
        self.backends = BackendRegistry()
        self.backends.register(SCRIPTED, scripted_factory)

    @property
    def host(self) -> ServerHost | None:
        """The process shell serving this service (once :meth:`open` has run)."""
        return self._host

    async def open(self, host: ServerHost) -> None:
        self._host = host
        # The link's channel belongs to the serving event loop: made here, not in __init__.
        self.resources = ResourceLink(
            self.config.resource_address,
            call_timeout=self.config.resource_timeout,
            credential=resource_credential(self.config),
            interceptors=observability.client_interceptors(host),
        )
        self._register_backends(self.resources)
        store, report = await self._open_store(host)
        log.info("event loop: %s", event_loop.running_loop())
        log.info("store: %s", durability(self.config.sqlite_synchronous))
        if report.interrupted_turns or report.sessions_updated or report.interactions_closed:
            log.warning(
                "start-up sweep: %d interrupted turn(s), %d session(s) updated, "
                "%d interaction request(s) closed",
                len(report.interrupted_turns),
                len(report.sessions_updated),
                len(report.interactions_closed),
            )
        self._interactions = HostedInteractionAuthority(
            store, now=now_ms, answer_timeout=self.config.answer_timeout
        )
        self.kernel = RuntimeKernel(
            store=store,
            backends=self.backends,
            interaction_authority=self._interactions,
            message_authority=HostedMessageAuthority(
                max_messages=self.config.max_queued_messages,
                max_bytes=self.config.max_queued_bytes,
            ),
            now=now_ms,
            tool_host=self.resources,
            limits=self.config.kernel_limits(),
        )
        await self._resume_unconfirmed()

    async def _open_store(self, host: ServerHost) -> tuple[ObservedSessionStore, SweepReport]:
        try:
            root = resolve_storage_root(self.config.common.service_data_dir, "kernel")
            self._owner = owner = acquire_root_owner(root)
        except (StorageRootError, OSError) as error:
            raise StartupError(str(error)) from error
        try:
            self.store = store = await ObservedSessionStore.open_observed(
                owner.lease,
                synchronous=self.config.sqlite_synchronous,
                header_cache_size=self.config.session_header_cache,
            )
            store.recorder = host.metrics
            host.metrics.add_live(store.live_turns)
            return store, await recover_interrupted(store, now_ms())
        except KernelError as error:
            owner.close()
            raise StartupError(f"cannot open the session store: {error}") from error

    def _register_backends(self, host: ResourceLink) -> None:
        tools = (
            host,
            self.approvals,
            self.config.stop_confirm_timeout,
            self.config.tool_output_budget_bytes,
        )
        self.backends.register(SHELL, shell_factory(*tools))
        self.backends.register(llm.KIND, llm.llm_factory(self.config.llm_connections, *tools))

    async def _resume_unconfirmed(self) -> None:
        assert self.kernel is not None
        unconfirmed = await self.kernel.resume_unconfirmed()
        if unconfirmed:
            log.warning(
                "start-up: %d stopped run(s) not confirmed ended yet: their sessions stay "
                "quarantined until the resource service confirms it",
                unconfirmed,
            )

    def register(self, server: grpc.aio.Server) -> None:
        assert self._host is not None and self.kernel is not None
        kernel_pb2_grpc.add_KernelServiceServicer_to_server(
            KernelServicer(
                self.kernel,
                self._host,
                default_backend=self.config.default_backend,
                resource_address=self.config.resource_address,
                session_protos=self.config.session_header_cache,
                list_pages=self.config.list_page_cache,
            ),
            server,
        )

    async def drain(self, grace: float) -> kernel_pb2.ShutdownResponse:
        assert self.kernel is not None
        report = await self.kernel.shut_down(grace=grace, escalation_grace=ESCALATION_GRACE)
        for turn in report.turns:
            log.info(
                "drain: turn %s of session %s %s%s",
                turn.turn_id,
                turn.session_id,
                turn.outcome,
                f" ({turn.failure})" if turn.failure else "",
            )
        cascade: HostShutdownReport | None = None
        if self.config.shutdown_resource and self.resources is not None:
            cascade = await self.resources.shutdown()
            if cascade.reached:
                log.info(
                    "shutdown cascade: the resource service at %s ended %d run(s), %d unfinished",
                    self.config.resource_address,
                    cascade.runs_ended,
                    cascade.runs_unfinished,
                )
            else:
                log.warning(
                    "shutdown cascade: could not shut the resource service down: %s",
                    cascade.error,
                )
        return convert.shutdown_response(report, cascade)

    async def close(self) -> None:
        if self.kernel is not None:
            await self.kernel.close()
        if self.resources is not None:
            await self.resources.close()
        if self._interactions is not None:
            await self._interactions.aclose()
        if self.store is not None:
            await self.store.close()
        if self._owner is not None:
            self._owner.close()


def main(argv: Sequence[str] | None = None) -> int:
    config = parse_config(argv)
    loop = event_loop.loop_factory(config.event_loop)
    return run_main(config.common, KernelService(config), loop_factory=loop)


gc.freeze()
if _COLLECTING:
    gc.enable()


if __name__ == "__main__":
    raise SystemExit(main())

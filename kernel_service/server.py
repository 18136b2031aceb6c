"""``maka-kernel``: configuration, wiring and the process entry point."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from maka.kernel.v1 import kernel_pb2, kernel_pb2_grpc

from kernel_service.api.info import server_info
from maka_common.config import CommonConfig, SettingsParser, target_address
from maka_common.server import ServerHost, StartupError, run_main
from maka_common.storage_root import (
    RootOwner,
    StorageRootError,
    acquire_root_owner,
    resolve_storage_root,
)

DEFAULT_PORT = 50051
SERVICE_NAME = kernel_pb2.DESCRIPTOR.services_by_name["KernelService"].full_name


@dataclass(frozen=True)
class KernelConfig:
    """Every setting of ``maka-kernel`` (flags and environment, see ``--help``)."""

    common: CommonConfig
    resource_address: str


def parse_config(argv: Sequence[str] | None = None) -> KernelConfig:
    settings = SettingsParser(
        service="kernel",
        description="Maka Runtime kernel service: sessions, turns, stops, interactions.",
        default_port=DEFAULT_PORT,
    )
    settings.add(
        "resource-address",
        type=target_address,
        default="127.0.0.1:50052",
        metavar="HOST:PORT",
        help="where the resource service listens",
    )
    common, ns = settings.parse(argv)
    return KernelConfig(common=common, resource_address=ns.resource_address)


class _Servicer(kernel_pb2_grpc.KernelServiceServicer):
    def __init__(self, host: ServerHost) -> None:
        self._host = host

    async def GetServerInfo(
        self,
        request: kernel_pb2.GetServerInfoRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> kernel_pb2.GetServerInfoResponse:
        return server_info(self._host)


class KernelService:
    """The kernel as a :class:`maka_common.server.Service`."""

    service_names = (SERVICE_NAME,)

    def __init__(self, config: KernelConfig) -> None:
        self.config = config
        self._owner: RootOwner | None = None
        self._host: ServerHost | None = None

    async def open(self, host: ServerHost) -> None:
        self._host = host
        try:
            root = resolve_storage_root(self.config.common.service_data_dir, "kernel")
            self._owner = acquire_root_owner(root)
        except (StorageRootError, OSError) as error:
            raise StartupError(str(error)) from error

    def register(self, server: grpc.aio.Server) -> None:
        assert self._host is not None
        kernel_pb2_grpc.add_KernelServiceServicer_to_server(_Servicer(self._host), server)

    async def drain(self, grace: float) -> None:
        return None

    async def close(self) -> None:
        if self._owner is not None:
            self._owner.close()


def main(argv: Sequence[str] | None = None) -> int:
    config = parse_config(argv)
    return run_main(config.common, KernelService(config))


if __name__ == "__main__":
    raise SystemExit(main())

"""``maka-resource``: configuration, wiring and the process entry point."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from maka.resource.v1 import resource_pb2, resource_pb2_grpc

from maka_common.config import CommonConfig, SettingsParser
from maka_common.server import ServerHost, StartupError, run_main
from maka_common.storage_root import (
    RootOwner,
    StorageRootError,
    acquire_root_owner,
    resolve_storage_root,
)
from resource_service.api.info import server_info

DEFAULT_PORT = 50052
SERVICE_NAME = resource_pb2.DESCRIPTOR.services_by_name["ResourceService"].full_name


@dataclass(frozen=True)
class ResourceConfig:
    """Every setting of ``maka-resource`` (flags and environment, see ``--help``)."""

    common: CommonConfig


def parse_config(argv: Sequence[str] | None = None) -> ResourceConfig:
    settings = SettingsParser(
        service="resource",
        description="Maka Runtime resource service: shell runs over pipes and PTYs.",
        default_port=DEFAULT_PORT,
    )
    common, _ = settings.parse(argv)
    return ResourceConfig(common=common)


class _Servicer(resource_pb2_grpc.ResourceServiceServicer):
    def __init__(self, host: ServerHost) -> None:
        self._host = host

    async def GetServerInfo(
        self,
        request: resource_pb2.GetServerInfoRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> resource_pb2.GetServerInfoResponse:
        return server_info(self._host)


class ResourceService:
    """The resource service as a :class:`maka_common.server.Service`."""

    service_names = (SERVICE_NAME,)

    def __init__(self, config: ResourceConfig) -> None:
        self.config = config
        self._owner: RootOwner | None = None
        self._host: ServerHost | None = None

    async def open(self, host: ServerHost) -> None:
        self._host = host
        try:
            root = resolve_storage_root(self.config.common.service_data_dir, "resource")
            self._owner = acquire_root_owner(root)
        except (StorageRootError, OSError) as error:
            raise StartupError(str(error)) from error

    def register(self, server: grpc.aio.Server) -> None:
        assert self._host is not None
        resource_pb2_grpc.add_ResourceServiceServicer_to_server(_Servicer(self._host), server)

    async def drain(self, grace: float) -> None:
        return None

    async def close(self) -> None:
        if self._owner is not None:
            self._owner.close()


def main(argv: Sequence[str] | None = None) -> int:
    config = parse_config(argv)
    return run_main(config.common, ResourceService(config))


if __name__ == "__main__":
    raise SystemExit(main())

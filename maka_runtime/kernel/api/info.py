"""``GetServerInfo``: what this process is (a cheap unary RPC for probes and load baselines)."""

from __future__ import annotations

import os

from google.protobuf import timestamp_pb2
from maka_runtime_proto.kernel.v1 import kernel_pb2

from maka_runtime.common.principal import Principal
from maka_runtime.common.server import ServerHost, package_version


def server_info(
    host: ServerHost,
    caller: Principal | None,
    *,
    draining: bool,
    default_backend: str = "",
    resource_address: str = "",
) -> kernel_pb2.GetServerInfoResponse:
    """What the process is, for *caller* (built once per caller and state:
    :class:`~maka_runtime.common.per_caller.PerCaller`)."""
    started = timestamp_pb2.Timestamp()
    started.FromNanoseconds(int(host.started_at * 1e9))
    return kernel_pb2.GetServerInfoResponse(
        service=host.name,
        version=package_version(),
        listen_address=host.listen_address,
        auth_mode=host.auth_mode,
        data_dir=str(host.config.service_data_dir),
        started_at=started,
        draining=draining,
        pid=os.getpid(),
        default_backend=default_backend,
        resource_address=resource_address,
        principal=caller.id if caller else "",
        principal_roles=sorted(caller.roles) if caller else [],
    )

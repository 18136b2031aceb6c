"""``GetServerInfo``: what this process is (a cheap unary RPC for probes and load baselines)."""

from __future__ import annotations

import os

from google.protobuf import timestamp_pb2
from maka_runtime_proto.resource.v1 import resource_pb2

from maka_runtime.common.principal import Principal
from maka_runtime.common.server import ServerHost, package_version
from maka_runtime.resource.api.sandbox_convert import capabilities_to_proto
from maka_runtime.resource.core import Capabilities


def server_info(
    host: ServerHost,
    caller: Principal | None,
    *,
    draining: bool,
    standalone: bool,
    sandbox: Capabilities | None = None,
) -> resource_pb2.GetServerInfoResponse:
    """*draining*: new work is refused (a shutdown began, or the fail-stop latch tripped).
    *standalone*: any well-formed session id is admitted, not only registered sessions.
    Built once per caller and state (:class:`~maka_runtime.common.per_caller.PerCaller`)."""
    started = timestamp_pb2.Timestamp()
    started.FromNanoseconds(int(host.started_at * 1e9))
    return resource_pb2.GetServerInfoResponse(
        service=host.name,
        version=package_version(),
        listen_address=host.listen_address,
        auth_mode=host.auth_mode,
        data_dir=str(host.config.service_data_dir),
        started_at=started,
        draining=draining,
        pid=os.getpid(),
        standalone=standalone,
        sandbox=capabilities_to_proto(sandbox) if sandbox is not None else None,
        principal=caller.id if caller else "",
        principal_roles=sorted(caller.roles) if caller else [],
    )

"""gRPC status with ``google.rpc.ErrorInfo`` details: building them (servers) and reading them
(clients, tests).

Reasons are stable upper-case codes (``OPERATION_CONFLICT``, ``HOST_DRAINING`` …); ``domain``
names the service (``kernel.maka`` or ``resource.maka``); ``metadata`` carries specifics such as
the offending ``field``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NoReturn

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

# Reading ErrorInfo is the clients' business; servers and tests use the SDK's reader.
from maka_client.errors import error_info

__all__ = ["KERNEL_DOMAIN", "RESOURCE_DOMAIN", "abort", "error_info", "make_status"]

KERNEL_DOMAIN = "kernel.maka"
RESOURCE_DOMAIN = "resource.maka"


def make_status(
    code: grpc.StatusCode,
    message: str,
    *,
    reason: str,
    domain: str,
    metadata: Mapping[str, str] | None = None,
) -> grpc.Status:
    """A ``grpc.Status`` carrying one ``ErrorInfo`` detail."""
    info = error_details_pb2.ErrorInfo(
        reason=reason, domain=domain, metadata={k: str(v) for k, v in (metadata or {}).items()}
    )
    detail = any_pb2.Any()
    detail.Pack(info)
    status: grpc.Status = rpc_status.to_status(
        status_pb2.Status(code=code.value[0], message=message, details=[detail])
    )
    return status


async def abort(
    context: grpc.aio.ServicerContext,  # type: ignore[type-arg]
    code: grpc.StatusCode,
    message: str,
    *,
    reason: str,
    domain: str,
    metadata: Mapping[str, str] | None = None,
) -> NoReturn:
    """End the RPC with *code*, *message* and an ``ErrorInfo``."""
    await context.abort_with_status(
        make_status(code, message, reason=reason, domain=domain, metadata=metadata)
    )
    raise AssertionError("abort_with_status returned")  # pragma: no cover

"""Container health check: ask this container's service ``grpc.health.v1.Health/Check``.

Exit 0 when the service answers ``SERVING``, 1 otherwise (one line on stderr saying why). It
reads the service's own settings from the environment: the port of ``MAKA_LISTEN``, and under
TLS the CA ``MAKA_TLS_CA`` (default: the client CA) to check the server's certificate, and for
mutual TLS (``MAKA_TLS_CLIENT_CA`` set) the service's own certificate and key as the client's.
The health service needs no credential, so no token is sent.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

TIMEOUT_SECONDS = 4.0


def channel() -> grpc.Channel:
    port = os.environ.get("MAKA_LISTEN", "127.0.0.1:0").rpartition(":")[2]
    target = f"127.0.0.1:{port}"
    cert = os.environ.get("MAKA_TLS_CERT")
    if not cert:
        return grpc.insecure_channel(target)
    client_ca = os.environ.get("MAKA_TLS_CLIENT_CA")
    root = os.environ.get("MAKA_TLS_CA") or client_ca
    credentials = grpc.ssl_channel_credentials(
        root_certificates=Path(root).read_bytes() if root else None,
        private_key=Path(os.environ["MAKA_TLS_KEY"]).read_bytes() if client_ca else None,
        certificate_chain=Path(cert).read_bytes() if client_ca else None,
    )
    return grpc.secure_channel(target, credentials)


def main() -> int:
    try:
        with channel() as ch:
            reply = health_pb2_grpc.HealthStub(ch).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=TIMEOUT_SECONDS
            )
    except (grpc.RpcError, OSError, KeyError) as error:
        sys.stderr.write(f"unhealthy: {error}\n")
        return 1
    if reply.status != health_pb2.HealthCheckResponse.SERVING:
        status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
        sys.stderr.write(f"unhealthy: {status}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

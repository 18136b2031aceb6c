"""The suite's credential: every service a test starts accepts it, every channel carries it.

At import (from ``tests/conftest.py``) a token is made and its digest written to a token file;
``MAKA_TOKEN_FILE`` and ``MAKA_TOKEN`` point every service process (and every client: the SDK,
the CLI, the Go and Node clients) at it. Channels a test opens directly with
``grpc.insecure_channel`` / ``grpc.aio.insecure_channel`` get it as ``authorization`` metadata,
so tests written before authentication keep working unchanged. Tests of authentication itself
open :func:`bare_channel` / :func:`bare_aio_channel` (no credential) and pass their own.
"""

from __future__ import annotations

import collections
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import grpc
from maka_runtime_client.credentials import bearer_interceptors

from maka_runtime.common.auth import hash_token, new_token

TOKEN = new_token()
_DIR = Path(tempfile.mkdtemp(prefix="maka-suite-credentials-"))
TOKEN_FILE = _DIR / "tokens.json"
TOKEN_FILE.write_text(
    json.dumps(
        {
            "tokens": [
                {
                    "principal": "suite",
                    "roles": ["admin", "operator", "kernel", "client"],
                    "sha256": hash_token(TOKEN),
                }
            ]
        }
    )
)
os.chmod(TOKEN_FILE, 0o600)
METADATA = (("authorization", f"Bearer {TOKEN}"),)
#: The environment that points a service or client process at the suite's credential.
ENV = {"MAKA_TOKEN_FILE": str(TOKEN_FILE), "MAKA_TOKEN": TOKEN}

bare_channel = grpc.insecure_channel
bare_aio_channel = grpc.aio.insecure_channel


class _Details(
    collections.namedtuple(
        "_Details",
        ("method", "timeout", "metadata", "credentials", "wait_for_ready", "compression"),
    ),
    grpc.ClientCallDetails,
):
    pass


class _SyncBearer(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    def _details(self, details: Any) -> Any:
        metadata = list(details.metadata or ())
        if not any(key == "authorization" for key, _ in metadata):
            metadata.extend(METADATA)
        return _Details(
            details.method,
            details.timeout,
            metadata,
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._details(details), requests)

    def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._details(details), requests)


def _channel(target: str, *args: Any, **kwargs: Any) -> grpc.Channel:
    return grpc.intercept_channel(bare_channel(target, *args, **kwargs), _SyncBearer())


def _aio_channel(
    target: str, options: Any = None, compression: Any = None, interceptors: Any = None
) -> Any:
    # Innermost: a credential the caller's own interceptors added is kept.
    chain = [*(interceptors or ()), *bearer_interceptors(TOKEN)]
    return bare_aio_channel(target, options, compression, chain)


def install() -> None:
    """Point services and clients at the suite's credential (see the module docstring)."""
    os.environ.update(ENV)
    grpc.insecure_channel = _channel
    grpc.aio.insecure_channel = _aio_channel

"""Where a client finds its credential, and the channel that carries it.

The token, first found wins:

1. the ``token`` a caller passes (``ClientOptions.token``, the CLI's ``--token``);
2. the ``MAKA_TOKEN`` environment variable;
3. the local credential ``DATA_DIR/credentials/local.token`` of the service pair, where
   ``DATA_DIR`` is ``MAKA_DATA_DIR`` or the default data directory (``~/.local/share/
   maka-runtime`` on Linux). The services create it on first start.

A client that presents a certificate (mutual TLS) skips step 3: its certificate is its
credential. Without a token the call goes out bare and the service answers ``UNAUTHENTICATED``
(:class:`~maka_runtime_client.errors.UnauthenticatedError`).

TLS: ``tls_ca`` (``MAKA_TLS_CA``) is the CA that signed the server's certificate; with
``tls_cert``/``tls_key`` (``MAKA_TLS_CERT``/``MAKA_TLS_KEY``) the client presents a certificate
(mutual TLS). Without any of them the channel is plaintext (loopback).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import platformdirs

TOKEN_ENV = "MAKA_TOKEN"
DATA_DIR_ENV = "MAKA_DATA_DIR"
LOCAL_TOKEN = Path("credentials") / "local.token"


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("maka-runtime", appauthor=False))


def local_token(
    data_dir: Path | str | None = None, env: Mapping[str, str] | None = None
) -> str | None:
    """The local credential of *data_dir* (``MAKA_DATA_DIR`` or the default), if readable."""
    environ = os.environ if env is None else env
    base = Path(data_dir) if data_dir else Path(environ.get(DATA_DIR_ENV) or default_data_dir())
    try:
        text = (base.expanduser() / LOCAL_TOKEN).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return text or None


def discover_token(
    token: str | None = None,
    *,
    data_dir: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    local: bool = True,
) -> str | None:
    """The token to send (see the module docstring for the order); with ``local=False`` the
    local credential is not looked for (a client that presents a certificate)."""
    environ = os.environ if env is None else env
    if token:
        return token
    if environ.get(TOKEN_ENV):
        return environ[TOKEN_ENV]
    return local_token(data_dir, environ) if local else None


@dataclass(frozen=True)
class TlsFiles:
    """PEM files of a TLS channel: the server's CA, and a client certificate (mutual TLS)."""

    ca: Path | None = None
    cert: Path | None = None
    key: Path | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> TlsFiles | None:
        environ = os.environ if env is None else env
        files = cls(
            *(
                Path(environ[n]) if environ.get(n) else None
                for n in ("MAKA_TLS_CA", "MAKA_TLS_CERT", "MAKA_TLS_KEY")
            )
        )
        return files if files != cls() else None

    def credentials(self) -> grpc.ChannelCredentials:
        def read(path: Path | None) -> bytes | None:
            return path.read_bytes() if path is not None else None

        return grpc.ssl_channel_credentials(
            root_certificates=read(self.ca),
            private_key=read(self.key),
            certificate_chain=read(self.cert),
        )


class _Bearer:
    def __init__(self, token: str) -> None:
        self._pair = ("authorization", f"Bearer {token}")

    def _details(self, details: Any) -> Any:
        metadata = list(details.metadata or ())
        if not any(key == "authorization" for key, _ in metadata):
            metadata.append(self._pair)
        return details._replace(metadata=grpc.aio.Metadata(*metadata))


class _UnaryUnary(_Bearer, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(self._details(details), request)


class _UnaryStream(_Bearer, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(self._details(details), request)


class _StreamUnary(_Bearer, grpc.aio.StreamUnaryClientInterceptor):
    async def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await continuation(self._details(details), requests)


class _StreamStream(_Bearer, grpc.aio.StreamStreamClientInterceptor):
    async def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await continuation(self._details(details), requests)


def bearer_interceptors(token: str) -> list[grpc.aio.ClientInterceptor]:
    """Interceptors that add ``authorization: Bearer TOKEN`` to every call (unless the call
    has its own). One per kind of call: a channel files each interceptor under one kind."""
    return [_UnaryUnary(token), _UnaryStream(token), _StreamUnary(token), _StreamStream(token)]

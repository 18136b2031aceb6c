"""TLS listeners and mutual TLS, with certificates made in the test: a good client certificate
(its common name is the principal), an expired one, one from an unknown CA, none; a TLS
listener may bind beyond loopback; the kernel's link to the resource service over mutual TLS."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from maka_runtime_client.errors import from_rpc_error
from maka_runtime_proto.kernel.v1 import kernel_pb2, kernel_pb2_grpc
from maka_runtime_proto.resource.v1 import resource_pb2, resource_pb2_grpc

from tests.support import auth
from tests.support.certs import Authority, Pem
from tests.support.processes import ServiceProcess, running_service, wait_for_exit


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path | Pem]:
    directory = tmp_path_factory.mktemp("pki")
    ca = Authority(directory / "ca")
    other = Authority(directory / "other", name="another CA")
    return {
        "ca": ca.pem,
        "server": ca.issue("localhost", server=True),
        "alice": ca.issue("alice"),
        "link": ca.issue("kernel-link"),
        "expired": ca.issue("old-alice", expired=True),
        "stranger": other.issue("alice"),
    }


def pem(pki: dict[str, Path | Pem], name: str) -> Pem:
    value = pki[name]
    assert isinstance(value, Pem)
    return value


def server_flags(pki: dict[str, Path | Pem], *, mutual: bool) -> list[str]:
    server = pem(pki, "server")
    flags = ["--tls-cert", str(server.cert), "--tls-key", str(server.key)]
    return [*flags, "--tls-client-ca", str(pki["ca"])] if mutual else flags


def channel(address: str, pki: dict[str, Path | Pem], client: str | None = None) -> grpc.Channel:
    ca = Path(str(pki["ca"])).read_bytes()
    if client is None:
        credentials = grpc.ssl_channel_credentials(root_certificates=ca)
    else:
        cert = pem(pki, client)
        credentials = grpc.ssl_channel_credentials(
            root_certificates=ca,
            private_key=cert.key.read_bytes(),
            certificate_chain=cert.cert.read_bytes(),
        )
    return grpc.secure_channel(address, credentials)


def info(ch: grpc.Channel, metadata: tuple[tuple[str, str], ...] = ()) -> Any:
    return resource_pb2_grpc.ResourceServiceStub(ch).GetServerInfo(
        resource_pb2.GetServerInfoRequest(), metadata=metadata, timeout=10
    )


@pytest.fixture(scope="module")
def roles_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("roles") / "tokens.json"
    # The suite's token stays valid (as a token file holds it); the link's certificate name
    # gets the kernel's roles.
    suite = json.loads(auth.TOKEN_FILE.read_text())
    suite["certificates"] = {"kernel-link": ["kernel", "operator"]}
    path.write_text(json.dumps(suite))
    return path


@pytest.fixture(scope="module")
def mtls_resource(
    tmp_path_factory: pytest.TempPathFactory, pki: dict[str, Path | Pem], roles_file: Path
) -> Iterator[ServiceProcess]:
    flags = [*server_flags(pki, mutual=True), "--token-file", str(roles_file)]
    with running_service(
        "resource", tmp_path_factory.mktemp("mtls"), "--standalone", *flags
    ) as server:
        yield server


def test_a_good_client_certificate_is_its_principal(
    mtls_resource: ServiceProcess, pki: dict[str, Path | Pem]
) -> None:
    with channel(mtls_resource.address, pki, "alice") as ch:
        assert info(ch).auth_mode == "mtls+token"
        # alice (not in the roles table) is a client: Shutdown is not hers.
        with pytest.raises(grpc.RpcError) as raised:
            resource_pb2_grpc.ResourceServiceStub(ch).Shutdown(
                resource_pb2.ShutdownRequest(), timeout=10
            )
    denied = from_rpc_error(raised.value)
    assert denied.code == grpc.StatusCode.PERMISSION_DENIED
    assert "'alice' has client" in denied.message
    assert mtls_resource.wait_logged(
        "refused /maka.resource.v1.ResourceService/Shutdown for alice: PERMISSION_DENIED"
    )
    # A token over mutual TLS is checked like any other.
    with channel(mtls_resource.address, pki, "alice") as ch, pytest.raises(grpc.RpcError) as bad:
        info(ch, (("authorization", "Bearer wrong"),))
    assert bad.value.code() == grpc.StatusCode.UNAUTHENTICATED


@pytest.mark.parametrize("client", ["expired", "stranger", None])
def test_an_expired_unknown_or_missing_client_certificate_is_refused(
    mtls_resource: ServiceProcess, pki: dict[str, Path | Pem], client: str | None
) -> None:
    with channel(mtls_resource.address, pki, client) as ch, pytest.raises(grpc.RpcError) as raised:
        info(ch, auth.METADATA)
    # The handshake fails: no call reaches the service.
    assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
    assert mtls_resource.process.poll() is None


def test_a_tls_listener_may_bind_beyond_loopback(
    tmp_path: Path, pki: dict[str, Path | Pem]
) -> None:
    flags = ["--listen", "0.0.0.0:0", *server_flags(pki, mutual=False)]
    with running_service("resource", tmp_path, "--standalone", *flags) as server:
        address = f"127.0.0.1:{server.address.rpartition(':')[2]}"
        with channel(address, pki) as ch:
            assert info(ch, auth.METADATA).auth_mode == "tls+token"
            with pytest.raises(grpc.RpcError) as raised:
                info(ch)
        assert raised.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert "insecure" not in server.stderr


def test_the_kernel_link_uses_mutual_tls(
    tmp_path: Path, pki: dict[str, Path | Pem], roles_file: Path
) -> None:
    link = pem(pki, "link")
    flags = [*server_flags(pki, mutual=True), "--token-file", str(roles_file)]
    with running_service("resource", tmp_path / "r", "--standalone", *flags) as resource:
        kernel_flags = [
            "--resource-address",
            f"localhost:{resource.address.rpartition(':')[2]}",
            "--resource-tls-ca",
            str(pki["ca"]),
            "--resource-tls-cert",
            str(link.cert),
            "--resource-tls-key",
            str(link.key),
            "--shutdown-resource",
            "yes",
        ]
        # No token for the link: MAKA_TOKEN is not set for the kernel, and its own data
        # directory's local credential is unknown to this resource service.
        env = {"MAKA_TOKEN_FILE": str(auth.TOKEN_FILE), "MAKA_TOKEN": ""}
        with running_service("kernel", tmp_path / "k", *kernel_flags, env=env) as kernel:
            with auth.bare_channel(kernel.address) as ch:
                done = kernel_pb2_grpc.KernelServiceStub(ch).Shutdown(
                    kernel_pb2.ShutdownRequest(), metadata=auth.METADATA, timeout=30
                )
            assert done.resource.attempted and done.resource.reached, done.resource
            assert wait_for_exit(resource.pid, 30)


def test_the_sdk_and_the_cli_speak_mutual_tls(
    mtls_resource: ServiceProcess,
    pki: dict[str, Path | Pem],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import asyncio
    import os
    import subprocess
    import sys

    from maka_runtime_client.aio import ClientOptions, ResourceClient
    from maka_runtime_client.credentials import TlsFiles
    from maka_runtime_client.errors import PermissionDeniedError

    alice = pem(pki, "alice")
    files = TlsFiles(ca=Path(str(pki["ca"])), cert=alice.cert, key=alice.key)

    async def check() -> str:
        options = ClientOptions(tls=files, token=None)
        async with ResourceClient(mtls_resource.address, options=options) as client:
            with pytest.raises(PermissionDeniedError) as denied:
                await client.shutdown()
            assert "'alice' has client" in denied.value.message  # the certificate's principal
            return (await client.get_server_info()).auth_mode

    # The certificate alone: no token from the environment, no local credential looked for.
    monkeypatch.delenv("MAKA_TOKEN")
    assert asyncio.run(check()) == "mtls+token"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKA_")}
    env.update(
        HOME=str(tmp_path),
        MAKA_TLS_CA=str(pki["ca"]),
        MAKA_TLS_CERT=str(alice.cert),
        MAKA_TLS_KEY=str(alice.key),
    )
    listed = subprocess.run(
        [
            sys.executable,
            "-m",
            "maka_runtime_client.cli",
            "--resource",
            mtls_resource.address,
            "ps",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert listed.returncode == 0, listed.stderr

"""Authentication at the servicer boundary, over real gRPC against both services as processes:
no credential, a wrong token, a valid one, a principal without the role a method needs; the
local credential; health open, everything else closed; token-file reload without a restart;
the non-loopback rule; the data directory's modes."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from maka_runtime_client.errors import from_rpc_error
from maka_runtime_proto.kernel.v1 import kernel_pb2, kernel_pb2_grpc
from maka_runtime_proto.resource.v1 import resource_pb2, resource_pb2_grpc

from maka_runtime.common.auth import Authenticator, TokenFileError, hash_token, new_token
from tests.support import auth
from tests.support.processes import ServiceProcess, running_service, spawn_service

Call = Callable[[grpc.Channel, tuple[tuple[str, str], ...]], Any]
UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED
DENIED = grpc.StatusCode.PERMISSION_DENIED

# A workspace clear of the kernel's data directory (which lies under /tmp).
WORKSPACE = "/tmp/maka-auth-workspace"
os.makedirs(WORKSPACE, exist_ok=True)

# A representative set of RPCs of each service: unary and streaming, reads and writes.
KERNEL_CALLS: dict[str, Call] = {
    "GetServerInfo": lambda ch, md: kernel_pb2_grpc.KernelServiceStub(ch).GetServerInfo(
        kernel_pb2.GetServerInfoRequest(), metadata=md, timeout=10
    ),
    "ListSessions": lambda ch, md: kernel_pb2_grpc.KernelServiceStub(ch).ListSessions(
        kernel_pb2.ListSessionsRequest(), metadata=md, timeout=10
    ),
    "CreateSession": lambda ch, md: kernel_pb2_grpc.KernelServiceStub(ch).CreateSession(
        kernel_pb2.CreateSessionRequest(workspace_root=WORKSPACE, backend="scripted"),
        metadata=md,
        timeout=10,
    ),
    "WatchSession": lambda ch, md: list(
        kernel_pb2_grpc.KernelServiceStub(ch).WatchSession(
            kernel_pb2.WatchSessionRequest(session_id="nope"), metadata=md, timeout=10
        )
    ),
}
RESOURCE_CALLS: dict[str, Call] = {
    "GetServerInfo": lambda ch, md: resource_pb2_grpc.ResourceServiceStub(ch).GetServerInfo(
        resource_pb2.GetServerInfoRequest(), metadata=md, timeout=10
    ),
    "ListRuns": lambda ch, md: resource_pb2_grpc.ResourceServiceStub(ch).ListRuns(
        resource_pb2.ListRunsRequest(session_id="s"), metadata=md, timeout=10
    ),
    "RunForeground": lambda ch, md: list(
        resource_pb2_grpc.ResourceServiceStub(ch).RunForeground(
            resource_pb2.RunForegroundRequest(session_id="s", command="echo ran"),
            metadata=md,
            timeout=10,
        )
    ),
}


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def refusal(call: Call, address: str, metadata: tuple[tuple[str, str], ...]) -> Any:
    with auth.bare_channel(address) as channel, pytest.raises(grpc.RpcError) as raised:
        call(channel, metadata)
    return from_rpc_error(raised.value)


def answer(call: Call, address: str, metadata: tuple[tuple[str, str], ...]) -> Any:
    with auth.bare_channel(address) as channel:
        return call(channel, metadata)


@pytest.fixture(scope="module")
def tokens(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return {"client": new_token(), "operator": new_token()}


@pytest.fixture(scope="module")
def token_file(tmp_path_factory: pytest.TempPathFactory, tokens: dict[str, str]) -> Path:
    path = tmp_path_factory.mktemp("tokens") / "tokens.json"
    entries = [
        {"principal": "carol", "roles": ["client"], "sha256": hash_token(tokens["client"])},
        {"principal": "otto", "roles": ["operator"], "sha256": hash_token(tokens["operator"])},
    ]
    path.write_text(json.dumps({"tokens": entries}))
    return path


@pytest.fixture(scope="module")
def pair(
    tmp_path_factory: pytest.TempPathFactory, token_file: Path
) -> Iterator[tuple[ServiceProcess, ServiceProcess, Path]]:
    data = tmp_path_factory.mktemp("pair")
    flags = ("--token-file", str(token_file))
    with (
        running_service("resource", data, "--standalone", *flags) as resource,
        running_service(
            "kernel",
            data,
            "--resource-address",
            resource.address,
            "--shutdown-resource",
            "no",
            *flags,
        ) as kernel,
    ):
        yield kernel, resource, data


def ids(value: object) -> str:
    return "" if callable(value) else str(value)


def calls() -> list[tuple[str, str, Call]]:
    return [("kernel", n, c) for n, c in KERNEL_CALLS.items()] + [
        ("resource", n, c) for n, c in RESOURCE_CALLS.items()
    ]


@pytest.mark.parametrize(("service", "name", "call"), calls(), ids=ids)
def test_no_credential_and_a_wrong_token_are_unauthenticated(
    pair: tuple[ServiceProcess, ServiceProcess, Path], service: str, name: str, call: Call
) -> None:
    address = (pair[0] if service == "kernel" else pair[1]).address
    missing = refusal(call, address, ())
    assert missing.code == UNAUTHENTICATED and missing.reason == "UNAUTHENTICATED"
    assert "no credential" in missing.message
    for metadata in (bearer("not-a-token"), (("authorization", "Basic dXNlcjpwdw=="),)):
        wrong = refusal(call, address, metadata)
        assert wrong.code == UNAUTHENTICATED and wrong.reason == "UNAUTHENTICATED"
        assert wrong.message == "unknown token"
    # Refused calls are logged once each, without the token.
    process = pair[0] if service == "kernel" else pair[1]
    assert process.wait_logged(f"refused /maka.{service}.v1.")
    assert process.wait_logged("for anonymous: UNAUTHENTICATED")
    assert "not-a-token" not in process.stderr


def test_refused_calls_change_nothing(
    pair: tuple[ServiceProcess, ServiceProcess, Path], tokens: dict[str, str]
) -> None:
    kernel, resource, _ = pair
    refusal(KERNEL_CALLS["CreateSession"], kernel.address, bearer("wrong"))
    refusal(RESOURCE_CALLS["RunForeground"], resource.address, ())
    listed = answer(KERNEL_CALLS["ListSessions"], kernel.address, bearer(tokens["client"]))
    assert all(s.workspace_root != WORKSPACE for s in listed.sessions)
    runs = answer(RESOURCE_CALLS["ListRuns"], resource.address, bearer(tokens["client"]))
    assert list(runs.runs) == []


@pytest.mark.parametrize(("service", "name", "call"), calls(), ids=ids)
def test_a_valid_token_is_served(
    pair: tuple[ServiceProcess, ServiceProcess, Path],
    tokens: dict[str, str],
    service: str,
    name: str,
    call: Call,
) -> None:
    address = (pair[0] if service == "kernel" else pair[1]).address
    if name == "WatchSession":  # served: the session does not exist
        assert refusal(call, address, bearer(tokens["client"])).code == grpc.StatusCode.NOT_FOUND
        return
    assert answer(call, address, bearer(tokens["client"])) is not None


def test_server_info_reports_the_auth_mode(
    pair: tuple[ServiceProcess, ServiceProcess, Path], tokens: dict[str, str]
) -> None:
    kernel, resource, _ = pair
    for process, call in ((kernel, KERNEL_CALLS), (resource, RESOURCE_CALLS)):
        info = answer(call["GetServerInfo"], process.address, bearer(tokens["client"]))
        assert info.auth_mode == "token"
        assert f"listening on {process.address} (auth token," in process.stderr


def test_server_info_names_the_caller_and_only_the_caller(
    pair: tuple[ServiceProcess, ServiceProcess, Path], tokens: dict[str, str]
) -> None:
    kernel, resource, _ = pair
    for process, call in ((kernel, KERNEL_CALLS), (resource, RESOURCE_CALLS)):
        carol = answer(call["GetServerInfo"], process.address, bearer(tokens["client"]))
        otto = answer(call["GetServerInfo"], process.address, bearer(tokens["operator"]))
        assert (carol.principal, list(carol.principal_roles)) == ("carol", ["client"])
        assert (otto.principal, list(otto.principal_roles)) == ("otto", ["operator"])
        # Each caller's answer is kept (serialized) for that caller only.
        again = answer(call["GetServerInfo"], process.address, bearer(tokens["client"]))
        assert (again.principal, list(again.principal_roles)) == ("carol", ["client"])


def test_health_is_open_and_reflection_is_not(
    pair: tuple[ServiceProcess, ServiceProcess, Path],
) -> None:
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    for process in pair[:2]:
        with auth.bare_channel(process.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            reply = health.Check(health_pb2.HealthCheckRequest(), timeout=10)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            request = reflection_pb2.ServerReflectionRequest(list_services="")
            with pytest.raises(grpc.RpcError) as raised:
                list(stub.ServerReflectionInfo(iter([request]), timeout=10))
            assert raised.value.code() == UNAUTHENTICATED


def test_shutdown_and_session_registration_need_their_roles(
    pair: tuple[ServiceProcess, ServiceProcess, Path], tokens: dict[str, str]
) -> None:
    kernel, resource, _ = pair
    client = bearer(tokens["client"])

    def kernel_shutdown(ch: grpc.Channel, md: Any) -> Any:
        return kernel_pb2_grpc.KernelServiceStub(ch).Shutdown(
            kernel_pb2.ShutdownRequest(), metadata=md, timeout=10
        )

    def resource_shutdown(ch: grpc.Channel, md: Any) -> Any:
        return resource_pb2_grpc.ResourceServiceStub(ch).Shutdown(
            resource_pb2.ShutdownRequest(), metadata=md, timeout=10
        )

    def register(ch: grpc.Channel, md: Any) -> Any:
        return resource_pb2_grpc.ResourceServiceStub(ch).RegisterSession(
            resource_pb2.RegisterSessionRequest(session_id="mine", cwd="/"),
            metadata=md,
            timeout=10,
        )

    def archive(ch: grpc.Channel, md: Any) -> Any:
        return resource_pb2_grpc.ResourceServiceStub(ch).ArchiveSession(
            resource_pb2.ArchiveSessionRequest(session_id="mine"), metadata=md, timeout=10
        )

    for address, call, needs in (
        (kernel.address, kernel_shutdown, "admin,operator"),
        (resource.address, resource_shutdown, "admin,operator"),
        (resource.address, register, "kernel"),
        (resource.address, archive, "kernel"),
    ):
        denied = refusal(call, address, client)
        assert denied.code == DENIED and denied.reason == "PERMISSION_DENIED"
        assert denied.metadata["needs"] == needs and "'carol'" in denied.message
    # An operator may not register sessions either: only the kernel does.
    assert refusal(register, resource.address, bearer(tokens["operator"])).code == DENIED
    assert resource.wait_logged("for carol: PERMISSION_DENIED")
    # Both still serve.
    assert kernel.process.poll() is None and resource.process.poll() is None
    assert answer(RESOURCE_CALLS["GetServerInfo"], resource.address, client).draining is False


def test_the_local_credential_is_private_and_found_by_the_clients(
    pair: tuple[ServiceProcess, ServiceProcess, Path],
) -> None:
    kernel, resource, data = pair
    path = data / "credentials" / "local.token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    token = path.read_text().strip()
    assert len(token) >= 40 and token not in kernel.stderr + resource.stderr
    # The principal "local" may do everything a local user did (Shutdown aside, not tried).
    info = answer(KERNEL_CALLS["GetServerInfo"], kernel.address, bearer(token))
    assert info.service == "maka-kernel"
    assert answer(RESOURCE_CALLS["RunForeground"], resource.address, bearer(token))

    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKA_")}
    addresses = ["--kernel", kernel.address, "--resource", resource.address]

    def maka(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "maka_runtime_client.cli", *addresses, *args],
            env={**env, "HOME": str(data / "home"), **extra},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    # What the local credential creates is the local principal's, and its clients list it.
    with auth.bare_channel(kernel.address) as channel:
        created = kernel_pb2_grpc.KernelServiceStub(channel).CreateSession(
            kernel_pb2.CreateSessionRequest(workspace_root=WORKSPACE, backend="scripted"),
            metadata=bearer(token),
            timeout=10,
        )
    assert created.session.owner == "local"
    found = maka("--json", "ls", MAKA_DATA_DIR=str(data))
    assert found.returncode == 0, found.stderr
    assert created.session.id in found.stdout
    missing = maka("ls")
    assert missing.returncode == 1
    assert missing.stderr.count("\n") == 1, missing.stderr
    assert "no credential: pass --token or set MAKA_TOKEN" in missing.stderr
    assert "(UNAUTHENTICATED)" in missing.stderr
    wrong = maka("--token", "not-a-token", "ls")
    assert wrong.returncode == 1 and "does not know this token" in wrong.stderr
    assert maka("--token", token, "--json", "ls").returncode == 0
    assert maka("--json", "ls", MAKA_TOKEN=token).returncode == 0


def test_the_sdk_raises_typed_errors(
    pair: tuple[ServiceProcess, ServiceProcess, Path], tokens: dict[str, str]
) -> None:
    import asyncio

    from maka_runtime_client import PermissionDeniedError, UnauthenticatedError
    from maka_runtime_client.aio import ClientOptions, KernelClient, ResourceClient

    kernel, resource, data = pair

    async def check() -> None:
        async with KernelClient(kernel.address, options=ClientOptions(token="bad")) as client:
            with pytest.raises(UnauthenticatedError):
                await client.list_sessions()
        carol = ClientOptions(token=tokens["client"])
        async with KernelClient(kernel.address, options=carol) as client:
            with pytest.raises(PermissionDeniedError) as denied:
                await client.shutdown()
            assert denied.value.metadata["needs"] == "admin,operator"
        local = ClientOptions(data_dir=str(data))
        async with ResourceClient(resource.address, options=local) as client:
            assert (await client.get_server_info()).auth_mode == "token"

    saved = os.environ.pop("MAKA_TOKEN")
    try:
        asyncio.run(check())
    finally:
        os.environ["MAKA_TOKEN"] = saved


@pytest.mark.slow
def test_the_token_file_is_reloaded_without_a_restart(tmp_path: Path) -> None:
    first, second = new_token(), new_token()
    path = tmp_path / "tokens.json"

    def write(*pairs: tuple[str, str]) -> None:
        entries = [{"principal": p, "roles": ["client"], "sha256": hash_token(t)} for p, t in pairs]
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"tokens": entries}))
        os.replace(tmp, path)

    def accepted(token: str) -> bool:
        with auth.bare_channel(server.address) as channel:
            try:
                RESOURCE_CALLS["GetServerInfo"](channel, bearer(token))
            except grpc.RpcError as error:
                assert error.code() == UNAUTHENTICATED
                return False
            return True

    def eventually(token: str, wanted: bool) -> None:
        deadline = time.monotonic() + 15
        while accepted(token) != wanted:
            assert time.monotonic() < deadline, f"token still {'refused' if wanted else 'ok'}"
            time.sleep(0.05)

    write(("first", first))
    with running_service(
        "resource", tmp_path / "data", "--standalone", "--token-file", str(path), env={}
    ) as server:
        assert accepted(first) and not accepted(second)
        # Changed on disk: picked up by its modification time.
        write(("second", second))
        eventually(second, True)
        eventually(first, False)
        # SIGHUP re-reads at once.
        write(("first", first))
        server.signal(signal.SIGHUP)
        eventually(first, True)
        assert server.wait_logged("credentials reloaded from")
        # A broken file keeps the last good one.
        path.write_text("{not json")
        server.signal(signal.SIGHUP)
        eventually(first, True)
        assert server.process.poll() is None


@pytest.mark.parametrize("service", ["kernel", "resource"])
def test_a_plaintext_non_loopback_listener_is_refused(service: str, tmp_path: Path) -> None:
    process = spawn_service(service, tmp_path, "--listen", "0.0.0.0:0")
    assert process.wait(30) == 2
    lines = process.stderr.strip().splitlines()
    assert lines == [
        f"maka-{service}: error: refusing to listen on 0.0.0.0:0 without TLS: a non-loopback "
        "address needs --tls-cert/--tls-key (or --allow-insecure-listen)"
    ]


def test_the_override_starts_with_a_warning(tmp_path: Path) -> None:
    with running_service(
        "resource", tmp_path, "--standalone", "--listen", "0.0.0.0:0", "--allow-insecure-listen"
    ) as server:
        port = server.address.rpartition(":")[2]
        info = answer(RESOURCE_CALLS["GetServerInfo"], f"127.0.0.1:{port}", auth.METADATA)
        assert info.auth_mode == "token,insecure-listen"
        assert server.wait_logged("allowed by --allow-insecure-listen")


def test_data_directory_modes_are_repaired(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with running_service("resource", data, "--standalone") as server:
        answer(RESOURCE_CALLS["RunForeground"], server.address, auth.METADATA)
    # Widened as an older version (or a umask of 022) left them.
    for path in [data, *data.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    with running_service("resource", data, "--standalone") as server:
        answer(RESOURCE_CALLS["RunForeground"], server.address, auth.METADATA)
        below = [p for p in (data / "resource").rglob("*") if not p.is_symlink()]
        assert any(p.name.endswith("-wal") for p in below), below
        for path in [data / "resource", data / "credentials", *below]:
            wanted = 0o700 if path.is_dir() else 0o600
            assert stat.S_IMODE(path.stat().st_mode) == wanted, path
        for path in (data / "credentials").iterdir():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_new_data_directories_are_private_and_runs_keep_their_umask(tmp_path: Path) -> None:
    data = tmp_path / "fresh"
    previous = os.umask(0o022)
    try:
        server_cm = running_service("resource", data, "--standalone")
        server = server_cm.__enter__()
    finally:
        os.umask(previous)
    try:
        events = answer(
            lambda ch, md: list(
                resource_pb2_grpc.ResourceServiceStub(ch).RunForeground(
                    resource_pb2.RunForegroundRequest(session_id="s", command="umask"),
                    metadata=md,
                    timeout=10,
                )
            ),
            server.address,
            auth.METADATA,
        )
        output = b"".join(e.output.data for e in events if e.HasField("output"))
        assert output.strip() == b"0022"
        for path in [data, *data.rglob("*")]:
            wanted = 0o700 if path.is_dir() else 0o600
            assert stat.S_IMODE(path.stat().st_mode) == wanted, path
    finally:
        server_cm.__exit__(None, None, None)


@pytest.mark.parametrize(
    "raw", [b"\x0a" + b"\xff" * 5 * 1024 * 1024, b"\x0a\x05ab"], ids=["too-large", "truncated"]
)
def test_an_anonymous_request_is_refused_before_it_is_decoded(
    pair: tuple[ServiceProcess, ServiceProcess, Path], raw: bytes
) -> None:
    """Authentication comes first: an anonymous caller learns nothing from the size and
    decoding checks (an authenticated one gets REQUEST_TOO_LARGE / REQUEST_UNDECODABLE,
    tests/foundation/test_request_limits.py)."""
    for process, method in (
        (pair[0], "/maka.kernel.v1.KernelService/CreateSession"),
        (pair[1], "/maka.resource.v1.ResourceService/StartBackground"),
    ):
        with auth.bare_channel(process.address) as channel:
            call: Any = channel.unary_unary(method)
            with pytest.raises(grpc.RpcError) as raised:
                call(raw, timeout=10)
        refused = from_rpc_error(raised.value)
        assert refused.code == UNAUTHENTICATED and refused.reason == "UNAUTHENTICATED"


def test_new_tokens_never_start_with_a_dash() -> None:
    """Regression: a token starting with "-" was read by ``maka --token TOKEN`` as an option
    (about one token in 64 of ``secrets.token_urlsafe``)."""
    from maka_runtime.common.auth import TOKEN_PREFIX, new_token

    tokens = {new_token() for _ in range(2000)}
    assert len(tokens) == 2000
    assert all(token.startswith(TOKEN_PREFIX) and len(token) >= 40 for token in tokens)


@pytest.mark.parametrize(
    "broken",
    [b"\xff\xfe{not utf-8", b"[" * 100_000 + b"]" * 100_000],
    ids=["not-utf-8", "nested-too-deep"],
)
def test_a_token_file_that_cannot_be_read_keeps_the_last_good_one(
    tmp_path: Path, broken: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    # Before, these escaped as UnicodeDecodeError / RecursionError from every token check:
    # each call that presented a token ended UNKNOWN until the file was fixed.
    token = new_token()
    path = tmp_path / "tokens.json"
    entry = {"principal": "ci", "roles": ["client"], "sha256": hash_token(token)}
    path.write_text(json.dumps({"tokens": [entry]}))
    authenticator = Authenticator(tmp_path, path, local=False)
    authenticator.open()
    assert authenticator.by_token(token) is not None
    path.write_bytes(broken)
    authenticator.reload()  # SIGHUP: at once
    found = authenticator.by_token(token)
    assert found is not None and found.id == "ci"
    assert "keeping the previous credentials" in caplog.text
    # At start, the same file is one clear error, not a traceback.
    with pytest.raises(TokenFileError, match="cannot be read"):
        Authenticator(tmp_path, path, local=False).open()

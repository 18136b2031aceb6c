"""Reflection resolves every service, method, message and enum of both services, under both
protocol names (v1 and v1alpha), with the .proto comments; ghz and grpcurl work through it with
nothing but the address.

ghz and grpcurl are pinned Go tools that ``./dev setup-go`` (and so ``./dev check`` and CI)
installs under ``.tools/bin``. Without them their tests skip, except where
``MAKA_REQUIRE_TOOLCHAINS=1`` (CI), where a missing tool fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from tests.support import auth
from tests.support.processes import ServiceProcess, running_service

ROOT = Path(__file__).resolve().parents[2]
PROTOCOLS = ("grpc.reflection.v1", "grpc.reflection.v1alpha")
SERVICES = {
    "kernel": "maka.kernel.v1.KernelService",
    "resource": "maka.resource.v1.ResourceService",
}
HEALTH = "grpc.health.v1.Health"


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, ServiceProcess]]:
    with (
        running_service("kernel", tmp_path_factory.mktemp("kernel")) as kernel,
        running_service("resource", tmp_path_factory.mktemp("resource"), "--standalone") as res,
    ):
        yield {"kernel": kernel, "resource": res}


class Reflection:
    """One reflection stream; each request is answered in order."""

    def __init__(self, address: str, protocol: str) -> None:
        self.channel = grpc.insecure_channel(address)
        self.method = self.channel.stream_stream(
            f"/{protocol}.ServerReflection/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
        )

    def ask(
        self, *requests: reflection_pb2.ServerReflectionRequest
    ) -> list[reflection_pb2.ServerReflectionResponse]:
        return list(self.method(iter(requests), timeout=20))

    def files(self, symbol: str) -> dict[str, descriptor_pb2.FileDescriptorProto]:
        [answer] = self.ask(reflection_pb2.ServerReflectionRequest(file_containing_symbol=symbol))
        assert answer.WhichOneof("message_response") == "file_descriptor_response", (
            symbol,
            answer.error_response.error_message,
        )
        files = [
            descriptor_pb2.FileDescriptorProto.FromString(raw)
            for raw in answer.file_descriptor_response.file_descriptor_proto
        ]
        return {proto.name: proto for proto in files}


def symbols_of(proto: descriptor_pb2.FileDescriptorProto) -> list[str]:
    """Every service, method, message (nested too) and enum a file defines."""
    prefix = f"{proto.package}."
    names: list[str] = []

    def message(m: descriptor_pb2.DescriptorProto, scope: str) -> None:
        names.append(f"{scope}{m.name}")
        for nested in m.nested_type:
            if not nested.options.map_entry:
                message(nested, f"{scope}{m.name}.")
        names.extend(f"{scope}{m.name}.{e.name}" for e in m.enum_type)

    for m in proto.message_type:
        message(m, prefix)
    names.extend(f"{prefix}{e.name}" for e in proto.enum_type)
    for service in proto.service:
        names.append(f"{prefix}{service.name}")
        names.extend(f"{prefix}{service.name}.{method.name}" for method in service.method)
    return names


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("service", sorted(SERVICES))
def test_every_symbol_resolves_with_comments(
    servers: dict[str, ServiceProcess], service: str, protocol: str
) -> None:
    reflection = Reflection(servers[service].address, protocol)
    [listed] = reflection.ask(reflection_pb2.ServerReflectionRequest(list_services=""))
    names = {s.name for s in listed.list_services_response.service}
    assert {SERVICES[service], HEALTH, *(f"{p}.ServerReflection" for p in PROTOCOLS)} <= names
    resolved = 0
    for name in sorted(names):
        files = reflection.files(name)
        # Everything a served file imports comes along (nothing is left to look up elsewhere).
        for proto in files.values():
            assert set(proto.dependency) <= set(files), (name, proto.name)
        own = next(p for p in files.values() if name in symbols_of(p))
        for symbol in symbols_of(own):
            assert own.name in reflection.files(symbol), symbol
            resolved += 1
    assert resolved > 50
    # The contract's files keep their comments.
    contract = reflection.files(SERVICES[service])[f"maka/{service}/v1/{service}.proto"]
    comments = [loc.leading_comments for loc in contract.source_code_info.location]
    assert any("GetServerInfo describes this" in c for c in comments)
    reflection.channel.close()


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_a_python_reflection_client_builds_every_served_service(
    servers: dict[str, ServiceProcess], service: str
) -> None:
    """grpcio-reflection's client and protobuf's DescriptorPool, which check every file they
    load (a scalar field given an empty ``type_name`` is refused), load all that is served."""
    with grpc.insecure_channel(servers[service].address) as channel:
        pool = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
        for name in (SERVICES[service], HEALTH, *(f"{p}.ServerReflection" for p in PROTOCOLS)):
            methods = pool.FindServiceByName(name).methods
            assert methods and all(m.input_type.fields is not None for m in methods), name


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_the_reason_registry_resolves_with_its_comments(
    servers: dict[str, ServiceProcess], service: str
) -> None:
    reflection = Reflection(servers[service].address, PROTOCOLS[0])
    files = reflection.files("maka.common.v1.ErrorReason")
    registry = files["maka/common/v1/errors.proto"]
    assert [e.name for e in registry.enum_type] == ["ErrorReason"]
    comments = [loc.leading_comments for loc in registry.source_code_info.location]
    assert any("ERROR_REASON_OPERATION_CONFLICT is sent as" in c for c in comments)
    reflection.channel.close()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_unknown_symbols_and_files_are_not_found(
    servers: dict[str, ServiceProcess], protocol: str
) -> None:
    reflection = Reflection(servers["kernel"].address, protocol)
    answers = reflection.ask(
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="maka.kernel.v1.Nope"),
        reflection_pb2.ServerReflectionRequest(file_by_filename="nope.proto"),
        reflection_pb2.ServerReflectionRequest(file_by_filename="maka/kernel/v1/kernel.proto"),
        reflection_pb2.ServerReflectionRequest(
            all_extension_numbers_of_type="maka.kernel.v1.StartTurnRequest"
        ),
        reflection_pb2.ServerReflectionRequest(all_extension_numbers_of_type="maka.Nope"),
    )
    assert [a.WhichOneof("message_response") for a in answers] == [
        "error_response",
        "error_response",
        "file_descriptor_response",
        "all_extension_numbers_response",
        "error_response",
    ]
    numbers = answers[3].all_extension_numbers_response
    assert numbers.base_type_name == "maka.kernel.v1.StartTurnRequest"
    assert list(numbers.extension_number) == []
    assert answers[0].error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]
    reflection.channel.close()


# --- grpcurl and ghz, through reflection alone ------------------------------------------------


def tool(name: str) -> str:
    pinned = ROOT / ".tools" / "bin" / name
    path = str(pinned) if pinned.exists() else shutil.which(name)
    if path is None:
        if os.environ.get("MAKA_REQUIRE_TOOLCHAINS") == "1":
            pytest.fail(f"{name} is required (MAKA_REQUIRE_TOOLCHAINS=1) but not installed")
        pytest.skip(f"{name} is not installed (./dev setup-go installs it)")
    return path


def grpcurl(
    address: str,
    *args: str,
    data: Mapping[str, Any] | None = None,
    metadata: Mapping[str, str] | None = None,
    credential: bool = True,
    expect_ok: bool = True,
) -> str:
    """``grpcurl -plaintext [-H …] [-d DATA] ADDRESS ARGS…`` (``describe X``, or a method),
    with the suite's token as ``-H 'authorization: Bearer …'`` unless *credential* is false.
    Returns stdout (stderr when *expect_ok* is false and the call failed)."""
    headers = {**(dict(auth.METADATA) if credential else {}), **(metadata or {})}
    flags = [arg for key, value in headers.items() for arg in ("-H", f"{key}: {value}")]
    if data is not None:
        flags += ["-d", json.dumps(dict(data))]
    result = subprocess.run(
        [tool("grpcurl"), "-plaintext", *flags, address, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if not expect_ok:
        assert result.returncode != 0, result.stdout
        return result.stderr
    assert result.returncode == 0, result.stderr
    return result.stdout


def ghz(
    address: str,
    call: str,
    data: Mapping[str, Any],
    *,
    metadata: Mapping[str, str] | None = None,
    total: int = 300,
) -> dict[str, Any]:
    """Run ghz (*total* requests, 10 at a time) and return its JSON report; the suite's
    token goes in ``--metadata`` (the calls) and ``--reflect-metadata`` (reflection)."""
    argv = [tool("ghz"), "--insecure", "--call", call, "-n", str(total), "-c", "10"]
    argv += ["-d", json.dumps(data), "-O", "json", "--connections", "2"]
    argv += ["--metadata", json.dumps({**dict(auth.METADATA), **(metadata or {})})]
    argv += ["--reflect-metadata", json.dumps(dict(auth.METADATA))]
    result = subprocess.run(
        [*argv, address], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


@pytest.mark.slow
@pytest.mark.parametrize("service", ["kernel", "resource"])
def test_reflection_needs_a_credential_and_health_does_not(
    servers: dict[str, ServiceProcess], service: str
) -> None:
    address = servers[service].address
    refused = grpcurl(address, "list", credential=False, expect_ok=False)
    assert "Unauthenticated" in refused and "no credential" in refused
    wrong = grpcurl(
        address,
        "list",
        credential=False,
        expect_ok=False,
        metadata={"authorization": "Bearer not-a-token"},
    )
    assert "Unauthenticated" in wrong and "unknown token" in wrong
    assert SERVICES[service] in grpcurl(address, "list")


def proto_comment(path: str, rpc: str) -> str:
    """The comment line right above ``rpc NAME(`` in a .proto file."""
    lines = (ROOT / "protos" / path).read_text().splitlines()
    [at] = [i for i, line in enumerate(lines) if re.match(rf"\s*rpc {rpc}\(", line)]
    return lines[at - 1].strip()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("service", "path", "rpc"),
    [
        ("resource", "maka/resource/v1/resource.proto", "GetServerInfo"),
        ("kernel", "maka/kernel/v1/kernel.proto", "GetSession"),
    ],
)
def test_grpcurl_describe_shows_the_proto_comment(
    servers: dict[str, ServiceProcess], service: str, path: str, rpc: str
) -> None:
    described = grpcurl(servers[service].address, "describe", f"{SERVICES[service]}.{rpc}")
    assert f"{SERVICES[service]}.{rpc} is a method" in described
    assert proto_comment(path, rpc) in described
    health = grpcurl(servers[service].address, "describe", f"{HEALTH}.Check")
    assert f"{HEALTH}.Check is a method" in health


def assert_all_ok(report: dict[str, Any], total: int = 300) -> None:
    assert report["count"] == total, report
    assert report["statusCodeDistribution"] == {"OK": total}, report
    assert not report.get("errorDistribution"), report["errorDistribution"]


@pytest.mark.slow
def test_ghz_loads_both_services_through_reflection(servers: dict[str, ServiceProcess]) -> None:
    kernel, resource = servers["kernel"].address, servers["resource"].address
    created = json.loads(
        grpcurl(
            kernel,
            f"{SERVICES['kernel']}/CreateSession",
            data={"workspace_root": str(ROOT), "backend": "scripted"},
        )
    )
    session_id = created["session"]["id"]
    assert_all_ok(ghz(kernel, f"{SERVICES['kernel']}.GetSession", {"session_id": session_id}))
    assert_all_ok(ghz(resource, f"{SERVICES['resource']}.GetServerInfo", {}))
    for address in (kernel, resource):
        report = ghz(address, f"{HEALTH}.Check", {}, metadata={"x-maka-test": "ghz"})
        assert_all_ok(report)

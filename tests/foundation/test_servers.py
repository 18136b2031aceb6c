"""Both servers as real processes: bind, health, reflection, signals, bad flags."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2
from maka_runtime_proto.kernel.v1 import kernel_pb2, kernel_pb2_grpc
from maka_runtime_proto.resource.v1 import resource_pb2, resource_pb2_grpc

from tests.support.processes import running_service, service_command, spawn_service

SERVICES = {
    "kernel": ("maka.kernel.v1.KernelService", kernel_pb2, kernel_pb2_grpc.KernelServiceStub),
    "resource": (
        "maka.resource.v1.ResourceService",
        resource_pb2,
        resource_pb2_grpc.ResourceServiceStub,
    ),
}

pytestmark = pytest.mark.parametrize("service", sorted(SERVICES))


def list_services(channel: grpc.Channel, method: str) -> set[str]:
    call = channel.stream_stream(
        method,
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    responses = list(call(iter([reflection_pb2.ServerReflectionRequest(list_services="")])))
    return {s.name for s in responses[0].list_services_response.service}


def test_binds_port_zero_and_reports_real_port(service: str, data_dir: Path) -> None:
    _, pb2, stub_type = SERVICES[service]
    with running_service(service, data_dir) as proc:
        host, port = proc.address.rsplit(":", 1)
        assert host == "127.0.0.1" and int(port) > 0
        with grpc.insecure_channel(proc.address) as channel:
            info = stub_type(channel).GetServerInfo(pb2.GetServerInfoRequest(), timeout=10)
        assert info.service == f"maka-{service}"
        assert info.listen_address == proc.address
        assert info.pid == proc.pid
        assert info.data_dir == str((data_dir / service).resolve())
        assert not info.draining


def test_health_reports_serving(service: str, data_dir: Path) -> None:
    full_name, _, _ = SERVICES[service]
    with running_service(service, data_dir) as proc, grpc.insecure_channel(proc.address) as ch:
        health = health_pb2_grpc.HealthStub(ch)
        for name in ("", full_name):
            reply = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=10)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(grpc.RpcError) as error:
            health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=10)
        assert error.value.code() == grpc.StatusCode.NOT_FOUND


def test_reflection_lists_services_under_both_protocol_names(service: str, data_dir: Path) -> None:
    full_name, _, _ = SERVICES[service]
    with running_service(service, data_dir) as proc, grpc.insecure_channel(proc.address) as ch:
        for version in ("v1alpha", "v1"):
            names = list_services(
                ch, f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo"
            )
            assert full_name in names
            assert "grpc.health.v1.Health" in names
            assert "grpc.reflection.v1.ServerReflection" in names
            assert "grpc.reflection.v1alpha.ServerReflection" in names


def test_reflection_describes_the_service(service: str, data_dir: Path) -> None:
    full_name, _, _ = SERVICES[service]
    with running_service(service, data_dir) as proc, grpc.insecure_channel(proc.address) as ch:
        call = ch.stream_stream(
            "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
        )
        request = reflection_pb2.ServerReflectionRequest(file_containing_symbol=full_name)
        (response,) = list(call(iter([request])))
        assert response.file_descriptor_response.file_descriptor_proto


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_stops_cleanly_with_exit_zero(service: str, signum: int, data_dir: Path) -> None:
    with running_service(service, data_dir) as proc:
        proc.signal(signum)
        assert proc.wait(timeout=15) == 0
    assert f"maka-{service} stopped" in proc.stderr


def test_data_dir_is_free_again_after_stop(service: str, data_dir: Path) -> None:
    with running_service(service, data_dir) as first:
        assert first.terminate() == 0
    with running_service(service, data_dir) as second:
        assert second.address


def test_second_owner_of_data_dir_exits_at_once_naming_the_owner(
    service: str, data_dir: Path
) -> None:
    with running_service(service, data_dir) as owner:
        second = subprocess.run(
            service_command(service, ["--listen", "127.0.0.1:0", "--data-dir", str(data_dir)]),
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert second.returncode == 1
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1, second.stderr
        assert "already owned" in lines[0]
        assert f"pid {owner.pid}" in lines[0]


@pytest.mark.parametrize(
    ("args", "env", "needle"),
    [
        (["--listen", "nonsense"], {}, "--listen"),
        (["--listen", "127.0.0.1:99999"], {}, "65535"),
        (["--log-level", "loud"], {}, "--log-level"),
        (["--shutdown-grace", "-1"], {}, "--shutdown-grace"),
        (["--no-such-flag"], {}, "unrecognized"),
        ([], {"MAKA_LISTEN": "nonsense"}, "MAKA_LISTEN"),
        ([], {"MAKA_LOG_LEVEL": "loud"}, "MAKA_LOG_LEVEL"),
    ],
)
def test_bad_setting_exits_nonzero_with_one_line(
    service: str, args: list[str], env: dict[str, str], needle: str, data_dir: Path
) -> None:
    proc = spawn_service(service, data_dir, *args, env=env)
    code = proc.wait(timeout=30)
    assert code == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"maka-{service}: error: ")
    assert needle in lines[0]


def test_busy_port_exits_nonzero(service: str, data_dir: Path, tmp_path: Path) -> None:
    with running_service(service, data_dir) as first:
        other = tmp_path / "other"
        proc = spawn_service(service, other, "--listen", first.address)
        # spawn_service puts its own --listen first; argparse keeps the last one given
        assert proc.wait(timeout=30) == 1
        assert "cannot listen on" in proc.stderr

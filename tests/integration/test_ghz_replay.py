"""The replay baseline of the ghz benchmark (bench/echo_server.py, bench/echo/main.go): an echo
server, real process and real channel, answers a unary product method with exactly the bytes
``Echo.Keep`` kept for it, resolves the method through reflection from the product's own
descriptors, and ends UNIMPLEMENTED for a method with nothing kept. Both echoes (grpc.aio and
grpc-go) are held to the same. Nothing here is timed.

grpcurl and the Go toolchain are pinned tools (``./dev setup-go``); without them the tests that
need them skip, except where ``MAKA_REQUIRE_TOOLCHAINS=1`` (CI).
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb

from tests.foundation.test_reflection import grpcurl, tool

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
GET_SESSION = "/maka.kernel.v1.KernelService/GetSession"
LISTENING = re.compile(r"echo-\w+ listening on (\S+:\d+)")


def bench_module(name: str) -> Any:
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCH))


@pytest.fixture(scope="module")
def descriptors(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("echo") / "echo.binpb"
    return Path(bench_module("echo_server").descriptor_set(out))


def echo_argv(kind: str, descriptors: Path) -> list[str]:
    if kind == "aio":
        return [sys.executable, str(BENCH / "echo_server.py"), "--descriptors", str(descriptors)]
    go = tool("go")
    binary = descriptors.parent / "echo-go"
    if not binary.exists():
        subprocess.run(
            [go, "build", "-o", str(binary), "."], cwd=BENCH / "echo", check=True, timeout=300
        )
    return [str(binary), "-descriptors", str(descriptors)]


@pytest.fixture(params=["aio", "go"])
def echo(request: pytest.FixtureRequest, descriptors: Path) -> Iterator[str]:
    """The address of a running echo server of each kind (it logs ``listening on`` once it
    serves; its log is drained until it exits)."""
    process = subprocess.Popen(
        echo_argv(request.param, descriptors),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    log = process.stderr
    lines: list[str] = []
    while not (found := LISTENING.search(lines[-1] if lines else "")):
        line = log.readline()
        assert line, f"echo-{request.param} exited before it listened:\n{''.join(lines)}"
        lines.append(line)
    drain = threading.Thread(target=lambda: (log.read(), log.close()), daemon=True)
    drain.start()
    try:
        yield found.group(1)
    finally:
        process.terminate()
        process.wait(20)
        drain.join(20)


def keep(address: str, method: str, response: bytes) -> None:
    bench_module("echo_server").keep(address, method, response)


def raw(data: bytes) -> bytes:
    return data


def call(address: str, method: str, request: bytes) -> bytes:
    """*request* (serialized) to *method*; the answer as the server sent it."""
    with grpc.insecure_channel(address) as channel:
        unary = channel.unary_unary(method, request_serializer=raw, response_deserializer=raw)
        return unary(request, timeout=30)


def kept_session() -> bytes:
    """A GetSessionResponse in two pieces (its ``session`` field twice, which a parser merges):
    bytes that no serializer writes, so only a server that sends them as they are returns
    them."""
    first = kpb.GetSessionResponse(session=kpb.Session(id="s-kept", workspace_root="/w"))
    second = kpb.GetSessionResponse(session=kpb.Session(cwd="/w/sub"))
    return first.SerializeToString() + second.SerializeToString()


@pytest.mark.slow
@pytest.mark.timeout(360)
def test_a_kept_answer_is_sent_as_it_is_and_its_method_resolves_by_reflection(
    echo: str,
) -> None:
    kept = kept_session()
    assert kpb.GetSessionResponse.FromString(kept).SerializeToString() != kept
    keep(echo, GET_SESSION, kept)
    request = kpb.GetSessionRequest(session_id="s-kept").SerializeToString()
    assert call(echo, GET_SESSION, request) == kept
    assert call(echo, GET_SESSION, request) == kept

    tool("grpcurl")
    described = grpcurl(echo, "describe", "maka.kernel.v1.KernelService.GetSession")
    assert "returns ( .maka.kernel.v1.GetSessionResponse )" in described
    answered = json.loads(
        grpcurl(echo, "maka.kernel.v1.KernelService/GetSession", data={"session_id": "s-kept"})
    )
    assert answered == {"session": {"id": "s-kept", "workspaceRoot": "/w", "cwd": "/w/sub"}}
    listed = grpcurl(echo, "list").split()
    assert "maka.kernel.v1.KernelService" in listed
    assert "maka.resource.v1.ResourceService" in listed


@pytest.mark.slow
@pytest.mark.timeout(360)
def test_a_method_with_nothing_kept_is_unimplemented_and_the_kept_one_still_answers(
    echo: str,
) -> None:
    keep(echo, GET_SESSION, kept_session())
    for method in (
        "/maka.kernel.v1.KernelService/ListSessions",  # unary, nothing kept
        "/maka.kernel.v1.KernelService/NoSuchMethod",
        "/maka.nobody.v1.Nothing/Get",
    ):
        with pytest.raises(grpc.RpcError) as failed:
            call(echo, method, b"")
        assert failed.value.code() == grpc.StatusCode.UNIMPLEMENTED, method
    with pytest.raises(grpc.RpcError) as listed:
        call(echo, "/maka.kernel.v1.KernelService/ListSessions", b"")
    assert "no answer kept for /maka.kernel.v1.KernelService/ListSessions" in str(
        listed.value.details()
    )
    assert call(echo, GET_SESSION, b"") == kept_session()


@pytest.mark.slow
@pytest.mark.timeout(360)
def test_keep_refuses_what_it_cannot_replay_and_keeps_the_answer_it_had(echo: str) -> None:
    keep(echo, GET_SESSION, kept_session())
    refused = {
        "/maka.kernel.v1.KernelService/StartTurn": grpc.StatusCode.NOT_FOUND,  # a stream
        "/maka.kernel.v1.KernelService/NoSuchMethod": grpc.StatusCode.NOT_FOUND,
        "/maka.bench.echo.v1.Echo/Unary": grpc.StatusCode.NOT_FOUND,
        GET_SESSION: grpc.StatusCode.INVALID_ARGUMENT,  # not a GetSessionResponse
    }
    for method, code in refused.items():
        with pytest.raises(grpc.RpcError) as failed:
            keep(echo, method, b"\xff\xff\xff")
        assert failed.value.code() == code, method
        assert "GetSession" in str(failed.value.details()), failed.value.details()
    assert call(echo, GET_SESSION, b"") == kept_session()


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("unary", ["replay", "opaque"])
def test_the_benchmark_names_the_baseline_of_every_profile(tmp_path: Path, unary: str) -> None:
    tool("ghz")
    tool("go")
    out = tmp_path / "ghz.json"
    bench = [sys.executable, str(BENCH / "ghz_bench.py"), "--reps", "1", "--duration", "1"]
    bench += ["--no-rows", "--no-growth", "--json", str(out), "--unary-baseline", unary]
    bench += ["--profile", "kernel_get_session", "--profile", "kernel_start_turn_short"]
    result = subprocess.run(
        bench, capture_output=True, text=True, timeout=280, check=False, cwd=ROOT
    )
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads(out.read_text())
    assert results["settings"]["unary_baseline"] == unary
    baselines = {name: entry["baseline"] for name, entry in results["profiles"].items()}
    assert baselines == {"kernel_get_session": unary, "kernel_start_turn_short": "stream"}
    assert f"| {unary} |" in result.stdout
    assert "| stream |" in result.stdout

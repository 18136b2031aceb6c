"""Metrics and logs of the pair as two real processes: scraped over HTTP, read from stderr."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
from maka_runtime_client.aio import KernelClient
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.conftest import Pair, first, start_pair
from tests.support import auth
from tests.support.processes import ServiceProcess

pytestmark = pytest.mark.slow

BYPASS = kpb.PERMISSION_MODE_BYPASS
KERNEL = "maka.kernel.v1.KernelService"
RESOURCE = "maka.resource.v1.ResourceService"
METRICS_LINE = re.compile(r"metrics on http://(\S+)/metrics")
OBSERVED = ("--metrics-listen", "0", "--log-format", "json", "--log-level", "debug")


@pytest.fixture
def observed(tmp_path: Path) -> Iterator[Pair]:
    started = start_pair(tmp_path, *OBSERVED, resource_args=OBSERVED)
    try:
        yield started
    finally:
        started.stop()
        started.proxy.close()


def metrics_url(process: ServiceProcess) -> str:
    match = METRICS_LINE.search(process.stderr)
    assert match, process.stderr
    return f"http://{match.group(1)}/metrics"


Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(process: ServiceProcess) -> Samples:
    """Every sample of the service's /metrics, by name and labels."""
    text = httpx.get(metrics_url(process), timeout=5).text
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def a_turn(pair: Pair, workspace: Path) -> tuple[str, str]:
    """A real turn with a tool call; (session id, turn id)."""
    async with KernelClient(pair.kernel.address) as kernel:
        session = await kernel.create_session(str(workspace), permission_mode=BYPASS)
        events = [event async for event in kernel.start_turn(session.id, "echo observed")]
    assert events[-1].turn_state.status == kpb.TURN_STATUS_COMPLETED
    return session.id, first(events, "turn_state").turn_id


async def refused_call(pair: Pair, token: str) -> grpc.StatusCode:
    """A kernel call with a token the kernel does not know: its status code."""
    async with auth.bare_aio_channel(pair.kernel.address) as channel:
        stub = kernel_pb2_grpc.KernelServiceStub(channel)
        try:
            await stub.ListSessions(
                kpb.ListSessionsRequest(), metadata=(("authorization", f"Bearer {token}"),)
            )
        except grpc.aio.AioRpcError as error:
            return error.code()
    raise AssertionError("an unknown token was accepted")


async def test_calls_turns_runs_and_commits_are_counted(observed: Pair, workspace: Path) -> None:
    before = scrape(observed.kernel)
    await a_turn(observed, workspace)
    assert await refused_call(observed, "not-a-token") == grpc.StatusCode.UNAUTHENTICATED

    kernel, resource = scrape(observed.kernel), scrape(observed.resource)
    handled = "maka_grpc_server_handled_total"
    start_turn = {"grpc_service": KERNEL, "grpc_method": "StartTurn"}
    assert value(kernel, handled, **start_turn, grpc_code="OK") == 1
    assert value(before, handled, **start_turn, grpc_code="OK") == 0
    assert value(kernel, "maka_grpc_server_handling_seconds_count", **start_turn) == 1
    refused = {"grpc_service": KERNEL, "grpc_method": "ListSessions"}
    assert value(kernel, handled, **refused, grpc_code="UNAUTHENTICATED") == 1
    assert value(kernel, "maka_finished_total", kind="turn", state="completed") == 1
    assert value(kernel, "maka_live", kind="turn", state="running") == 0
    assert value(kernel, "maka_store_commit_seconds_count", store="kernel-sqlite") > 0

    run_foreground = {"grpc_service": RESOURCE, "grpc_method": "RunForeground"}
    assert value(resource, handled, **run_foreground, grpc_code="OK") == 1
    assert value(resource, "maka_finished_total", kind="run", state="completed") == 1
    assert value(resource, "maka_store_commit_seconds_count", store="shell-run-store") > 0
    assert value(resource, "maka_ptys_live") == 0


async def test_json_lines_carry_the_ids_of_a_real_turn_and_no_secret(
    observed: Pair, workspace: Path
) -> None:
    session_id, turn_id = await a_turn(observed, workspace)
    unknown = "maka-secret-that-is-no-token"
    await refused_call(observed, unknown)
    observed.stop()

    kernel = [json.loads(line) for line in observed.kernel.lines]
    resource = [json.loads(line) for line in observed.resource.lines]
    for line in kernel + resource:
        assert {"timestamp", "level", "logger", "message"} <= line.keys(), line
    assert any(
        line.get("session_id") == session_id and line.get("turn_id") == turn_id for line in kernel
    ), kernel
    runs = [line for line in resource if line.get("run_id")]
    assert runs, resource
    assert all(line["session_id"] == session_id and line["turn_id"] == turn_id for line in runs), (
        runs
    )
    both = observed.kernel.stderr + observed.resource.stderr
    assert auth.TOKEN not in both
    assert unknown not in both


async def test_a_stopped_turn_is_live_then_aborted(observed: Pair, workspace: Path) -> None:
    async with KernelClient(observed.kernel.address) as kernel:
        session = await kernel.create_session(str(workspace), permission_mode=BYPASS)
        stream = kernel.start_turn(session.id, "echo started; sleep 600")
        async for event in stream:
            if event.WhichOneof("event") == "tool_output":
                break
        running = scrape(observed.kernel)
        await kernel.stop_session(session.id)
        async for _ in stream:
            pass
    stopped = scrape(observed.kernel)

    assert value(running, "maka_live", kind="turn", state="running") == 1
    assert value(stopped, "maka_live", kind="turn", state="running") == 0
    assert value(stopped, "maka_finished_total", kind="turn", state="aborted") == 1
    stop = {"grpc_service": KERNEL, "grpc_method": "StopSession"}
    assert value(stopped, "maka_grpc_server_handled_total", **stop, grpc_code="OK") == 1
    assert value(stopped, "maka_grpc_server_handling_seconds_count", **stop) == 1
    resource = scrape(observed.resource)
    assert value(resource, "maka_finished_total", kind="run", state="cancelled") == 1
    assert value(resource, "maka_stop_seconds_count", kind="run") == 1

"""``maka-kernel --event-loop``: uvloop (libuv's event loop) by default, asyncio when asked."""

from __future__ import annotations

import signal
from pathlib import Path

import grpc
import pytest
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc

from maka_runtime.kernel.server import parse_config
from tests.support.processes import refused_at_start, running_service

from .conftest import WORKSPACE

pytestmark = pytest.mark.slow


def test_the_kernel_runs_a_coalesced_turn_on_uvloop(data_dir: Path) -> None:
    with (
        running_service("kernel", data_dir) as host,
        grpc.insecure_channel(host.address) as channel,
    ):
        stub = kernel_pb2_grpc.KernelServiceStub(channel)
        stub.CreateSession(
            pb.CreateSessionRequest(
                session_id="loop", workspace_root=WORKSPACE, backend="scripted"
            ),
            timeout=30,
        )
        request = pb.StartTurnRequest(
            session_id="loop", text="/script words 500", coalesce_events=True
        )
        events = [
            event
            for response in stub.StartTurn(request, timeout=60)
            for event in (response.event, *response.more_events)
        ]
        seqs = [event.seq for event in events]
        assert seqs == sorted(set(seqs))  # in order, none twice
        assert sum(event.WhichOneof("event") == "text_delta" for event in events) == 500
        assert events[-1].turn_state.status == pb.TURN_STATUS_COMPLETED
    assert "event loop: uvloop" in host.stderr


def test_the_kernel_runs_on_uvloop_unless_told_otherwise(data_dir: Path) -> None:
    assert parse_config([]).event_loop == "uvloop"
    assert parse_config(["--event-loop", "asyncio"]).event_loop == "asyncio"
    with running_service("kernel", data_dir, env={"MAKA_KERNEL_EVENT_LOOP": "asyncio"}) as host:
        host.signal(signal.SIGTERM)
        host.process.wait(30)
    assert "event loop: asyncio" in host.stderr


def test_an_unknown_event_loop_is_refused_at_start(data_dir: Path) -> None:
    refused = refused_at_start("kernel", ["--data-dir", str(data_dir), "--event-loop", "trio"])
    assert refused.returncode == 2
    assert "invalid choice: 'trio'" in refused.stderr

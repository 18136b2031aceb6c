"""The bench's ceiling kernel (bench/memory_kernel.py): the product's kernel with its session
store in memory. It must serve a real turn over real gRPC, and it must really have no SQLite
(else the ceiling row of the benchmark would measure the durable kernel twice)."""

from __future__ import annotations

import sys
from pathlib import Path

import grpc
import pytest
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc

from maka_runtime.kernel.store.sqlite import DEFAULT_FILENAME
from tests.integration.test_ghz_replay import BENCH, bench_module

pytestmark = pytest.mark.slow


def test_the_memory_kernel_serves_a_turn_and_writes_no_database(tmp_path: Path) -> None:
    support = bench_module("support")
    data_dir, workspace = tmp_path / "data", tmp_path / "workspace"
    workspace.mkdir()
    argv = [sys.executable, str(BENCH / "memory_kernel.py"), "--listen", "127.0.0.1:0"]
    argv += ["--data-dir", str(data_dir), "--resource-address", "127.0.0.1:1"]
    kernel = support.start("maka-kernel (memory store)", argv, data_dir=data_dir)
    try:
        with grpc.insecure_channel(kernel.address) as channel:
            stub = kernel_pb2_grpc.KernelServiceStub(channel)
            stub.CreateSession(
                pb.CreateSessionRequest(
                    session_id="ceiling", workspace_root=str(workspace), backend="scripted"
                ),
                metadata=kernel.metadata,
                timeout=30,
            )
            request = pb.StartTurnRequest(session_id="ceiling", text="/script say hi")
            events = [
                r.event for r in stub.StartTurn(request, metadata=kernel.metadata, timeout=30)
            ]
            assert events[-1].turn_state.status == pb.TURN_STATUS_COMPLETED
            assert any(event.WhichOneof("event") == "text_delta" for event in events)
            header = stub.GetSession(
                pb.GetSessionRequest(session_id="ceiling"), metadata=kernel.metadata, timeout=30
            )
            assert header.session.id == "ceiling"
    finally:
        kernel.stop()
    assert not list(data_dir.rglob(DEFAULT_FILENAME)), "the ceiling kernel opened SQLite"
    assert not list(data_dir.rglob("*.sqlite3*"))

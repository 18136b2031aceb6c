"""The bench's ceiling kernel (bench/memory_kernel.py, started by bench/ceilings.py beside the
benchmark's pair): the product's kernel with its session store in memory. It must serve a real
turn over real gRPC, it must really have no SQLite (else the ceiling row would measure the
durable kernel twice), and its stop must leave the pair's resource service running (the rows
measured after it still need it)."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc

from maka_runtime.kernel.store.sqlite import DEFAULT_FILENAME
from tests.integration.test_ghz_replay import bench_module

pytestmark = pytest.mark.slow


def test_the_memory_kernel_serves_a_turn_writes_no_database_and_spares_the_pair(
    tmp_path: Path,
) -> None:
    support, ceilings = bench_module("support"), bench_module("ceilings")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    with support.running_pair(tmp_path / "pair") as pair:
        kernel = ceilings.start_memory_kernel(pair, tmp_path)
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
                    response.event
                    for response in stub.StartTurn(request, metadata=kernel.metadata, timeout=30)
                ]
                assert events[-1].turn_state.status == pb.TURN_STATUS_COMPLETED
                assert any(event.WhichOneof("event") == "text_delta" for event in events)
        finally:
            assert kernel.stop() == 0
        # The kernel's stop waits for its shutdown cascade's answer, so a resource service
        # told to shut down would refuse this run by now.
        with grpc.insecure_channel(pair.resource.address) as channel:
            resource = resource_pb2_grpc.ResourceServiceStub(channel)
            run = rpb.RunForegroundRequest(session_id="ceiling", command="true", cwd=str(workspace))
            *_, last = resource.RunForeground(run, metadata=pair.metadata, timeout=30)
            assert last.result.status == rpb.RUN_STATUS_COMPLETED
        pair.resource.check_alive()
        data_dir = kernel.data_dir
        assert not list(data_dir.rglob(DEFAULT_FILENAME)), "the ceiling kernel opened SQLite"
        assert not list(data_dir.rglob("*.sqlite3*"))

"""The foreground rows' baseline (bench/growth.py, ``sandboxed_true``): ``subprocess.run`` of
the same sandboxed command line the service runs. It must be exactly the argv of a real run's
leader, read from ``/proc`` of a live run of a real ``maka-resource``: a baseline that leaves a
step out (as the ``env --default-signal`` once was) makes the ratio measure a different
command."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc

from tests.integration.test_ghz_replay import bench_module


def test_the_baseline_is_the_argv_of_a_real_runs_leader(tmp_path: Path) -> None:
    support, growth = bench_module("support"), bench_module("growth")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    command = "exec sleep 60"
    server = support.start_service(
        "resource", tmp_path / "data", "--max-live-runs", "4", "--standalone"
    )
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = resource_pb2_grpc.ResourceServiceStub(channel)
            started = stub.StartBackground(
                pb.StartBackgroundRequest(session_id="s", command=command, cwd=str(workspace)),
                metadata=server.metadata,
                timeout=30,
            )
            run = started.run
            try:
                deadline = time.monotonic() + 30
                while run.status == pb.RUN_STATUS_STARTING and time.monotonic() < deadline:
                    run = stub.GetRun(
                        pb.GetRunRequest(ref=run.ref), metadata=server.metadata, timeout=30
                    ).run
                assert run.status == pb.RUN_STATUS_RUNNING, run
                raw = Path(f"/proc/{run.pid}/cmdline").read_bytes()
            finally:
                stub.StopRun(pb.StopRunRequest(ref=run.ref), metadata=server.metadata, timeout=30)
    finally:
        server.stop()
    leader = [arg.decode() for arg in raw.split(b"\0")[:-1]]
    assert leader[0] == "/usr/bin/bwrap"
    assert leader == growth.sandboxed_true(workspace, command)
    # The reference line is the same jailer straight on bash, with no env in between.
    reference = growth.bwrap_bash(workspace)
    assert reference[: leader.index("/usr/bin/env")] == leader[: leader.index("/usr/bin/env")]

"""``maka-resource`` as a real process: kill -9 and restart, SIGTERM, a second owner."""

from __future__ import annotations

import subprocess
from pathlib import Path

import grpc
import pytest
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc, sandbox_pb2

from maka_runtime.resource.core import ORPHANED_MESSAGE
from tests.resource.conftest import process_gone
from tests.support.pids import host_pid, wait_gone
from tests.support.processes import running_service, service_command, wait_for_exit

SESSION = "process-session"
FLAGS = ("--termination-grace", "0.3", "--standalone")
DANGER = sandbox_pb2.PERMISSION_PROFILE_DANGER_FULL_ACCESS


def start(
    stub: resource_pb2_grpc.ResourceServiceStub,
    command: str,
    *,
    pty: bool,
    boundary: sandbox_pb2.ExecutionBoundary | None = None,
) -> pb.Run:
    request = pb.StartBackgroundRequest(
        session_id=SESSION, command=command, cwd="/", pty=pty, boundary=boundary
    )
    run: pb.Run = stub.StartBackground(request, timeout=20).run
    assert run.status == pb.RUN_STATUS_RUNNING and run.pid > 0
    return run


def first_line(stub: resource_pb2_grpc.ResourceServiceStub, ref: str) -> str:
    """Attach and read output until the first newline (a sentinel the command prints)."""
    requests = iter([pb.AttachRequest(start=pb.AttachStart(session_id=SESSION, ref=ref))])
    output = b""
    call = stub.Attach(requests, timeout=20)
    for event in call:
        if event.WhichOneof("event") == "output":
            output += event.output.data
            if b"\n" in output:
                call.cancel()
                return output.split(b"\n")[0].decode()
    raise AssertionError(f"{ref} printed no line: {output!r}")


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "danger-full-access"])
def test_kill_9_then_restart_orphans_runs_and_kills_their_processes(
    data_dir: Path, sandboxed: bool
) -> None:
    boundary = None if sandboxed else sandbox_pb2.ExecutionBoundary(profile=DANGER)
    with running_service("resource", data_dir, *FLAGS) as first:
        with grpc.insecure_channel(first.address) as channel:
            stub = resource_pb2_grpc.ResourceServiceStub(channel)
            runs = [
                start(stub, "sleep 600", pty=False, boundary=boundary),
                # Ignores the hangup its terminal gets when the server dies, as nohup would.
                start(stub, 'trap "" HUP; exec sleep 600', pty=True, boundary=boundary),
                start(stub, "sleep 600 & echo $!; wait", pty=False, boundary=boundary),
            ]
            # It echoes its pid in the run's PID namespace.
            grandchild = host_pid(runs[2].pid, int(first_line(stub, runs[2].ref)))
        pids = [run.pid for run in runs] + [grandchild]
        first.kill()  # SIGKILL: the server cleans up nothing
        assert first.process.returncode == -9
    if sandboxed:
        # bubblewrap (--die-with-parent) ends each sandbox, and its PID namespace, with it.
        assert wait_gone(pids), "the sandboxed runs outlive the server"
    else:
        assert not any(process_gone(pid) for pid in pids), "the runs outlive the server"

    with running_service("resource", data_dir, *FLAGS) as second:
        # The start-up sweep ran before the server started listening.
        assert all(process_gone(pid) for pid in pids)
        with grpc.insecure_channel(second.address) as channel:
            stub = resource_pb2_grpc.ResourceServiceStub(channel)
            for run in runs:
                orphan = stub.GetRun(pb.GetRunRequest(session_id=SESSION, ref=run.ref), timeout=20)
                assert orphan.run.status == pb.RUN_STATUS_ORPHANED
                assert orphan.run.message == ORPHANED_MESSAGE
            events = list(
                stub.RunForeground(
                    pb.RunForegroundRequest(session_id=SESSION, command="printf works", cwd="/"),
                    timeout=20,
                )
            )
            assert events[-1].result.status == pb.RUN_STATUS_COMPLETED
            assert events[-1].result.pipes.stdout == "works"
    assert "orphaned 3 run(s)" in second.stderr


def test_sigterm_drains_runs_to_cancelled_and_exits_zero(data_dir: Path) -> None:
    with running_service("resource", data_dir, *FLAGS) as server:
        with grpc.insecure_channel(server.address) as channel:
            stub = resource_pb2_grpc.ResourceServiceStub(channel)
            runs = [start(stub, "sleep 600", pty=False), start(stub, "sleep 600", pty=True)]
        assert server.terminate() == 0
    assert all(wait_for_exit(run.pid) for run in runs)
    assert "drained: {'cancelled': 2}" in server.stderr
    with (
        running_service("resource", data_dir, *FLAGS) as again,
        grpc.insecure_channel(again.address) as channel,
    ):
        stub = resource_pb2_grpc.ResourceServiceStub(channel)
        for run in runs:
            reply = stub.GetRun(pb.GetRunRequest(session_id=SESSION, ref=run.ref), timeout=20)
            assert reply.run.status == pb.RUN_STATUS_CANCELLED
            assert reply.run.exit_code == 130


def test_a_second_server_on_the_same_data_dir_exits_at_once_naming_the_owner(
    data_dir: Path,
) -> None:
    with (
        running_service("resource", data_dir, *FLAGS) as owner,
        grpc.insecure_channel(owner.address) as channel,
    ):
        stub = resource_pb2_grpc.ResourceServiceStub(channel)
        run = start(stub, "sleep 600", pty=False)
        second = subprocess.run(
            service_command("resource", ["--listen", "127.0.0.1:0", "--data-dir", str(data_dir)]),
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert second.returncode == 1
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1, second.stderr
        (line,) = lines
        assert "already owned" in line and f"pid {owner.pid}" in line
        # The owner and its run are untouched.
        reply = stub.GetRun(pb.GetRunRequest(session_id=SESSION, ref=run.ref), timeout=20)
        assert reply.run.status == pb.RUN_STATUS_RUNNING

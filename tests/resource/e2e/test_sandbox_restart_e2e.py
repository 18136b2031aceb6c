"""The escape suite, across a crash: processes that tried to outlive their run (``setsid``, a
double fork, ``exec -a``, ``env -u MAKA_SHELL_RUN_ID``) after kill -9 of ``maka-resource`` and a
restart. Sandboxed runs end with the server (bubblewrap's ``--die-with-parent`` and the PID
namespace); unsandboxed ones are found in their cgroups by the start-up sweep — and without
cgroups (the forced fallback), the one that dropped its marker and its group is what the
fallback cannot find, which GetServerInfo and the start-up log say."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc, sandbox_pb2

from tests.resource.conftest import process_gone
from tests.resource.e2e.test_process_e2e import first_line
from tests.resource.e2e.test_sandbox_e2e import ESCAPEES
from tests.support.pids import host_pid, wait_gone
from tests.support.processes import running_service

SESSION = "process-session"
FLAGS = ("--termination-grace", "0.3", "--standalone")
DANGER = sandbox_pb2.ExecutionBoundary(profile=sandbox_pb2.PERMISSION_PROFILE_DANGER_FULL_ACCESS)


def _start(stub: resource_pb2_grpc.ResourceServiceStub, sandboxed: bool, cwd: Path) -> pb.Run:
    request = pb.StartBackgroundRequest(
        session_id=SESSION, command=ESCAPEES + "sleep 600", cwd=str(cwd)
    )
    if not sandboxed:
        request.boundary.CopyFrom(DANGER)
    run: pb.Run = stub.StartBackground(request, timeout=20).run
    return run


def _escapees(
    stub: resource_pb2_grpc.ResourceServiceStub, run: pb.Run, sandboxed: bool
) -> list[int]:
    pids: list[int] = []
    for _ in range(4):  # each attach replays from the start: read one more line every time
        line = first_line_after(stub, run.ref, len(pids))
        pid = int(line.split()[1])
        pids.append(host_pid(run.pid, pid) if sandboxed else pid)
    return pids


def first_line_after(stub: resource_pb2_grpc.ResourceServiceStub, ref: str, skip: int) -> str:
    requests = iter([pb.AttachRequest(start=pb.AttachStart(session_id=SESSION, ref=ref))])
    output = b""
    call = stub.Attach(requests, timeout=20)
    for event in call:
        if event.WhichOneof("event") == "output":
            output += event.output.data
            lines = output.split(b"\n")
            if len(lines) > skip + 1:
                call.cancel()
                return lines[skip].decode()
    raise AssertionError(f"{ref} printed fewer than {skip + 1} lines")


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "danger-full-access"])
def test_kill_9_and_restart_leave_no_escapee_behind(
    data_dir: Path, tmp_path: Path, sandboxed: bool
) -> None:
    with running_service("resource", data_dir, *FLAGS) as first:
        with grpc.insecure_channel(first.address) as channel:
            stub = resource_pb2_grpc.ResourceServiceStub(channel)
            run = _start(stub, sandboxed, tmp_path)
            assert first_line(stub, run.ref).startswith("setsid ")
            pids = _escapees(stub, run, sandboxed)
        first.kill()
    if sandboxed:
        assert wait_gone(pids), "sandboxed escapees outlived the server"
    else:
        assert not any(process_gone(pid) for pid in pids), "they outlive the server"
    with running_service("resource", data_dir, *FLAGS) as second:
        # The start-up sweep (cgroup.kill of every run cgroup left) ran before it listened.
        assert [pid for pid in pids if not process_gone(pid)] == []
        with grpc.insecure_channel(second.address) as channel:
            stub = resource_pb2_grpc.ResourceServiceStub(channel)
            got = stub.GetRun(pb.GetRunRequest(session_id=SESSION, ref=run.ref), timeout=20)
            assert got.run.status == pb.RUN_STATUS_ORPHANED
    if not sandboxed:
        assert "leftover process(es) in run cgroups" in second.stderr

"""``--event-loop uvloop``: the same service on libuv's event loop, pipes, PTYs and drain."""

from __future__ import annotations

from pathlib import Path

import grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc

from tests.support.processes import refused_at_start, running_service

SESSION = "loop-session"


def test_the_service_runs_on_uvloop_when_asked(data_dir: Path, tmp_path: Path) -> None:
    with running_service("resource", data_dir, "--standalone", "--event-loop", "uvloop") as host:
        with grpc.insecure_channel(host.address) as channel:
            stub = resource_pb2_grpc.ResourceServiceStub(channel)
            request = pb.RunForegroundRequest(
                session_id=SESSION, command="echo out; echo err >&2; exit 3", cwd=str(tmp_path)
            )
            events = list(stub.RunForeground(request, timeout=30))
            result = events[-1].result
            assert (result.status, result.exit_code) == (pb.RUN_STATUS_FAILED, 3)
            assert (result.pipes.stdout, result.pipes.stderr) == ("out\n", "err\n")
            run = stub.StartBackground(
                pb.StartBackgroundRequest(
                    session_id=SESSION,
                    command="read -r line; echo got $line",
                    cwd=str(tmp_path),
                    pty=True,
                ),
                timeout=30,
            ).run
            requests = iter(
                [
                    pb.AttachRequest(
                        start=pb.AttachStart(session_id=SESSION, ref=run.ref, controller_id="c")
                    ),
                    pb.AttachRequest(control=pb.AttachControl(sequence=1, input="hi\r")),
                ]
            )
            output = b""
            for event in stub.Attach(requests, timeout=30):
                if event.WhichOneof("event") == "output":
                    output += event.output.data
                elif event.WhichOneof("event") == "ended":
                    break
            assert b"got hi" in output
            stub.Shutdown(pb.ShutdownRequest(), timeout=30)
        host.process.wait(30)
        assert host.process.returncode == 0
    assert "event loop: uvloop" in host.stderr


def test_an_unknown_event_loop_is_refused_at_start(data_dir: Path) -> None:
    refused = refused_at_start("resource", ["--data-dir", str(data_dir), "--event-loop", "trio"])
    assert refused.returncode == 2
    assert "invalid choice: 'trio'" in refused.stderr

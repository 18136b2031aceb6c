"""``--event-loop``: libuv's event loop by default; the same service on the standard library's
loop when asked, pipes, PTYs and drain, on both."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc

from maka_runtime.resource.server import parse_config
from tests.support.processes import refused_at_start, running_service

SESSION = "loop-session"
#: Numbered lines of a PTY burst: about 2.4 MB through the terminal, many PTY reads (at most
#: 4 KiB each), several reads' worth per wake-up, more than the replay log holds.
BURST_LINES = 300_000


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_the_service_runs_on_either_loop(data_dir: Path, tmp_path: Path, loop: str) -> None:
    with running_service("resource", data_dir, "--standalone", "--event-loop", loop) as host:
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
    assert f"event loop: {loop}" in host.stderr


def test_an_unknown_event_loop_is_refused_at_start(data_dir: Path) -> None:
    refused = refused_at_start("resource", ["--data-dir", str(data_dir), "--event-loop", "trio"])
    assert refused.returncode == 2
    assert "invalid choice: 'trio'" in refused.stderr


def test_the_resource_service_runs_on_uvloop_by_default(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in ("MAKA_RESOURCE_EVENT_LOOP", "MAKA_EVENT_LOOP"):
        monkeypatch.delenv(variable, raising=False)
    assert parse_config([]).event_loop == "uvloop"
    assert parse_config(["--event-loop", "asyncio"]).event_loop == "asyncio"
    with running_service("resource", data_dir, "--standalone") as host:
        with grpc.insecure_channel(host.address) as channel:
            stub = resource_pb2_grpc.ResourceServiceStub(channel)
            stub.Shutdown(pb.ShutdownRequest(), timeout=30)
        host.process.wait(30)
    assert "event loop: uvloop" in host.stderr


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_a_pty_burst_of_many_reads_arrives_whole_and_in_order_through_attach(
    data_dir: Path, tmp_path: Path, loop: str
) -> None:
    with running_service("resource", data_dir, "--standalone", "--event-loop", loop) as host:
        with grpc.insecure_channel(host.address) as channel:
            stub = resource_pb2_grpc.ResourceServiceStub(channel)
            run = stub.StartBackground(
                pb.StartBackgroundRequest(
                    session_id=SESSION,
                    command=f"stty -echo; echo ready; IFS= read -r _; seq 1 {BURST_LINES}",
                    cwd=str(tmp_path),
                    pty=True,
                ),
                timeout=30,
            ).run
            ready = threading.Event()  # echo is off: the burst may start

            def requests() -> Iterator[pb.AttachRequest]:
                yield pb.AttachRequest(
                    start=pb.AttachStart(session_id=SESSION, ref=run.ref, controller_id="c")
                )
                ready.wait(60)
                yield pb.AttachRequest(control=pb.AttachControl(sequence=1, input="\r"))

            output, sequences, kinds = bytearray(), [], []
            ended = pb.Run()
            for event in stub.Attach(requests(), timeout=120):
                kind = event.WhichOneof("event")
                kinds.append(kind)
                if kind == "output":
                    output += event.output.data
                    sequences.append(event.output.sequence)
                    if output.startswith(b"ready\r\n"):
                        ready.set()
                elif kind == "ended":
                    ended = event.ended
                    break
            stub.Shutdown(pb.ShutdownRequest(), timeout=30)
        host.process.wait(30)
    assert "gap" not in kinds
    assert sequences == sorted(sequences) and len(set(sequences)) == len(sequences)
    lines = "".join(f"{number}\r\n" for number in range(1, BURST_LINES + 1))
    expected = b"ready\r\n" + lines.encode()
    assert bytes(output) == expected
    assert ended.status == pb.RUN_STATUS_COMPLETED
    visible = [line.strip() for line in ended.screen.lines if line.strip()]
    last = [str(number) for number in range(BURST_LINES - len(visible) + 1, BURST_LINES + 1)]
    assert len(visible) >= ended.screen.rows - 2 and visible == last
    assert f"event loop: {loop}" in host.stderr

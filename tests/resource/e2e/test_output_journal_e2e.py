"""The output journal over real gRPC: a slow RunForeground consumer gets every byte, output beyond
the per-run bound is one exact gap, and an ended run's output replays (Attach, ReadRunOutput)
after a restart of ``maka-resource`` and after kill -9 and the start-up sweep."""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc

from tests.resource.e2e.conftest import (
    E2E_CONFIG,
    SESSION_ID,
    raises_status,
    start_server,
    stop_server,
)
from tests.support.processes import running_service

SIZE = 6_000_000
FLAGS = ("--termination-grace", "0.3", "--standalone")
STREAMS = {pb.OUTPUT_STREAM_STDOUT: "stdout", pb.OUTPUT_STREAM_STDERR: "stderr"}


@pytest.fixture
def payload(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """6 MB of random bytes in a file, and their sha256."""
    path = tmp_path / "payload.bin"
    data = os.urandom(SIZE)
    path.write_bytes(data)
    yield path, hashlib.sha256(data).hexdigest()


def foreground(command: str, cwd: str = "/") -> pb.RunForegroundRequest:
    return pb.RunForegroundRequest(
        session_id=SESSION_ID, command=command, cwd=cwd, announce_start=True
    )


async def test_a_slow_run_foreground_consumer_gets_every_byte(
    tmp_path: Path, payload: tuple[Path, str]
) -> None:
    path, digest = payload
    server = await start_server(tmp_path / "data")
    try:
        # The run's cwd is the payload's directory: a sandboxed run reads only its own roots.
        call = server.stub().RunForeground(foreground(f"cat {path}", cwd=str(path.parent)))
        started = await call.read()
        ref = started.started.ref
        # The consumer reads nothing more until the run has ended: as far behind as it gets.
        await server.coordinator.manager.wait_terminal(SESSION_ID, ref)
        received = hashlib.sha256()
        kinds: set[str] = set()
        size = 0
        while (event := await call.read()) is not grpc.aio.EOF:
            kind = event.WhichOneof("event")
            kinds.add(kind)
            if kind == "output":
                received.update(event.output.data)
                size += len(event.output.data)
            elif kind == "result":
                assert event.result.status == pb.RUN_STATUS_COMPLETED
        assert kinds == {"output", "result"}  # no gap
        assert (size, received.hexdigest()) == (SIZE, digest)
    finally:
        await stop_server(server)


async def test_output_beyond_the_bound_is_one_gap_with_exact_counts(tmp_path: Path) -> None:
    config = dataclasses.replace(E2E_CONFIG, max_run_output_bytes=1024 * 1024)
    server = await start_server(tmp_path / "data", config)
    try:
        stub = server.stub()
        call = stub.RunForeground(
            foreground("head -c 3000000 /dev/zero; head -c 1000000 /dev/zero >&2")
        )
        ref = (await call.read()).started.ref
        await server.coordinator.manager.wait_terminal(SESSION_ID, ref)
        totals = {"stdout": 0, "stderr": 0}
        gaps = []
        while (event := await call.read()) is not grpc.aio.EOF:
            if event.WhichOneof("event") == "output":
                totals[STREAMS[event.output.stream]] += len(event.output.data)
            elif event.WhichOneof("event") == "gap":
                gaps.append(event.gap)
        # The kept output by ref: the first part, then exactly what was not kept.
        pages = await read_all(stub, ref, max_bytes=100_000)
        kept = sum(len(chunk.data) for page in pages for chunk in page.chunks)
        omitted = pages[-1].omitted
        assert kept <= 1024 * 1024 and pages[-1].end_reached and not pages[-1].evicted
        assert kept + omitted.stdout_bytes + omitted.stderr_bytes == 4_000_000
        assert omitted.last_sequence == pages[-1].last_sequence
        # The consumer got every kept byte, and gaps only for output past the bound (memory,
        # or the transport's buffers, may have held some or all of it), with exact counts.
        assert all(gap.first_sequence >= omitted.first_sequence for gap in gaps)
        for gap in gaps:
            totals["stdout"] += gap.stdout_bytes
            totals["stderr"] += gap.stderr_bytes
            assert gap.pty_bytes == 0
        assert totals == {"stdout": 3_000_000, "stderr": 1_000_000}
        # Attached once it has ended: the kept part, then one gap for exactly the rest.
        attach = stub.Attach()
        await attach.write(pb.AttachRequest(start=pb.AttachStart(ref=ref)))
        events = []
        while (event := await attach.read()) is not grpc.aio.EOF:
            events.append(event)
        assert [e.WhichOneof("event") for e in events[-2:]] == ["gap", "ended"]
        assert events[-2].gap == omitted
        replayed = sum(len(e.output.data) for e in events if e.WhichOneof("event") == "output")
        assert replayed == kept
        # A position inside what was not kept is refused, naming the field.
        async with raises_status(grpc.StatusCode.OUT_OF_RANGE, "OUT_OF_RANGE") as refused:
            await stub.ReadRunOutput(
                pb.ReadRunOutputRequest(ref=ref, after_sequence=omitted.first_sequence)
            )
        assert refused["metadata"]["field"] == "after_sequence"
    finally:
        await stop_server(server)


async def read_all(stub: Any, ref: str, *, max_bytes: int) -> list[Any]:
    pages = []
    after = 0
    while True:
        page = await stub.ReadRunOutput(
            pb.ReadRunOutputRequest(ref=ref, after_sequence=after, max_bytes=max_bytes)
        )
        pages.append(page)
        after = page.next_after_sequence
        if page.end_reached:
            return pages


def attach_all(stub: resource_pb2_grpc.ResourceServiceStub, ref: str) -> tuple[bytes, list[str]]:
    """Attach after sequence 0 and read to the end: the bytes and the kinds of event."""
    requests = iter([pb.AttachRequest(start=pb.AttachStart(ref=ref))])
    data, kinds = b"", list[str]()
    for event in stub.Attach(requests, timeout=30):
        kinds.append(str(event.WhichOneof("event")))
        if kinds[-1] == "output":
            data += event.output.data
    return data, kinds


def read_until(stub: resource_pb2_grpc.ResourceServiceStub, ref: str, needle: bytes) -> bytes:
    requests = iter([pb.AttachRequest(start=pb.AttachStart(ref=ref))])
    seen = b""
    call = stub.Attach(requests, timeout=30)
    for event in call:
        if event.WhichOneof("event") == "output":
            seen += event.output.data
            if needle in seen:
                call.cancel()
                return seen
    raise AssertionError(f"{ref} ended without {needle!r}")


def pages_of(stub: resource_pb2_grpc.ResourceServiceStub, ref: str) -> bytes:
    data, after = b"", 0
    while True:
        page = stub.ReadRunOutput(
            pb.ReadRunOutputRequest(ref=ref, after_sequence=after, max_bytes=65536), timeout=30
        )
        data += b"".join(chunk.data for chunk in page.chunks)
        after = page.next_after_sequence
        if page.end_reached:
            assert not page.HasField("omitted") and not page.evicted
            return data


def test_an_ended_pty_run_replays_after_a_restart_of_the_service(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    command = "echo one; seq 1 20000; echo last"
    with running_service("resource", data_dir, *FLAGS) as first:
        with grpc.insecure_channel(first.address) as channel:
            stub = resource_pb2_grpc.ResourceServiceStub(channel)
            request = pb.StartBackgroundRequest(
                session_id=SESSION_ID, command=command, cwd="/", pty=True
            )
            run = stub.StartBackground(request, timeout=20).run
            live, kinds = attach_all(stub, run.ref)  # to its end
            assert kinds[0] == "attached" and kinds[-1] == "ended"
            assert live.startswith(b"one\r\n1\r\n") and live.endswith(b"20000\r\nlast\r\n")
        assert first.terminate() == 0
    with (
        running_service("resource", data_dir, *FLAGS) as second,
        grpc.insecure_channel(second.address) as channel,
    ):
        stub = resource_pb2_grpc.ResourceServiceStub(channel)
        replayed, kinds = attach_all(stub, run.ref)
        assert replayed == live
        assert kinds[0] == "attached" and set(kinds[1:-1]) == {"output"}
        assert kinds[-1] == "ended"
        assert pages_of(stub, run.ref) == live


def test_output_survives_kill_9_and_the_start_up_sweep(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    command = 'trap "" HUP; seq 1 20000; echo READY; exec sleep 600'
    with running_service("resource", data_dir, *FLAGS) as doomed:
        with grpc.insecure_channel(doomed.address) as channel:
            stub = resource_pb2_grpc.ResourceServiceStub(channel)
            request = pb.StartBackgroundRequest(
                session_id=SESSION_ID, command=command, cwd="/", pty=True
            )
            run = stub.StartBackground(request, timeout=20).run
            seen = read_until(stub, run.ref, b"READY\r\n")
        doomed.kill()  # SIGKILL: no terminal record, no cleanup
    with (
        running_service("resource", data_dir, *FLAGS) as second,
        grpc.insecure_channel(second.address) as channel,
    ):
        stub = resource_pb2_grpc.ResourceServiceStub(channel)
        orphan = stub.GetRun(pb.GetRunRequest(ref=run.ref), timeout=20).run
        assert orphan.status == pb.RUN_STATUS_ORPHANED
        replayed, kinds = attach_all(stub, run.ref)
        assert replayed == seen and kinds[-1] == "ended" and "gap" not in kinds
        assert pages_of(stub, run.ref) == seen


def _memory_kib(pid: int, field: str) -> int:
    """A ``/proc/<pid>/status`` memory figure (VmRSS, VmHWM) in KiB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


@pytest.mark.slow  # 100 MB through a real service
def test_memory_stays_bounded_while_a_slow_consumer_reads_a_large_print(tmp_path: Path) -> None:
    size = 100_000_000
    flags = (*FLAGS, "--max-run-output-bytes", str(2 * size))
    with (
        running_service("resource", tmp_path / "data", *flags) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        stub = resource_pb2_grpc.ResourceServiceStub(channel)
        # Warm up (the first call loads what serving needs), then measure.
        assert list(stub.RunForeground(foreground("true"), timeout=20))
        before = _memory_kib(server.pid, "VmRSS")
        watch = stub.WatchRuns(pb.WatchRunsRequest(session_id=SESSION_ID), timeout=120)
        call = stub.RunForeground(foreground(f"head -c {size} /dev/zero"), timeout=120)
        ref = next(call).started.ref
        # The consumer reads nothing until the run has ended: all of it waits on disk.
        for change in watch:
            if change.run.ref == ref and change.run.status == pb.RUN_STATUS_COMPLETED:
                break
        watch.cancel()
        received, kinds = 0, set()
        for event in call:
            kinds.add(event.WhichOneof("event"))
            received += len(event.output.data)
        peak = _memory_kib(server.pid, "VmHWM")
    assert received == size and kinds == {"output", "result"}
    # The replay memory (1 MiB), one journal batch (1 MiB) and the transport's buffers.
    assert peak - before < 64 * 1024, f"peak {peak} KiB, {before} KiB before the run"

"""Measure the resource service against doing the same work directly.

    python bench/resource_bench.py [--runs N] [--megabytes M] [--json PATH]

Starts a real ``maka-resource`` (its own process, a fresh data directory, 127.0.0.1:0) and
prints:

* foreground ``true`` runs per second through ``RunForeground`` (one client at a time, and
  eight concurrent), against ``subprocess.run(["bash", "-c", "true"])`` in this process;
* PTY output throughput through ``Attach`` against reading a PTY directly in this process, for
  the same command writing the same number of bytes.

Every service run is durable (SQLite, ``synchronous=FULL``: three commits per run).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc
from maka.resource.v1 import resource_pb2 as pb
from maka.resource.v1 import resource_pb2_grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import Server, start_service

SESSION = "bench"
Metadata = tuple[tuple[str, str], ...]


def start_server(data_dir: Path) -> Server:
    """Start maka-resource (standalone: the bench's sessions are not registered by a kernel)."""
    return start_service("resource", data_dir, "--max-live-runs", "64", "--standalone")


def bare_true_runs(count: int) -> float:
    begin = time.perf_counter()
    for _ in range(count):
        subprocess.run(["/bin/bash", "-c", "true"], check=True)
    return count / (time.perf_counter() - begin)


def service_true_runs(
    stub: Any,
    count: int,
    concurrency: int,
    metadata: Metadata = (),
    *,
    session: str = SESSION,
    cwd: str = "/",
) -> float:
    request = pb.RunForegroundRequest(session_id=session, command="true", cwd=cwd)

    def one(_: int) -> None:
        *_, last = stub.RunForeground(request, timeout=60, metadata=metadata)
        assert last.result.status == pb.RUN_STATUS_COMPLETED, last

    begin = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, range(count)))
    return count / (time.perf_counter() - begin)


def flood_command(size: int) -> str:
    return f"stty -echo; IFS= read -r _; yes 'output through a terminal' | head -c {size}"


def raw_pty_throughput(size: int) -> tuple[float, int]:
    master, slave = os.openpty()
    process = subprocess.Popen(
        ["/bin/bash", "-c", flood_command(size)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
    )
    os.close(slave)
    os.write(master, b"\r")
    begin = time.perf_counter()
    received = 0
    while True:
        try:
            data = os.read(master, 1 << 18)
        except OSError:  # EIO: every slave end closed
            break
        if not data:
            break
        received += len(data)
    elapsed = time.perf_counter() - begin
    process.wait()
    os.close(master)
    return received / elapsed / 1e6, received


def attach_throughput(
    stub: Any, size: int, metadata: Metadata = (), session: str = SESSION, cwd: str = "/"
) -> tuple[float, int, int]:
    run = stub.StartBackground(
        pb.StartBackgroundRequest(
            session_id=session, command=flood_command(size), cwd=cwd, pty=True
        ),
        timeout=20,
        metadata=metadata,
    ).run
    begin: list[float] = []

    def requests() -> Any:
        yield pb.AttachRequest(
            start=pb.AttachStart(session_id=session, ref=run.ref, controller_id="bench")
        )
        begin.append(time.perf_counter())
        yield pb.AttachRequest(control=pb.AttachControl(sequence=1, input="\r"))

    received = gaps = 0
    for event in stub.Attach(requests(), timeout=300, metadata=metadata):
        kind = event.WhichOneof("event")
        if kind == "output":
            received += len(event.output.data)
        elif kind == "gap":
            gaps += 1
        elif kind == "ended":
            break
    elapsed = time.perf_counter() - begin[0]
    return received / elapsed / 1e6, received, gaps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="foreground runs per measurement")
    parser.add_argument("--megabytes", type=int, default=50, help="PTY output per measurement")
    parser.add_argument("--json", metavar="PATH", help="also write the figures here as JSON")
    args = parser.parse_args()
    size = args.megabytes * 1_000_000

    with tempfile.TemporaryDirectory(prefix="maka-resource-bench-") as data_dir:
        server = start_server(Path(data_dir))
        auth = server.metadata
        try:
            with grpc.insecure_channel(server.address) as channel:
                stub = resource_pb2_grpc.ResourceServiceStub(channel)
                service_true_runs(stub, 20, 1, auth)  # warm up
                figures: dict[str, Any] = {
                    "bare_subprocess_run_true_per_s": bare_true_runs(args.runs),
                    "service_foreground_true_per_s": service_true_runs(stub, args.runs, 1, auth),
                    "service_foreground_true_per_s_8_concurrent": service_true_runs(
                        stub, args.runs, 8, auth
                    ),
                }
                raw_mbps, raw_received = raw_pty_throughput(size)
                figures.update(raw_pty_read_mb_per_s=raw_mbps, raw_pty_bytes_received=raw_received)
                mbps, received, gaps = attach_throughput(stub, size, auth)
                figures.update(
                    attach_pty_mb_per_s=mbps,
                    attach_bytes_received=received,
                    command_bytes_written=size,
                    attach_gaps=gaps,
                )
                stub.Shutdown(pb.ShutdownRequest(), timeout=30, metadata=auth)
        finally:
            server.stop()
    figures["machine"] = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
    }
    print(
        f"foreground `true`: {figures['service_foreground_true_per_s']:.0f} runs/s through the "
        f"service ({figures['service_foreground_true_per_s_8_concurrent']:.0f} runs/s with 8 "
        f"concurrent clients) vs {figures['bare_subprocess_run_true_per_s']:.0f} runs/s bare "
        "subprocess.run"
    )
    print(
        f"PTY output: {figures['attach_pty_mb_per_s']:.1f} MB/s through Attach "
        f"({received} bytes, {gaps} gap(s)) vs {figures['raw_pty_read_mb_per_s']:.1f} MB/s "
        f"raw PTY read ({raw_received} bytes; the terminal turns each \\n into \\r\\n)"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

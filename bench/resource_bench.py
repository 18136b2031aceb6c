"""Measure the resource service against doing the same work directly, in the same run.

    python bench/resource_bench.py [--runs N] [--rounds R] [--megabytes M] [--json PATH]

Starts a real ``maka-resource`` (its own process, a fresh data directory, 127.0.0.1:0, the
default sandbox) and, in rounds that alternate product and baseline so both see the same
machine load, measures (medians over the rounds):

* foreground ``true`` runs per second through ``RunForeground`` with 1 and with 8 concurrent
  clients, against ``subprocess.run`` of the same sandboxed command line in this process with
  1 and 8 threads: the service's own leader argv (bubblewrap with the run's mounts,
  ``env --default-signal``, ``bash -c true``), and, for reference, bubblewrap
  straight on ``bash -c true`` and plain ``bash -c true``. The service's runs also get a cgroup
  of their own and three durable commits; the baselines get neither;
* PTY output throughput through ``Attach`` against reading a PTY directly in this process, for
  the same command writing the same number of bytes.

Every service run is durable (SQLite, ``synchronous=FULL``). The machine may be shared: read
the ratios, not the absolute figures.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import support

from maka_runtime.common.auth import local_token_path
from maka_runtime.resource.core.sandbox import ExecutionBoundary
from maka_runtime.resource.core.sandbox.bwrap import bwrap_argv, layout
from maka_runtime.resource.core.sandbox.launch import LaunchPlan

SESSION = "bench"


def start_server(
    data_dir: Path, *extra: str, tree: Path | None = None
) -> tuple[subprocess.Popen[str], str]:
    """Start maka-resource (from *tree*, another checkout, if given) and wait for its
    "listening on HOST:PORT" line."""
    env = None
    if tree is not None:
        env = {"PYTHONPATH": f"{tree}{os.pathsep}{tree / 'gen' / 'python'}"}
    argv = [sys.executable, "-m", "maka_runtime.resource.server", "--listen", "127.0.0.1:0"]
    argv += ["--data-dir", str(data_dir), "--max-live-runs", "64"]
    argv += ["--standalone", *extra]  # the bench's sessions are not registered by a kernel
    server = support.start("maka-resource", argv, data_dir=data_dir, env=env, cwd=tree)
    return server.process, server.address


def command_lines(workspace: str) -> dict[str, list[str]]:
    """The baselines' argv: the service's own leader line without a cgroup (as a leader
    created inside its cgroup starts it: bubblewrap straight away, the native spawner reading
    its gate; a host whose leaders join their cgroup adds a ``/bin/sh`` prologue), and simpler
    ones."""
    shape = layout(ExecutionBoundary(writable_roots=(workspace,)))
    plan = LaunchPlan(env={}, cgroup=None, sandboxed=True)
    plan._bwrap = bwrap_argv("/usr/bin/bwrap", shape, cwd=workspace)
    return {
        "service_argv": plan.direct_argv("true"),
        "bwrap_bash": [*plan._bwrap, "/bin/bash", "-c", "true"],
        "bash": ["/bin/bash", "-c", "true"],
    }


def cpu_seconds(pid: int) -> float:
    """utime + stime of process *pid* so far (``/proc/PID/stat``), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rate(one: Callable[[int], None], count: int, concurrency: int) -> float:
    begin = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, range(count)))
    return count / (time.perf_counter() - begin)


def bare_runner(argv: list[str], env: dict[str, str]) -> Callable[[int], None]:
    def one(_: int) -> None:
        subprocess.run(argv, check=True, env=env, stdin=subprocess.DEVNULL)

    return one


def service_runner(stub: Any, metadata: Any, workspace: str) -> Callable[[int], None]:
    request = pb.RunForegroundRequest(session_id=SESSION, command="true", cwd=workspace)

    def one(_: int) -> None:
        *_, last = stub.RunForeground(request, timeout=60, metadata=metadata)
        assert last.result.status == pb.RUN_STATUS_COMPLETED, last

    return one


def flood_command(size: int) -> str:
    return f"stty -echo; IFS= read -r _; yes 'output through a terminal' | head -c {size}"


def raw_pty_throughput(size: int) -> float:
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
    return received / elapsed / 1e6


def attach_throughput(
    stub: Any, metadata: Any, workspace: str, size: int, session: str = SESSION
) -> float:
    """MB/s of a *size*-byte PTY flood through Attach; raises if a byte is missing or a gap
    came (the figure would not be of the whole output)."""
    run = stub.StartBackground(
        pb.StartBackgroundRequest(
            session_id=session, command=flood_command(size), cwd=workspace, pty=True
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
    if received < size or gaps:
        raise RuntimeError(f"Attach received {received} of {size} bytes, {gaps} gap(s)")
    return received / elapsed / 1e6


def measure(
    stubs: dict[str, Any],
    metadata: dict[str, Any],
    workspace: str,
    args: argparse.Namespace,
    pids: dict[str, int] | None = None,
) -> dict[str, Any]:
    env = {"PATH": "/usr/bin:/bin", "HOME": workspace}
    bare = {name: bare_runner(argv, env) for name, argv in command_lines(workspace).items()}
    services = {
        name: service_runner(stub, metadata[name], workspace) for name, stub in stubs.items()
    }
    for one in services.values():
        one(0)
        rate(one, 20, 8)  # warm up
    samples: dict[str, list[float]] = {}

    def sample(name: str, value: float) -> None:
        samples.setdefault(name, []).append(value)

    for _ in range(args.rounds):
        for concurrency in (1, 8):
            for name, one in services.items():
                cpu = cpu_seconds(pids[name]) if pids else 0.0
                sample(f"{name}_c{concurrency}", rate(one, args.runs, concurrency))
                if pids:
                    spent = cpu_seconds(pids[name]) - cpu
                    sample(f"{name}_cpu_ms_per_run_c{concurrency}", spent * 1000 / args.runs)
            for name, one in bare.items():
                sample(f"{name}_c{concurrency}", rate(one, args.runs, concurrency))
    size = args.megabytes * 1_000_000
    for _ in range(args.pty_rounds):
        sample("raw_pty_mb_s", raw_pty_throughput(size))
        for name, stub in stubs.items():
            sample(
                f"{name}_attach_pty_mb_s", attach_throughput(stub, metadata[name], workspace, size)
            )
    figures: dict[str, Any] = {name: statistics.median(v) for name, v in samples.items()}
    figures["samples"] = samples
    figures["services"] = list(stubs)
    for service in stubs:
        for concurrency in (1, 8):
            for name in bare:
                figures[f"{service}_ratio_c{concurrency}_vs_{name}"] = (
                    figures[f"{service}_c{concurrency}"] / figures[f"{name}_c{concurrency}"]
                )
        figures[f"{service}_scaling_c8_over_c1"] = (
            figures[f"{service}_c8"] / figures[f"{service}_c1"]
        )
        if args.pty_rounds:
            figures[f"{service}_attach_over_raw_pty"] = (
                figures[f"{service}_attach_pty_mb_s"] / figures["raw_pty_mb_s"]
            )
    # Each round's own ratio (product and baseline measured next to each other), then the
    # median over rounds: steadier than a ratio of medians when the machine's load drifts.
    paired: dict[str, float] = {}
    for service in stubs:
        for concurrency in (1, 8):
            mine = samples[f"{service}_c{concurrency}"]
            for name in (*bare, *(other for other in stubs if other != service)):
                theirs = samples[f"{name}_c{concurrency}"]
                paired[f"{service}_c{concurrency}_over_{name}"] = statistics.median(
                    a / b for a, b in zip(mine, theirs, strict=True)
                )
            if pids:
                for other in stubs:
                    if other != service:
                        paired[f"{service}_cpu_per_run_c{concurrency}_over_{other}"] = (
                            statistics.median(
                                a / b
                                for a, b in zip(
                                    samples[f"{service}_cpu_ms_per_run_c{concurrency}"],
                                    samples[f"{other}_cpu_ms_per_run_c{concurrency}"],
                                    strict=True,
                                )
                            )
                        )
        if args.pty_rounds:
            paired[f"{service}_attach_over_raw_pty"] = statistics.median(
                a / b
                for a, b in zip(
                    samples[f"{service}_attach_pty_mb_s"], samples["raw_pty_mb_s"], strict=True
                )
            )
    figures["paired_median_ratios"] = paired
    figures["service_argv_scaling_c8_over_c1"] = (
        figures["service_argv_c8"] / figures["service_argv_c1"]
    )
    return figures


def report(figures: dict[str, Any]) -> None:
    print("median over rounds of each round's ratio:")
    for name, value in figures["paired_median_ratios"].items():
        print(f"  {name:<44}{value:>8.2f}")
    print(f"{'runs/s (median of rounds)':<28}{'c=1':>10}{'c=8':>10}{'c8/c1':>8}")
    for name in (*figures["services"], "service_argv", "bwrap_bash", "bash"):
        c1, c8 = figures[f"{name}_c1"], figures[f"{name}_c8"]
        print(f"{name:<28}{c1:>10.0f}{c8:>10.0f}{c8 / c1:>8.2f}")
    for service in figures["services"]:
        if f"{service}_cpu_ms_per_run_c1" in figures:
            print(
                f"{service}: service CPU per run (utime+stime of its process) "
                f"c=1 {figures[f'{service}_cpu_ms_per_run_c1']:.2f} ms, "
                f"c=8 {figures[f'{service}_cpu_ms_per_run_c8']:.2f} ms"
            )
    for service in figures["services"]:
        for name in ("service_argv", "bwrap_bash", "bash"):
            print(
                f"{service} / subprocess.run({name}): "
                f"c=1 {figures[f'{service}_ratio_c1_vs_{name}']:.2f}, "
                f"c=8 {figures[f'{service}_ratio_c8_vs_{name}']:.2f}"
            )
    for service in figures["services"] if "raw_pty_mb_s" in figures else ():
        print(
            f"PTY output ({service}): {figures[f'{service}_attach_pty_mb_s']:.1f} MB/s through "
            f"Attach vs {figures['raw_pty_mb_s']:.1f} MB/s raw PTY read: "
            f"{figures[f'{service}_attach_over_raw_pty']:.2f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100, help="foreground runs per sample")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    parser.add_argument("--megabytes", type=int, default=20, help="PTY output per sample")
    parser.add_argument("--pty-rounds", type=int, default=3, help="alternating PTY rounds")
    parser.add_argument("--json", metavar="PATH", help="also write the figures here as JSON")
    parser.add_argument(
        "--baseline-tree",
        metavar="DIR",
        help="also measure a maka-resource started from this checkout ('before'), alternating",
    )
    parser.add_argument(
        "--baseline-args",
        metavar="FLAGS",
        help="also measure a maka-resource started with these extra flags ('before'; of this "
        "checkout unless --baseline-tree), e.g. '--event-loop uvloop'",
    )
    parser.add_argument("server_args", nargs="*", help="extra maka-resource flags (after --)")
    args = parser.parse_args()

    trees: dict[str, Path | None] = {"service": None}
    if args.baseline_tree or args.baseline_args:
        trees["before"] = Path(args.baseline_tree).resolve() if args.baseline_tree else None
    servers: list[subprocess.Popen[str]] = []
    with tempfile.TemporaryDirectory(prefix="maka-resource-bench-") as base, ExitStack() as stack:
        workspace = Path(base) / "workspace"
        workspace.mkdir()
        stubs: dict[str, Any] = {}
        metadata: dict[str, Any] = {}
        pids: dict[str, int] = {}
        try:
            for name, tree in trees.items():
                data_dir = Path(base) / f"data-{name}"
                extra = [*args.server_args]
                if name == "before":
                    extra += shlex.split(args.baseline_args or "")
                server, address = start_server(data_dir, *extra, tree=tree)
                servers.append(server)
                pids[name] = server.pid
                token = local_token_path(data_dir).read_text().strip()
                metadata[name] = (("authorization", f"Bearer {token}"),)
                channel = stack.enter_context(grpc.insecure_channel(address))
                stubs[name] = resource_pb2_grpc.ResourceServiceStub(channel)
            figures = measure(stubs, metadata, str(workspace), args, pids)
            for name, stub in stubs.items():
                stub.Shutdown(pb.ShutdownRequest(), timeout=30, metadata=metadata[name])
        finally:
            for server in servers:
                server.wait(30) if server.poll() is None else None
                if server.poll() is None:
                    server.kill()
    figures["machine"] = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "load_average": os.getloadavg(),
    }
    report(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

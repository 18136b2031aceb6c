"""Measure the resource service's cold start against a grpc.aio echo server's, in the same run.

    python bench/cold_start_bench.py [--rounds N] [--baseline-tree DIR] [--json PATH]

Alternating, N times each: start the process, read the port from its "listening on" line, and
call ``grpc.health.v1.Health/Check`` until it answers ``SERVING``; the figure is the time from
starting the process to that answer. The baseline is a grpc.aio server in a fresh interpreter
with the health service and one echo method, nothing else. With ``--baseline-tree``, a
maka-resource started from that checkout is measured too ('before'). Prints medians and the
ratios; the machine may be shared, so read the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

LISTENING = re.compile(r"listening on (\S+:\d+)")

ECHO = """
import asyncio, sys
import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

async def main():
    server = grpc.aio.server()
    servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    echo = grpc.unary_unary_rpc_method_handler(lambda request, context: request)
    server.add_generic_rpc_handlers(
        [grpc.method_handlers_generic_handler("bench.Echo", {"Echo": echo})]
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    await servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    print(f"listening on 127.0.0.1:{port}", file=sys.stderr, flush=True)
    await server.wait_for_termination()

asyncio.run(main())
"""


def _serving(address: str, deadline: float) -> None:
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.perf_counter() < deadline:
            try:
                answer = stub.Check(health_pb2.HealthCheckRequest(), timeout=5)
            except grpc.RpcError:
                time.sleep(0.001)
                continue
            if answer.status == health_pb2.HealthCheckResponse.SERVING:
                return
            time.sleep(0.001)
    raise SystemExit(f"{address} never answered SERVING")


def cold_start(argv: list[str], env: dict[str, str] | None = None) -> float:
    begin = time.perf_counter()
    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:
            match = LISTENING.search(line)
            if match:
                _serving(match.group(1), begin + 30)
                return time.perf_counter() - begin
        raise SystemExit(f"{argv} exited with {process.wait()} before listening")
    finally:
        process.kill()
        process.wait()


def resource_argv(data_dir: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "maka_runtime.resource.server",
        "--listen",
        "127.0.0.1:0",
        "--data-dir",
        str(data_dir),
        "--standalone",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--baseline-tree", metavar="DIR", help="also start this checkout")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    samples: dict[str, list[float]] = {"resource": [], "echo": []}
    tree_env = None
    if args.baseline_tree:
        tree = Path(args.baseline_tree).resolve()
        tree_env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{tree / 'gen' / 'python'}"}
        samples["before"] = []
    with tempfile.TemporaryDirectory(prefix="maka-cold-start-") as base:
        for index in range(args.rounds):
            samples["echo"].append(cold_start([sys.executable, "-c", ECHO]))
            data = Path(base) / f"r{index}"
            samples["resource"].append(cold_start(resource_argv(data)))
            if tree_env is not None:
                data = Path(base) / f"b{index}"
                samples["before"].append(cold_start(resource_argv(data), tree_env))
    figures: dict[str, Any] = {
        f"{k}_median_ms": statistics.median(v) * 1000 for k, v in samples.items()
    }
    for name in samples:
        if name != "echo":
            figures[f"{name}_over_echo"] = figures[f"{name}_median_ms"] / figures["echo_median_ms"]
    figures["samples_ms"] = {k: [x * 1000 for x in v] for k, v in samples.items()}
    for name in samples:
        ratio = "" if name == "echo" else f"  ({figures[f'{name}_over_echo']:.2f}x the echo)"
        print(f"cold start to SERVING, {name}: {figures[f'{name}_median_ms']:.0f} ms{ratio}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

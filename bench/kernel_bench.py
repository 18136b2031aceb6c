"""Measure a scripted turn through the kernel against the same backend iterated directly.

    python bench/kernel_bench.py [--turns N] [--words N] [--synchronous normal|full] [--json PATH]

Three ways to run the same scripted turns, measured in the same run:

* ``direct``  — the scripted backend's ``send`` iterated in this process (the baseline: no
  kernel, no store, no network);
* ``kernel``  — ``RuntimeKernel.start_turn`` in this process on a SQLite store (every event
  committed before it is yielded);
* ``grpc``    — ``StartTurn`` on a real ``maka-kernel`` process over a loopback channel.

Figures: turn start → first event latency (median and p95 over ``--turns`` turns of
``say hi``), and events per second for one stream of ``words N`` (from the call to the last
event).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc

from maka_runtime.common.storage_root import resolve_storage_root, try_acquire_root_owner
from maka_runtime.kernel.backends.scripted import KIND, ScriptedBackend, scripted_factory
from maka_runtime.kernel.core import (
    BackendRegistry,
    BackendSendInput,
    HostedInteractionAuthority,
    HostedMessageAuthority,
    NewSession,
    RuntimeKernel,
    SessionHeader,
)
from maka_runtime.kernel.store.sqlite import SqliteSessionStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import Server, start_service

LATENCY_SCRIPT = "/script say hi"
WORKSPACE = "/tmp/maka-kernel-bench"
# Sessions need a workspace root that exists.
os.makedirs(WORKSPACE, exist_ok=True)

Runner = Callable[[str], AsyncIterator[Any]]


async def measure(run: Runner, turns: int, words: int) -> dict[str, float]:
    latencies = []
    for _ in range(turns):
        start = time.perf_counter()
        stream = run(LATENCY_SCRIPT)
        await anext(stream)
        latencies.append(time.perf_counter() - start)
        async for _ in stream:
            pass
    start = time.perf_counter()
    events = 0
    async for _ in run(f"/script words {words}"):
        events += 1
    elapsed = time.perf_counter() - start
    latencies.sort()
    return {
        "first_event_ms_median": statistics.median(latencies) * 1000,
        "first_event_ms_p95": latencies[int(0.95 * (len(latencies) - 1))] * 1000,
        "events": events,
        "events_per_second": events / elapsed,
    }


async def bench_direct(turns: int, words: int) -> dict[str, float]:
    header = SessionHeader(
        id="bench",
        workspace_root=WORKSPACE,
        cwd=WORKSPACE,
        created_at=0,
        last_used_at=0,
        backend=KIND,
    )
    backend = ScriptedBackend(header)
    counter = 0

    def run(text: str) -> AsyncIterator[Any]:
        nonlocal counter
        counter += 1
        return backend.send(
            BackendSendInput(session_id="bench", turn_id=f"t{counter}", text=text, header=header)
        )

    return await measure(run, turns, words)


async def bench_kernel(
    root_dir: Path, synchronous: str, turns: int, words: int
) -> dict[str, float]:
    owner = try_acquire_root_owner(resolve_storage_root(root_dir, "kernel"))
    assert owner is not None
    store = await SqliteSessionStore.open(
        owner.lease, synchronous="FULL" if synchronous == "full" else "NORMAL"
    )
    backends = BackendRegistry()
    backends.register(KIND, scripted_factory)
    now = lambda: time.time_ns() // 1_000_000  # noqa: E731
    interactions = HostedInteractionAuthority(store, now=now)
    kernel = RuntimeKernel(
        store=store,
        backends=backends,
        interaction_authority=interactions,
        message_authority=HostedMessageAuthority(),
        now=now,
    )
    try:
        session = await kernel.create_session(NewSession(workspace_root=WORKSPACE))

        def run(text: str) -> AsyncIterator[Any]:
            return aiter(kernel.start_turn(session.id, text=text))

        return await measure(run, turns, words)
    finally:
        await kernel.close()
        await interactions.aclose()
        await store.close()
        owner.close()


def start_server(data_dir: Path, synchronous: str) -> Server:
    """maka-kernel alone: scripted sessions, no resource service (nothing listens on port 1)."""
    return start_service(
        "kernel",
        data_dir,
        "--sqlite-synchronous",
        synchronous,
        "--default-backend",
        "scripted",
        "--resource-address",
        "127.0.0.1:1",
        "--shutdown-resource",
        "no",
    )


async def bench_grpc(server: Server, turns: int, words: int) -> dict[str, float]:
    auth = server.metadata
    async with grpc.aio.insecure_channel(server.address) as channel:
        stub = kernel_pb2_grpc.KernelServiceStub(channel)
        await channel.channel_ready()
        session = (
            await stub.CreateSession(
                pb.CreateSessionRequest(workspace_root=WORKSPACE, backend=KIND), metadata=auth
            )
        ).session

        async def run(text: str) -> AsyncIterator[Any]:
            async for response in stub.StartTurn(
                pb.StartTurnRequest(session_id=session.id, text=text), metadata=auth
            ):
                yield response

        return await measure(run, turns, words)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200, help="turns for the latency figure")
    parser.add_argument("--words", type=int, default=5000, help="events in the throughput turn")
    parser.add_argument("--synchronous", choices=("normal", "full"), default="normal")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.turns < 1 or args.words < 1:
        parser.error("--turns and --words must be positive")

    results: dict[str, Any] = {}
    results["direct"] = asyncio.run(bench_direct(args.turns, args.words))
    with tempfile.TemporaryDirectory(prefix="maka-kernel-bench-") as tmp:
        results["kernel"] = asyncio.run(
            bench_kernel(Path(tmp) / "in-process", args.synchronous, args.turns, args.words)
        )
        server = start_server(Path(tmp) / "server", args.synchronous)
        try:
            results["grpc"] = asyncio.run(bench_grpc(server, args.turns, args.words))
        finally:
            server.stop()

    print(f"scripted turn, SQLite synchronous={args.synchronous}, {platform.python_version()}")
    print(f"{'path':8} {'first event median':>20} {'p95':>10} {'events/s':>12}")
    for name, figures in results.items():
        print(
            f"{name:8} {figures['first_event_ms_median']:17.3f} ms "
            f"{figures['first_event_ms_p95']:7.3f} ms {figures['events_per_second']:12,.0f}"
        )
    if args.json:
        report: dict[str, Any] = {
            "turns": args.turns,
            "words": args.words,
            "synchronous": args.synchronous,
            "python": platform.python_version(),
            "machine": platform.machine(),
            "results": results,
        }
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

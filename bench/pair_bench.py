"""Measure what a tool call costs through the service pair.

    python bench/pair_bench.py [--runs N] [--json PATH]

Starts a real ``maka-resource`` and a real ``maka-kernel`` (separate processes, fresh data
directories, loopback ports; the kernel's default shell backend) and prints, median and p95
over N runs of the command ``true``:

* ``subprocess.run(["bash", "-c", "true"])`` in this process (the floor);
* a bare foreground run on the resource service (``RunForeground`` from this process);
* a shell turn on the kernel whose tool call runs ``true`` on the resource service
  (permission mode bypass): from ``StartTurn`` to the turn's terminal ``turn_state``.

The overhead of a tool call through the pair is the turn's time minus the bare run's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from maka_runtime_client.aio import ClientOptions, KernelClient, ResourceClient
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import Pair, running_pair


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": statistics.median(ordered) * 1000,
        "p95_ms": ordered[int(len(ordered) * 0.95) - 1] * 1000,
        "runs": len(ordered),
    }


async def measure(pair: Pair, runs: int) -> dict[str, Any]:
    workspace = tempfile.mkdtemp(prefix="maka-bench-ws-")
    options = ClientOptions(token=pair.token)
    async with (
        KernelClient(pair.kernel.address, options=options) as kernel,
        ResourceClient(pair.resource.address, options=options) as rc,
    ):
        session = await kernel.create_session(workspace, permission_mode=kpb.PERMISSION_MODE_BYPASS)

        async def bare() -> None:
            async for _ in rc.run_foreground(session.id, "true"):
                pass

        async def turn() -> None:
            async for event in kernel.start_turn(session.id, "true"):
                if event.WhichOneof("event") == "tool_result":
                    assert event.tool_result.exit_code == 0, event

        def direct() -> None:
            subprocess.run(["bash", "-c", "true"], check=True)

        results: dict[str, list[float]] = {"subprocess": [], "resource_run": [], "shell_turn": []}
        for _ in range(3):  # warm-up
            await bare()
            await turn()
        for _ in range(runs):
            started = time.perf_counter()
            direct()
            results["subprocess"].append(time.perf_counter() - started)
            started = time.perf_counter()
            await bare()
            results["resource_run"].append(time.perf_counter() - started)
            started = time.perf_counter()
            await turn()
            results["shell_turn"].append(time.perf_counter() - started)
    figures = {name: summary(samples) for name, samples in results.items()}
    turn_ms = figures["shell_turn"]["median_ms"]
    bare_ms = figures["resource_run"]["median_ms"]
    return {
        **figures,
        "tool_call_overhead_ms": turn_ms - bare_ms,
        "turn_to_bare_ratio": turn_ms / bare_ms,
        "turn_to_subprocess_ratio": turn_ms / figures["subprocess"]["median_ms"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="maka-bench-") as tmp,
        running_pair(Path(tmp) / "data") as pair,
    ):
        figures = asyncio.run(measure(pair, args.runs))
    print(f"{'':<14}{'median ms':>10}{'p95 ms':>10}")
    for name in ("subprocess", "resource_run", "shell_turn"):
        row = figures[name]
        print(f"{name:<14}{row['median_ms']:>10.2f}{row['p95_ms']:>10.2f}")
    print(
        f"tool-call overhead through the pair: {figures['tool_call_overhead_ms']:.2f} ms "
        f"(turn / bare run = {figures['turn_to_bare_ratio']:.2f}, "
        f"turn / subprocess = {figures['turn_to_subprocess_ratio']:.2f})"
    )
    if args.json:
        report = {
            "bench": "pair",
            "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
            "figures": figures,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

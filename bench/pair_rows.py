"""The rows of the table that need a Python driver, each next to its baseline in the same run.

* turn start → first event (p50, p99) of ``/script say hi`` against the first frame of a
  grpc.aio echo stream of as many frames of the same size, alternating call by call;
* a shell turn whose tool call runs ``true`` through the pair against a bare ``RunForeground``
  of ``true`` (bench/pair_bench.py);
* PTY output through ``Attach`` against a raw PTY read of the same command in this process
  (bench/resource_bench.py), alternating;
* cold start (spawn to "listening", which the services log once health is SERVING) of each
  service against the grpc.aio echo server's, alternating, on fresh data directories. Every
  process reads its modules' bytecode from one cache (``PYTHONPYCACHEPREFIX``, filled by an
  unmeasured first start of each), as an installed package does: a checkout's modules would
  otherwise be compiled from source at every start where the environment sets
  ``PYTHONDONTWRITEBYTECODE``, which measures the compiler, not the start.

The rows of foreground runs and concurrent turns come from the growth curves (bench/growth.py).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import echo_server
import grpc
import pair_bench
import resource_bench
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc
from maka_runtime_proto.resource.v1 import resource_pb2_grpc
from support import BenchError, Pair, Server, median, percentile, start, start_service

FIRST_EVENT_TURNS = 200
TOOL_CALL_RUNS = 100
PTY_MEGABYTES = 20
#: Rounds of a PTY flood through Attach and a raw read, each: one flood's rate spreads by
#: ±0.2 of the ratio between rounds on this VM.
PTY_REPS = 9
COLD_STARTS = 5


def row(figure: str, product: str, baseline: str, ratio: str, **data: Any) -> dict[str, Any]:
    return {"figure": figure, "product": product, "baseline": baseline, "ratio": ratio, **data}


async def first_event(pair: Pair, aio: Server, workspace: Path, turns: int) -> dict[str, Any]:
    session = "rows-first-event"
    text = "/script say hi"
    auth = pair.metadata
    async with (
        grpc.aio.insecure_channel(pair.kernel.address) as kchannel,
        grpc.aio.insecure_channel(aio.address) as echannel,
    ):
        kernel = kernel_pb2_grpc.KernelServiceStub(kchannel)
        await kernel.CreateSession(
            kpb.CreateSessionRequest(
                session_id=session, workspace_root=str(workspace), backend="scripted"
            ),
            metadata=auth,
            timeout=60,
        )
        # The echo answers as many frames of the turn's mean size.
        sizes = [
            r.ByteSize()
            async for r in kernel.StartTurn(
                kpb.StartTurnRequest(session_id=session, text=text), metadata=auth, timeout=60
            )
        ]
        found = echo_server.Descriptors(aio_descriptors(aio))
        request_class = found.message("maka.bench.echo.v1.EchoRequest")
        response_class = found.message("maka.bench.echo.v1.EchoResponse")
        stream = echannel.unary_stream(
            f"/{echo_server.SERVICE}/Stream",
            request_serializer=request_class.SerializeToString,
            response_deserializer=response_class.FromString,
        )
        echo_request = request_class(
            response_bytes=max(0, round(sum(sizes) / len(sizes)) - 3), frames=len(sizes)
        )
        samples: dict[str, list[float]] = {"product": [], "aio": []}
        for index in range(turns + 10):  # ten to warm up
            began = time.perf_counter()
            call = kernel.StartTurn(
                kpb.StartTurnRequest(session_id=session, text=text), metadata=auth, timeout=60
            )
            await anext(aiter(call))
            took = time.perf_counter() - began
            async for _ in call:
                pass
            began = time.perf_counter()
            echo_call = stream(echo_request, metadata=auth, timeout=60)
            await anext(aiter(echo_call))
            echo_took = time.perf_counter() - began
            async for _ in echo_call:
                pass
            if index >= 10:
                samples["product"].append(took * 1000)
                samples["aio"].append(echo_took * 1000)
    p99, echo_p99 = percentile(samples["product"], 0.99), percentile(samples["aio"], 0.99)
    p50, echo_p50 = median(samples["product"]), median(samples["aio"])
    return row(
        "turn start → first event (`/script say hi`, c=1)",
        f"p50 {p50:.2f} ms, p99 {p99:.2f} ms",
        f"grpc.aio first frame of {len(sizes)}: p50 {echo_p50:.2f} ms, p99 {echo_p99:.2f} ms",
        f"p99 {p99 / echo_p99:.1f}x",
        samples_ms=samples,
    )


def aio_descriptors(aio: Server) -> Path:
    """The descriptor set the echo server was started with (its ``--descriptors``)."""
    argv = list(aio.process.args)  # type: ignore[arg-type]
    return Path(argv[argv.index("--descriptors") + 1])


def tool_call(pair: Pair, runs: int) -> dict[str, Any]:
    figures = asyncio.run(pair_bench.measure(pair, runs))
    turn, bare = figures["shell_turn"], figures["resource_run"]
    return row(
        "shell turn running `true` (a tool call through the pair), c=1",
        f"p50 {turn['median_ms']:.2f} ms",
        f"bare RunForeground p50 {bare['median_ms']:.2f} ms "
        f"(subprocess.run {figures['subprocess']['median_ms']:.2f} ms)",
        f"{figures['turn_to_bare_ratio']:.2f}x",
        figures=figures,
    )


def pty_output(pair: Pair, workspace: Path, megabytes: int, reps: int) -> dict[str, Any]:
    size = megabytes * 1_000_000
    samples: dict[str, list[float]] = {"attach": [], "raw": []}
    with grpc.insecure_channel(pair.resource.address) as channel:
        stub = resource_pb2_grpc.ResourceServiceStub(channel)
        for index in range(reps + 1):  # round 0 warms up, unmeasured
            try:
                mbps = resource_bench.attach_throughput(
                    stub, pair.metadata, str(workspace), size, session="bench-main"
                )
            except RuntimeError as missing:
                raise BenchError(str(missing)) from None
            raw_mbps = resource_bench.raw_pty_throughput(size)
            if index:
                samples["attach"].append(mbps)
                samples["raw"].append(raw_mbps)
    attach, raw = median(samples["attach"]), median(samples["raw"])
    # Each round's pair ran back to back: the median of their ratios moves least with the load.
    ratios = [a / r for a, r in zip(samples["attach"], samples["raw"], strict=True)]
    return row(
        f"PTY output through Attach ({megabytes} MB)",
        f"{attach:.1f} MB/s",
        f"raw PTY read in Python {raw:.1f} MB/s",
        f"{median(ratios):.2f}",
        samples_mb_per_s=samples,
    )


def cold_start(tmp: Path, aio: Server, count: int) -> dict[str, Any]:
    samples: dict[str, list[float]] = {"kernel": [], "resource": [], "aio": []}
    descriptors = aio_descriptors(aio)
    script = Path(echo_server.__file__)
    # One bytecode cache for every start (see the module docstring); round 0 fills it.
    env = {"PYTHONPYCACHEPREFIX": str(tmp / "cold-pycache"), "PYTHONDONTWRITEBYTECODE": ""}
    for index in range(count + 1):
        base = tmp / f"cold-{index}"
        kernel = start_service(
            "kernel",
            base / "kernel",
            *("--resource-address", "127.0.0.1:1", "--shutdown-resource", "no"),
            env=env,
        )
        kernel.stop()
        resource = start_service("resource", base / "resource", env=env)
        resource.stop()
        argv = [sys.executable, str(script), "--descriptors", str(descriptors)]
        echo = start("echo-aio", argv, env=env)
        echo.stop()
        if index == 0:
            continue
        samples["kernel"].append(kernel.started_in_s * 1000)
        samples["resource"].append(resource.started_in_s * 1000)
        samples["aio"].append(echo.started_in_s * 1000)
    k, r, e = (median(samples[name]) for name in ("kernel", "resource", "aio"))
    return row(
        "cold start (spawn to SERVING)",
        f"kernel {k:.0f} ms, resource {r:.0f} ms",
        f"grpc.aio echo {e:.0f} ms",
        f"{k / e:.1f}x, {r / e:.1f}x",
        samples_ms=samples,
    )


def run_all(pair: Pair, aio: Server, workspace: Path, tmp: Path) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    rows["first_event"] = asyncio.run(first_event(pair, aio, workspace, FIRST_EVENT_TURNS))
    print(f"first event: {rows['first_event']['product']}", flush=True)
    rows["tool_call"] = tool_call(pair, TOOL_CALL_RUNS)
    print(f"tool call: {rows['tool_call']['product']}", flush=True)
    rows["pty"] = pty_output(pair, workspace, PTY_MEGABYTES, PTY_REPS)
    print(f"pty: {rows['pty']['product']}", flush=True)
    rows["cold_start"] = cold_start(tmp, aio, COLD_STARTS)
    print(f"cold start: {rows['cold_start']['product']}", flush=True)
    return rows

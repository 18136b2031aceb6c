"""Load figures of a live ``maka-kernel`` against a grpc.aio echo server, in the same run.

    python bench/kernel_load_bench.py [--reps N] [--seconds S] [--words N] [--json PATH]

Starts a real ``maka-kernel`` (its own process, a fresh data directory, a loopback port, the
local credential) and a grpc.aio echo server (another process) that answers with *the kernel's
own frames*, captured at the start: the bytes of a ``GetSessionResponse`` and of the
``StartTurnResponse`` messages of the scripted turns below, one message per event as an old
client reads them. Then, alternating kernel and echo in every repetition (medians reported):

* ``unary``      GetSession with ``--concurrency`` callers for ``--seconds``: calls/s, p99;
* ``stream``     one StartTurn of ``/script words N``: events/s (a coalesced message counts
                 every event in it);
* ``short``      ``/script say hi`` turns, one session per worker, 8 workers: turns/s, p99;
* ``first``      turn start → first event, one turn at a time: p50, p99;
* ``fanout``     4 concurrent ``words N`` turns on 4 sessions: aggregate events/s ÷ one's;
* ``cold``       process start → health SERVING (the echo server serves health too).

The client is Python (grpc.aio) for both sides, so both are measured through the same client;
the machine may be shared, so only ratios of the same run mean anything.
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
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
import support

SAY = "/script say hi"
ECHO_UNARY = "/bench.Echo/Unary"
ECHO_STREAM = "/bench.Echo/Stream"
Frames = dict[str, list[bytes]]


# -- the echo server (run as ``--serve-echo FRAMES``) ------------------------------------------


async def serve_echo(frames_path: Path) -> None:
    from grpc_health.v1 import health

    stored = json.loads(frames_path.read_text())  # noqa: ASYNC240 (once, before serving)
    frames: Frames = {k: [bytes.fromhex(f) for f in v] for k, v in stored.items()}

    async def unary(request: bytes, context: Any) -> bytes:
        return frames["unary"][0]

    async def stream(request: bytes, context: Any) -> AsyncIterator[bytes]:
        for frame in frames[request.decode()]:
            yield frame

    handler = grpc.method_handlers_generic_handler(
        "bench.Echo",
        {
            "Unary": grpc.unary_unary_rpc_method_handler(unary),
            "Stream": grpc.unary_stream_rpc_method_handler(stream),
        },
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    print(f"echo listening on 127.0.0.1:{port}", file=sys.stderr, flush=True)
    await server.wait_for_termination()


# -- processes ----------------------------------------------------------------------------------


def echo_command(frames_path: Path) -> list[str]:
    return [sys.executable, os.path.abspath(__file__), "--serve-echo", str(frames_path)]


#: Set by --uvloop: the kernel runs on uvloop's event loop (an experiment of this bench).
UVLOOP = [False]
_UVLOOP_MAIN = (
    "import runpy, uvloop; uvloop.install(); "
    "runpy.run_module('maka_runtime.kernel.server', run_name='__main__')"
)


def kernel_command(data_dir: Path) -> list[str]:
    start = ["-c", _UVLOOP_MAIN] if UVLOOP[0] else ["-m", "maka_runtime.kernel.server"]
    return [
        sys.executable, *start, "--listen", "127.0.0.1:0", "--data-dir", str(data_dir),
    ]  # fmt: skip


def start(command: list[str]) -> tuple[subprocess.Popen[str], str]:
    server = support.start(Path(command[-1]).name, command)
    return server.process, server.address


def stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


async def cold_start(command: list[str]) -> float:
    """Seconds from spawn to a health check answering SERVING."""
    started = time.perf_counter()
    process, address = await asyncio.to_thread(start, command)
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while True:
                try:
                    reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=5)
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return time.perf_counter() - started
                except grpc.aio.AioRpcError:
                    pass
                await asyncio.sleep(0.001)
    finally:
        await asyncio.to_thread(stop, process)


# -- the two targets, behind one interface -----------------------------------------------------


def events_in(response: Any) -> int:
    """How many events one StartTurn message carries (coalesced text deltas count each)."""
    extra = getattr(response, "more_events", None)
    return 1 + (len(extra) if extra is not None else 0)


class Target:
    name = ""

    async def unary(self) -> None:
        raise NotImplementedError

    def stream(self, kind: str, session: int) -> AsyncIterator[int]:
        raise NotImplementedError


class KernelTarget(Target):
    name = "kernel"

    def __init__(self, channel: grpc.aio.Channel, sessions: list[str], words: int) -> None:
        self._stub = kernel_pb2_grpc.KernelServiceStub(channel)
        self._sessions = sessions
        self._texts = {"say": SAY, "words": f"/script words {words}"}
        self.coalesce = False

    async def unary(self) -> None:
        await self._stub.GetSession(pb.GetSessionRequest(session_id=self._sessions[0]))

    async def stream(self, kind: str, session: int) -> AsyncIterator[int]:
        request = pb.StartTurnRequest(session_id=self._sessions[session], text=self._texts[kind])
        if self.coalesce and "coalesce_events" in pb.StartTurnRequest.DESCRIPTOR.fields_by_name:
            request.coalesce_events = True
        async for response in self._stub.StartTurn(request):
            yield events_in(response)


class EchoTarget(Target):
    name = "echo"

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._unary = channel.unary_unary(ECHO_UNARY)
        self._stream = channel.unary_stream(ECHO_STREAM)

    async def unary(self) -> None:
        await self._unary(b"")

    async def stream(self, kind: str, session: int) -> AsyncIterator[int]:
        async for _ in self._stream(kind.encode()):
            yield 1


# -- measurements ------------------------------------------------------------------------------


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def closed_loop(
    call: Callable[[int], Awaitable[None]], workers: int, seconds: float
) -> dict[str, float]:
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def worker(index: int) -> None:
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            await call(index)
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(workers)))
    elapsed = time.perf_counter() - started
    return {"per_s": len(latencies) / elapsed, "p99_ms": pct(latencies, 0.99) * 1000}


async def drain(target: Target, kind: str, session: int) -> int:
    return sum([n async for n in target.stream(kind, session)])


async def unary_row(target: Target, concurrency: int, seconds: float) -> dict[str, float]:
    return await closed_loop(lambda _: target.unary(), concurrency, seconds)


async def stream_row(target: Target) -> dict[str, float]:
    started = time.perf_counter()
    events = await drain(target, "words", 0)
    return {"events_per_s": events / (time.perf_counter() - started), "events": events}


async def short_row(target: Target, seconds: float) -> dict[str, float]:
    async def turn(worker: int) -> None:
        await drain(target, "say", 1 + worker)

    return await closed_loop(turn, 8, seconds)


async def first_row(target: Target, turns: int) -> dict[str, float]:
    latencies = []
    for _ in range(turns):
        started = time.perf_counter()
        stream = target.stream("say", 0)
        await anext(stream)
        latencies.append(time.perf_counter() - started)
        async for _ in stream:
            pass
    return {"p50_ms": pct(latencies, 0.5) * 1000, "p99_ms": pct(latencies, 0.99) * 1000}


async def fanout_row(target: Target) -> dict[str, float]:
    started = time.perf_counter()
    one = await drain(target, "words", 9) / (time.perf_counter() - started)
    started = time.perf_counter()
    counts = await asyncio.gather(*(drain(target, "words", 9 + i) for i in range(4)))
    aggregate = sum(counts) / (time.perf_counter() - started)
    return {"one_per_s": one, "aggregate_per_s": aggregate, "scaling": aggregate / one}


# -- the run -----------------------------------------------------------------------------------


async def capture(stub: Any, session: str, text: str) -> list[bytes]:
    return [
        r.SerializeToString()
        async for r in stub.StartTurn(pb.StartTurnRequest(session_id=session, text=text))
    ]


def authed_channel(address: str, token: str) -> grpc.aio.Channel:
    from maka_runtime_client.credentials import bearer_interceptors

    return grpc.aio.insecure_channel(address, interceptors=bearer_interceptors(token))


async def run(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    from maka_runtime.common.auth import local_token_path

    data_dir = tmp / "kernel"
    kernel, kernel_address = start(kernel_command(data_dir))
    echo = None
    try:
        token = local_token_path(data_dir).read_text().strip()
        kchannel = authed_channel(kernel_address, token)
        kstub = kernel_pb2_grpc.KernelServiceStub(kchannel)
        workspace = tempfile.mkdtemp(prefix="maka-load-bench-ws-")
        sessions = [
            (
                await kstub.CreateSession(
                    pb.CreateSessionRequest(workspace_root=workspace, backend="scripted")
                )
            ).session.id
            for _ in range(13)
        ]
        frames: Frames = {
            "unary": [
                (
                    await kstub.GetSession(pb.GetSessionRequest(session_id=sessions[0]))
                ).SerializeToString()
            ],
            "say": await capture(kstub, sessions[0], SAY),
            "words": await capture(kstub, sessions[0], f"/script words {args.words}"),
        }
        frames_path = tmp / "frames.json"
        frames_path.write_text(json.dumps({k: [f.hex() for f in v] for k, v in frames.items()}))
        echo, echo_address = start(echo_command(frames_path))
        echannel = grpc.aio.insecure_channel(echo_address)
        ktarget = KernelTarget(kchannel, sessions, args.words)
        ktarget.coalesce = args.coalesce
        targets: list[Target] = [ktarget, EchoTarget(echannel)]
        rows: dict[str, Callable[[Target], Awaitable[dict[str, float]]]] = {
            "unary": lambda t: unary_row(t, args.concurrency, args.seconds),
            "stream": stream_row,
            "short": lambda t: short_row(t, args.seconds),
            "first": lambda t: first_row(t, args.first_turns),
            "fanout": fanout_row,
        }
        samples: dict[str, dict[str, list[dict[str, float]]]] = {
            row: {t.name: [] for t in targets} for row in [*rows, "cold"]
        }
        commands = {"kernel": lambda: kernel_command(tmp / f"cold-{time.monotonic_ns()}"),
                    "echo": lambda: echo_command(frames_path)}  # fmt: skip
        for rep in range(args.reps):
            order = targets if rep % 2 == 0 else targets[::-1]
            for row, measure in rows.items():
                if args.rows and row not in args.rows:
                    continue
                for target in order:
                    samples[row][target.name].append(await measure(target))
            if not args.rows or "cold" in args.rows:
                for target in order:
                    seconds = await cold_start(commands[target.name]())
                    samples["cold"][target.name].append({"ms": seconds * 1000})
        await kchannel.close()
        await echannel.close()
    finally:
        stop(kernel)
        if echo is not None:
            stop(echo)
    return {
        row: {
            name: {key: statistics.median(s[key] for s in runs) for key in runs[0]}
            for name, runs in by_target.items()
            if runs
        }
        for row, by_target in samples.items()
        if any(by_target.values())
    }


RATIOS = {
    "unary": [("per_s", "calls/s"), ("p99_ms", "p99 ms")],
    "stream": [("events_per_s", "events/s")],
    "short": [("per_s", "turns/s"), ("p99_ms", "p99 ms")],
    "first": [("p50_ms", "p50 ms"), ("p99_ms", "p99 ms")],
    "fanout": [("one_per_s", "one events/s"), ("aggregate_per_s", "4x events/s"),
               ("scaling", "4x / one")],
    "cold": [("ms", "ms")],
}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve-echo", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--words", type=int, default=20000)
    parser.add_argument("--first-turns", type=int, default=300)
    parser.add_argument("--coalesce", action="store_true", help="StartTurn asks for coalescing")
    parser.add_argument("--uvloop", action="store_true", help="run the kernel on uvloop")
    parser.add_argument("--rows", nargs="*", default=[], help="only these rows")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    UVLOOP[0] = args.uvloop
    if args.serve_echo:
        asyncio.run(serve_echo(args.serve_echo))
        return 0
    with tempfile.TemporaryDirectory(prefix="maka-load-bench-") as tmp:
        figures = asyncio.run(run(args, Path(tmp)))
    print(f"kernel vs grpc.aio echo, {args.reps} reps, medians, python {platform.python_version()}")
    for row, by_target in figures.items():
        for key, label in RATIOS[row]:
            k, e = by_target["kernel"][key], by_target["echo"][key]
            print(f"{row:7} {label:14} kernel {k:12,.2f}  echo {e:12,.2f}  ratio {k / e:6.2f}")
    if args.json:
        report = {"args": vars(args) | {"json": str(args.json)}, "figures": figures}
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

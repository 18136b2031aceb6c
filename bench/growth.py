"""Growth curves: what the pair costs as it grows, so that a regression in scaling shows up
and not only one in speed.

* **sessions** (1, 1k, 10k): on a pair of its own, sessions are created up to each count,
  then ghz loads ``GetSession`` (the ``kernel_get_session`` profile) and the kernel's resident
  memory is read;
* **concurrent turns** (1, 4, 16): the ``kernel_start_turn_stream`` profile with that many
  ghz workers, one session each, ``/script words 2000`` per turn: aggregate events/s, against
  the grpc.aio echo streaming as many frames of the same size with as many workers;
* **foreground concurrency** (1, 2, 4, 8, 16): the ``resource_run_foreground`` profile with
  that many workers: runs/s, against ``subprocess.run`` of the same sandboxed command line in
  as many threads, alternating: the service's own leader argv for the run (bubblewrap with its
  mounts, ``env --default-signal``, ``bash -c true``; ``LaunchPlan.direct_argv``), and, for
  reference, bubblewrap straight on ``bash -c true`` (without the ``env`` that gives the
  command back the signals its jailer ignores).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import ghz_profiles
import grpc
from ghz_profiles import Profile
from ghz_run import measure_profile
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc
from support import BenchError, Pair, Server, median, running_pair

from maka_runtime.resource.core.sandbox import ExecutionBoundary
from maka_runtime.resource.core.sandbox.bwrap import bwrap_argv, layout
from maka_runtime.resource.core.sandbox.launch import LaunchPlan

SESSION_POINTS = (1, 1_000, 10_000)
TURN_POINTS = (1, 4, 16)
TURN_TEXT = "/script words 2000"
FOREGROUND_POINTS = (1, 2, 4, 8, 16)
CREATE_CONCURRENCY = 16
SUBPROCESS = "subprocess.run (the service's sandboxed argv) runs/s"
BWRAP_BASH = "subprocess.run (bwrap + bash) runs/s"


def _named(profiles: list[Profile], name: str) -> Profile:
    by_name = {p.name: p for p in ghz_profiles.load_all()} | {p.name: p for p in profiles}
    return by_name[name]


def _with(profile: Profile, concurrency: int, **data: Any) -> Profile:
    config = copy.deepcopy(profile.config)
    config["concurrency"] = concurrency
    config["data"] = {**config.get("data", {}), **data}
    return Profile(f"{profile.name}@c{concurrency}", dict(profile.bench), config)


def turn_profiles(profiles: list[Profile]) -> list[Profile]:
    """The concurrent-turn profiles (their workers need sessions among the fixtures)."""
    base = _named(profiles, "kernel_start_turn_stream")
    return [_with(base, n, text=TURN_TEXT) for n in TURN_POINTS]


async def _create_sessions(pair: Pair, workspace: Path, first: int, last: int) -> None:
    limit = asyncio.Semaphore(CREATE_CONCURRENCY)
    async with grpc.aio.insecure_channel(pair.kernel.address) as channel:
        kernel = kernel_pb2_grpc.KernelServiceStub(channel)

        async def one(index: int) -> None:
            async with limit:
                await kernel.CreateSession(
                    kpb.CreateSessionRequest(
                        session_id=f"grow-{index}", workspace_root=str(workspace)
                    ),
                    metadata=pair.metadata,
                    timeout=60,
                )

        await asyncio.gather(*(one(i) for i in range(first, last)))


def sessions(
    profiles: list[Profile], tmp: Path, workspace: Path, max_sessions: int, duration: float
) -> dict[str, Any]:
    base = _named(profiles, "kernel_get_session")
    points: list[dict[str, Any]] = []
    with running_pair(tmp / "growth-sessions") as pair:
        made = 0
        for count in (n for n in SESSION_POINTS if n <= max_sessions):
            began = time.perf_counter()
            asyncio.run(_create_sessions(pair, workspace, made, count))
            created_s = time.perf_counter() - began
            made = count
            config = ghz_profiles.product_config(base, {"SESSION": "grow-0"}, smoke=False)
            ghz_profiles.run_ghz(config, pair.kernel.address, pair.token, duration_s=1)
            got = ghz_profiles.run_ghz(config, pair.kernel.address, pair.token, duration_s=duration)
            ghz_profiles.check(got, "OK", f"GetSession with {count} sessions")
            figures = ghz_profiles.figures(got, 1)
            points.append(
                {
                    "sessions": f"{count:,}",
                    "GetSession req/s": f"{figures['per_s']:,.0f}",
                    "p50 ms": f"{figures['p50_ms']:.2f}",
                    "p99 ms": f"{figures['p99_ms']:.2f}",
                    "kernel RSS MB": f"{pair.kernel.rss_bytes() / 1e6:.1f}",
                    "created in s": f"{created_s:.1f}",
                    "raw": figures,
                }
            )
            print(f"sessions {count}: {points[-1]['GetSession req/s']} req/s", flush=True)
    columns = ["sessions", "GetSession req/s", "p50 ms", "p99 ms", "kernel RSS MB"]
    return {
        "title": "Cost against sessions (kernel GetSession, c=50)",
        "columns": columns,
        "points": points,
    }


def turns(
    profiles: list[Profile],
    pair: Pair,
    baselines: dict[str, Server],
    fixtures: dict[str, Any],
    args: argparse.Namespace,
) -> dict[str, Any]:
    points: list[dict[str, Any]] = []
    one: dict[str, float] = {}
    for profile in turn_profiles(profiles):
        got = measure_profile(
            profile,
            pair,
            {"aio": baselines["aio"]},
            fixtures,
            reps=args.reps,
            duration=args.duration,
            quiet=True,
        )
        product, aio = got["median"]["product"]["per_s"], got["median"]["aio"]["per_s"]
        one = one or {"product": product, "aio": aio}
        points.append(
            {
                "concurrent turns": profile.concurrency,
                "events/s": f"{product:,.0f}",
                "x of one": f"{product / one['product']:.2f}",
                "grpc.aio events/s": f"{aio:,.0f}",
                "grpc.aio x of one": f"{aio / one['aio']:.2f}",
                "kernel cores busy": f"{got['median']['product']['server_cores']:.2f}",
                "grpc.aio cores busy": f"{got['median']['aio']['server_cores']:.2f}",
                "raw": got,
            }
        )
        print(f"turns c={profile.concurrency}: {product:,.0f} events/s", flush=True)
    columns = [
        "concurrent turns",
        "events/s",
        "x of one",
        "kernel cores busy",
        "grpc.aio events/s",
        "grpc.aio x of one",
        "grpc.aio cores busy",
    ]
    return {
        "title": f"Cost against concurrent turns (`{TURN_TEXT}`, one session each)",
        "columns": columns,
        "points": points,
    }


def _threads_rate(argv: list[str], concurrency: int, duration: float) -> float:
    """Runs/s of ``subprocess.run(argv)`` in *concurrency* threads for *duration* seconds."""
    stop = time.perf_counter() + duration
    counts = [0] * concurrency
    failures: list[int] = []

    def loop(slot: int) -> None:
        while time.perf_counter() < stop:
            code = subprocess.run(argv, check=False).returncode
            if code:
                failures.append(code)
                return
            counts[slot] += 1

    began = time.perf_counter()
    threads = [threading.Thread(target=loop, args=(i,)) for i in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise BenchError(f"the baseline command failed: {argv} exited {failures[0]}")
    return sum(counts) / (time.perf_counter() - began)


def sandboxed_true(workspace: Path, command: str = "true") -> list[str]:
    """The command line a sandboxed run of *command* in *workspace* executes: the leader's
    argv the service builds (created inside its cgroup, bubblewrap is the leader)."""
    boundary = ExecutionBoundary(writable_roots=(str(workspace),))
    plan = LaunchPlan(env={}, cgroup=None, sandboxed=True)
    plan._bwrap = bwrap_argv("/usr/bin/bwrap", layout(boundary), cwd=str(workspace))
    return plan.direct_argv(command)


def bwrap_bash(workspace: Path) -> list[str]:
    """A reference: bubblewrap with the same mounts straight on ``bash -c true``."""
    boundary = ExecutionBoundary(writable_roots=(str(workspace),))
    argv = bwrap_argv("/usr/bin/bwrap", layout(boundary), cwd=str(workspace))
    return [*argv, "/bin/bash", "-c", "true"]


def foreground(
    profiles: list[Profile],
    pair: Pair,
    fixtures: dict[str, Any],
    workspace: Path,
    args: argparse.Namespace,
) -> dict[str, Any]:
    base = _named(profiles, "resource_run_foreground")
    argv, reference = sandboxed_true(workspace), bwrap_bash(workspace)
    points: list[dict[str, Any]] = []
    one: dict[str, float] = {}
    for n in FOREGROUND_POINTS:
        config = ghz_profiles.product_config(_with(base, n), fixtures, smoke=False)
        samples: dict[str, list[float]] = {"product": [], "subprocess": [], "bwrap_bash": []}
        for rep in range(args.reps + 1):
            got = ghz_profiles.run_ghz(
                config, pair.resource.address, pair.token, duration_s=args.duration
            )
            ghz_profiles.check(got, "OK", f"RunForeground c={n}")
            rate = _threads_rate(argv, n, args.duration)
            plain = _threads_rate(reference, n, args.duration)
            if rep:
                samples["product"].append(float(got["rps"]))
                samples["subprocess"].append(rate)
                samples["bwrap_bash"].append(plain)
        product, bare = median(samples["product"]), median(samples["subprocess"])
        plain = median(samples["bwrap_bash"])
        one = one or {"product": product, "bare": bare}
        points.append(
            {
                "concurrency": n,
                "runs/s": f"{product:,.0f}",
                "x of c=1": f"{product / one['product']:.2f}",
                SUBPROCESS: f"{bare:,.0f}",
                "its x of c=1": f"{bare / one['bare']:.2f}",
                "ratio": f"{product / bare:.2f}",
                BWRAP_BASH: f"{plain:,.0f}",
                "ratio to it": f"{product / plain:.2f}",
                "raw": samples,
            }
        )
        print(
            f"foreground c={n}: {product:,.0f} runs/s vs {bare:,.0f} (bwrap + bash {plain:,.0f})",
            flush=True,
        )
    columns = [
        "concurrency",
        "runs/s",
        "x of c=1",
        SUBPROCESS,
        "its x of c=1",
        "ratio",
        BWRAP_BASH,
        "ratio to it",
    ]
    return {
        "title": "Cost against foreground concurrency (RunForeground `true`, sandboxed)",
        "columns": columns,
        "points": points,
    }


def run_all(
    pair: Pair,
    baselines: dict[str, Server],
    *,
    fixtures: dict[str, Any],
    profiles: list[Profile],
    workspace: Path,
    tmp: Path,
    args: argparse.Namespace,
) -> dict[str, Any]:
    return {
        "foreground": foreground(profiles, pair, fixtures, workspace, args),
        "turns": turns(profiles, pair, baselines, fixtures, args),
        "sessions": sessions(profiles, tmp, workspace, args.max_sessions, args.duration),
    }


def rows(growth: dict[str, Any]) -> dict[str, Any]:
    """The table's rows that the curves measure: foreground c=1 and c=8, four turns."""
    out: dict[str, Any] = {}
    by_n = {p["concurrency"]: p for p in growth["foreground"]["points"]}
    for n in (1, 8):
        if n in by_n:
            p = by_n[n]
            scaling = f", {p['x of c=1']}x of c=1" if n > 1 else ""
            base_scaling = f", {p['its x of c=1']}x of c=1" if n > 1 else ""
            out[f"foreground_c{n}"] = {
                "figure": f"RunForeground `true`, c={n}",
                "product": f"{p['runs/s']} runs/s{scaling}",
                "baseline": f"`subprocess.run` of the service's sandboxed command line, {n} "
                f"thread(s): {p[SUBPROCESS]}/s{base_scaling} (bubblewrap straight on "
                f"`bash -c true`: {p[BWRAP_BASH]}/s, ratio {p['ratio to it']})",
                "ratio": p["ratio"],
            }
    by_turns = {p["concurrent turns"]: p for p in growth["turns"]["points"]}
    if 4 in by_turns:
        p = by_turns[4]
        out["four_turns"] = {
            "figure": "4 concurrent streaming turns, aggregate events/s",
            "product": f"{p['x of one']}x of one",
            "baseline": f"grpc.aio {p['grpc.aio x of one']}x of one",
            "ratio": f"{float(p['x of one']) / float(p['grpc.aio x of one']):.2f}",
        }
    return out

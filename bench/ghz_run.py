"""One profile against the product and its baselines: alternating repetitions, medians.

A unary profile's baselines replay the product's own response by default (``replay``: the
echo answers the profile's own call, resolved by reflection from the product's descriptors,
with the bytes the product answered once, bench/echo_server.py), so ghz sends the same request
and decodes the same message against every target; ``opaque`` runs ``Echo.Unary`` with a
bytes payload of the response's size instead. Streams run ``Echo.Stream`` (``stream``).
"""

from __future__ import annotations

import asyncio
import resource
import time
from typing import Any

import echo_server
import ghz_fixtures
import ghz_profiles
import report
from ghz_fixtures import Captured
from ghz_profiles import Profile
from support import BenchError, Pair, Server, median


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _baseline(
    profile: Profile,
    captured: Captured,
    baselines: dict[str, Server],
    fixtures: dict[str, Any],
    kind: str,
) -> dict[str, Any]:
    """The ghz configuration of *profile*'s baselines (kept on each echo first, for replay)."""
    if kind != "replay":
        return ghz_profiles.baseline_config(
            profile, captured.request_bytes, captured.response_bytes, captured.frames
        )
    if captured.response is None:
        raise BenchError(f"{profile.name}: no unary response captured to replay")
    for server in baselines.values():
        echo_server.keep(server.address, captured.path, captured.response)
    return ghz_profiles.replay_config(profile, fixtures)


def measure_profile(
    profile: Profile,
    pair: Pair,
    baselines: dict[str, Server],
    fixtures: dict[str, Any],
    *,
    reps: int,
    duration: float,
    quiet: bool = False,
    unary_baseline: str = "replay",
) -> dict[str, Any]:
    """Run *profile* against the product and each baseline, *reps* times each in turn (after
    a warm-up round), for *duration* seconds; medians of every figure."""
    server = pair.kernel if profile.service == "kernel" else pair.resource
    captured = asyncio.run(ghz_fixtures.capture(profile, pair, fixtures))
    kind = ghz_profiles.baseline_kind(profile, captured.frames, unary_baseline)
    per_call = captured.frames if profile.bench["unit"] == "events/s" else 1
    baseline = _baseline(profile, captured, baselines, fixtures, kind)
    configs = {
        "product": (ghz_profiles.product_config(profile, fixtures, smoke=False), profile.expect),
        **{name: (baseline, "OK") for name in baselines},
    }
    hosts = {"product": server, **baselines}
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in configs}
    for rep in range(reps + 1):  # the first round warms every target up
        for name, (config, expect) in configs.items():
            cpu, ghz_cpu = hosts[name].cpu_seconds(), _children_cpu_seconds()
            loop_cpu = hosts[name].loop_cpu_seconds()
            wall = time.perf_counter()
            ghz_report = ghz_profiles.run_ghz(
                config, hosts[name].address, pair.token, duration_s=duration
            )
            elapsed = time.perf_counter() - wall
            busy = (hosts[name].cpu_seconds() - cpu) / elapsed
            loop = (hosts[name].loop_cpu_seconds() - loop_cpu) / elapsed
            # ghz is the only child reaped meanwhile: its own CPU, user and system.
            client = (_children_cpu_seconds() - ghz_cpu) / elapsed
            ghz_profiles.check(ghz_report, expect, f"{profile.name} on {name}")
            hosts[name].check_alive()
            if rep:
                # How many of the machine's cores the server (and ghz) kept busy (CPU seconds
                # per second): a server near 1.0 is at its one interpreter's limit.
                figures = ghz_profiles.figures(ghz_report, per_call)
                # Of those, the event loop's thread: the rest is the server's other threads
                # (gRPC's, the store's), which share the one interpreter with it.
                samples[name].append(
                    {**figures, "server_cores": busy, "loop_cores": loop, "client_cores": client}
                )
    medians = {
        name: {key: median([r[key] for r in runs]) for key in runs[0]}
        for name, runs in samples.items()
    }
    if not quiet:
        print(report.profile_line(profile, medians, kind), flush=True)
    return {
        "measures": profile.bench["measures"],
        "unit": profile.bench["unit"],
        "call": profile.config["call"],
        "concurrency": profile.concurrency,
        "baseline": kind,
        "request_bytes": captured.request_bytes,
        "response_bytes": captured.response_bytes,
        "responses_per_call": captured.frames,
        "repetitions": samples,
        "median": medians,
    }

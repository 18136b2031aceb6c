"""One profile against the product and its baselines: alternating repetitions, medians."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import ghz_fixtures
import ghz_profiles
import report
from ghz_profiles import Profile
from support import Pair, Server, median


def measure_profile(
    profile: Profile,
    pair: Pair,
    baselines: dict[str, Server],
    fixtures: dict[str, Any],
    *,
    reps: int,
    duration: float,
    quiet: bool = False,
) -> dict[str, Any]:
    """Run *profile* against the product and each baseline, *reps* times each in turn (after
    a warm-up round), for *duration* seconds; medians of every figure."""
    server = pair.kernel if profile.service == "kernel" else pair.resource
    request_bytes, response_bytes, frames = asyncio.run(
        ghz_fixtures.message_sizes(profile, pair, fixtures)
    )
    per_call = frames if profile.bench["unit"] == "events/s" else 1
    configs = {
        "product": (ghz_profiles.product_config(profile, fixtures, smoke=False), profile.expect),
        **{
            name: (
                ghz_profiles.baseline_config(profile, request_bytes, response_bytes, frames),
                "OK",
            )
            for name in baselines
        },
    }
    hosts = {"product": server, **baselines}
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in configs}
    for rep in range(reps + 1):  # the first round warms every target up
        for name, (config, expect) in configs.items():
            cpu, wall = hosts[name].cpu_seconds(), time.perf_counter()
            ghz_report = ghz_profiles.run_ghz(
                config, hosts[name].address, pair.token, duration_s=duration
            )
            busy = (hosts[name].cpu_seconds() - cpu) / (time.perf_counter() - wall)
            ghz_profiles.check(ghz_report, expect, f"{profile.name} on {name}")
            hosts[name].check_alive()
            if rep:
                # How many of the machine's cores the server kept busy (its CPU seconds per
                # second): a server near 1.0 is at its one interpreter's limit.
                figures = ghz_profiles.figures(ghz_report, per_call)
                samples[name].append({**figures, "server_cores": busy})
    medians = {
        name: {key: median([r[key] for r in runs]) for key in runs[0]}
        for name, runs in samples.items()
    }
    if not quiet:
        print(report.profile_line(profile, medians), flush=True)
    return {
        "measures": profile.bench["measures"],
        "unit": profile.bench["unit"],
        "call": profile.config["call"],
        "concurrency": profile.concurrency,
        "request_bytes": request_bytes,
        "response_bytes": response_bytes,
        "responses_per_call": frames,
        "repetitions": samples,
        "median": medians,
    }

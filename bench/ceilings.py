"""Ceiling rows: what a figure would be with a part of the product taken away, measured in the
same run, so that a target the product misses can be read against what is possible at all.

* **short turns without SQLite**: the ``kernel_start_turn_short`` profile against a kernel
  whose session store is in memory (bench/memory_kernel.py: the product's servicer, pipeline,
  turn runner, session log and event loop, with no SQLite and no durability), next to the
  grpc.aio echo, alternating, as the profile itself runs. The durable kernel's own row is in
  the profile table of the same run. What the kernel spends beside its store bounds the
  short-turn ratio however cheap the store gets.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import ghz_fixtures
import ghz_profiles
from ghz_run import measure_profile
from pair_rows import row
from support import Pair, Server, running, start

from maka_runtime.common.auth import local_token_path

MEMORY_KERNEL = Path(__file__).resolve().parent / "memory_kernel.py"
SHORT = "kernel_start_turn_short"


def short_turns_without_sqlite(
    pair: Pair,
    aio: Server,
    workspace: Path,
    tmp: Path,
    *,
    reps: int,
    duration: float,
    durable: dict[str, Any] | None,
) -> dict[str, Any]:
    """The ceiling row of the short turns; *durable* is the profile's own result of this run
    (its product figure is quoted beside the ceiling), if it ran."""
    [profile] = ghz_profiles.load_all(names=[SHORT])
    with running(start_memory_kernel(pair, tmp)) as kernel:
        memory = Pair(kernel, pair.resource)
        fixtures = asyncio.run(ghz_fixtures.create(memory, workspace, [profile]))
        result = measure_profile(
            profile, memory, {"aio": aio}, fixtures, reps=reps, duration=duration, quiet=True
        )
    pair.resource.check_alive()  # the rows after this one still need it
    medians = result["median"]
    product, echo = medians["product"]["per_s"], medians["aio"]["per_s"]
    cpu = 1e6 * medians["product"]["server_cores"] / product
    quoted = ""
    if durable is not None:
        kept = durable["median"]["product"]["per_s"]
        quoted = (
            f"; the durable kernel {kept:,.0f} turns/s in the table above, "
            f"{kept / product:.2f} of it"
        )
    print(f"short turns without SQLite: {product:,.0f} turns/s ({product / echo:.2f})", flush=True)
    return row(
        "short turns (`/script say hi`, c=8) on a kernel with its store in memory: no SQLite, "
        "not durable (`bench/memory_kernel.py`)",
        f"{product:,.0f} turns/s, {cpu:,.0f} µs of kernel CPU a turn, "
        f"{medians['product']['server_cores']:.2f} cores (loop "
        f"{medians['product']['loop_cores']:.2f}){quoted}",
        f"grpc.aio, same 3 frames: {echo:,.0f}/s",
        f"{product / echo:.2f}",
        repetitions=result["repetitions"],
    )


def start_memory_kernel(pair: Pair, tmp: Path) -> Server:
    """bench/memory_kernel.py beside *pair*: linked to its resource service, with its
    credential, on a data directory of its own under *tmp*."""
    data_dir = tmp / "memory-kernel"
    _share_credential(pair, data_dir)
    argv = [sys.executable, str(MEMORY_KERNEL), "--listen", "127.0.0.1:0"]
    argv += ["--data-dir", str(data_dir), "--resource-address", pair.resource.address]
    # Its stop must not end the pair's resource service (the kernel's shutdown cascade).
    argv += ["--shutdown-resource", "no"]
    return start("maka-kernel (memory store)", argv, data_dir=data_dir)


def _share_credential(pair: Pair, data_dir: Path) -> None:
    """Give the ceiling kernel the pair's local credential (0600 in a 0700 directory, as the
    services make it), so the fixtures' calls to the pair's resource service and to it share
    one token."""
    path = local_token_path(data_dir)
    path.parent.mkdir(parents=True, mode=0o700)
    path.touch(mode=0o600)
    path.write_text(pair.token + "\n")

"""Measure both services' cold start against a grpc.aio echo server's, in the same run.

    python bench/cold_start_bench.py [--rounds N] [--baseline-tree DIR] [--json PATH]

Alternating, N times each: start the process and wait for its "listening on" line, which the
services log once health is ``SERVING`` (the echo server, bench/echo_server.py, once it
serves); the figure is the time from spawning the process to that line, on a fresh data
directory, as the Performance table's row measures it (bench/pair_rows.py). Every process reads
its modules' bytecode from one cache (``PYTHONPYCACHEPREFIX``), filled by an unmeasured first
round. Next to the wall-clock figure, the CPU the process had used by then (its threads'
``schedstat``), which the other load of a shared machine disturbs far less; it leaves out the
time spent waiting for child processes (the sandbox probes), which the wall clock includes.

With ``--baseline-tree DIR`` the services of that checkout are measured too ('before'), started
with DIR as the current directory (``python -m`` puts it first on ``sys.path``) and its
``clients/python`` on ``PYTHONPATH``. Prints medians
and the ratios to the echo's; the machine may be shared, so read the ratios.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import echo_server
from support import MODULES, Server, start

KERNEL_ARGS = ("--resource-address", "127.0.0.1:1", "--shutdown-resource", "no")


def cpu_ms(server: Server) -> float:
    """The CPU time of *server*'s live threads so far (``/proc/PID/task/*/schedstat``, in
    nanoseconds, where ``/proc/PID/stat`` counts whole clock ticks), in milliseconds."""
    total = 0
    for task in Path(f"/proc/{server.process.pid}/task").iterdir():
        with contextlib.suppress(OSError):
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e6


def service_argv(service: str, data_dir: Path) -> list[str]:
    argv = [sys.executable, "-m", MODULES[service], "--listen", "127.0.0.1:0"]
    argv += ["--data-dir", str(data_dir)]
    return argv + list(KERNEL_ARGS if service == "kernel" else ("--standalone",))


def measure(
    name: str, argv: list[str], env: dict[str, str], tree: Path | None
) -> tuple[float, float]:
    if tree is not None:  # that checkout's client distribution too, ahead of this one's
        env = {**env, "PYTHONPATH": str(tree / "clients" / "python")}
    server = start(name, argv, env=env, cwd=tree)
    try:
        return server.started_in_s * 1000, cpu_ms(server)
    finally:
        server.stop()


def summary(samples: dict[str, dict[str, list[float]]]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for name, got in samples.items():
        figures[name] = {f"{k}_median_ms": statistics.median(v) for k, v in got.items()}
    echo = figures["echo"]
    for name, got in figures.items():
        if name != "echo":
            got["wall_over_echo"] = got["wall_median_ms"] / echo["wall_median_ms"]
            got["cpu_over_echo"] = got["cpu_median_ms"] / echo["cpu_median_ms"]
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--baseline-tree", metavar="DIR", help="also start this checkout")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    trees: dict[str, Path | None] = {"": None}
    if args.baseline_tree:
        trees[" before"] = Path(args.baseline_tree).resolve()
    names = ["echo"] + [f"{s}{t}" for s in MODULES for t in trees]
    samples = {name: {"wall": [], "cpu": []} for name in names}
    with tempfile.TemporaryDirectory(prefix="maka-cold-start-") as base:
        tmp = Path(base)
        descriptors = echo_server.descriptor_set(tmp / "echo.pb")
        env = {"PYTHONPYCACHEPREFIX": str(tmp / "pycache"), "PYTHONDONTWRITEBYTECODE": ""}
        echo_argv = [sys.executable, echo_server.__file__, "--descriptors", str(descriptors)]
        for index in range(args.rounds + 1):  # round 0 fills the bytecode cache
            got = {"echo": measure("echo-aio", echo_argv, env, None)}
            for service in MODULES:
                for tag, tree in trees.items():
                    argv = service_argv(service, tmp / f"{service}{tag.strip()}-{index}")
                    got[f"{service}{tag}"] = measure(service, argv, env, tree)
            if index:
                for name, (wall, cpu) in got.items():
                    samples[name]["wall"].append(wall)
                    samples[name]["cpu"].append(cpu)
    figures = summary(samples)
    for name, got in figures.items():
        ratio = (
            ""
            if name == "echo"
            else (f"  ({got['wall_over_echo']:.2f}x the echo; CPU {got['cpu_over_echo']:.2f}x)")
        )
        print(
            f"cold start to SERVING, {name}: {got['wall_median_ms']:.0f} ms, "
            f"CPU {got['cpu_median_ms']:.0f} ms{ratio}"
        )
    if args.json:
        figures["samples_ms"] = samples
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

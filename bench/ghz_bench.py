"""Load the live pair with ghz, every profile of bench/ghz/ next to its baselines, in one run.

    python bench/ghz_bench.py [--reps N] [--duration S] [--json PATH] [--profile NAME ...]
    python bench/ghz_bench.py --smoke [--profile NAME ...] [--profiles DIR]

Starts the pair (``maka-resource`` and ``maka-kernel`` on one fresh data directory, loopback
ports, as ``./dev up`` runs them), creates the fixtures (bench/ghz_fixtures.py), then:

* **benchmark** (default): builds the grpc-go echo server (bench/echo/) and starts it and the
  grpc.aio one (bench/echo_server.py); for every profile, measures the product's request and
  response sizes, then runs ghz ``--reps`` times for ``--duration`` seconds against the
  product, the grpc.aio echo and the grpc-go echo in turn (alternating, so all three see the
  same machine), and takes medians. A unary profile's echoes replay the product's response
  (``--unary-baseline replay``, the default: the profile's own call, answered with the bytes
  the product answered once, so ghz does the same work against every target) or answer an
  opaque payload of its size (``opaque``); streams stream frames of the same size. Then the
  rows a Python driver measures (bench/pair_rows.py), the ceiling rows (bench/ceilings.py:
  the short turns on a kernel with no SQLite) and the growth curves (bench/growth.py).
  Prints the table and writes every repetition, the machine, the date, the versions and each
  profile's baseline as JSON.
* **smoke** (``--smoke``): a few hundred requests per profile against the product only; fails
  (exit 1) on any call that did not end with the profile's status, or any ghz error.
  Correctness under load, not timing.

Nothing is retried: a server that fails to start, a call that fails or a ghz error ends the
run with a message saying which.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ceilings
import echo_server
import ghz_fixtures
import ghz_profiles
import growth
import pair_rows
import report
from ghz_profiles import Profile
from ghz_run import measure_profile
from support import BenchError, Pair, Server, running, running_pair, start

ECHO_GO = Path(__file__).resolve().parent / "echo"


def build_go_echo(out: Path) -> Path:
    """Build bench/echo (grpc-go) into *out*."""
    binary = out / "echo-go"
    if shutil.which("go") is None:
        raise BenchError("the grpc-go baseline needs a Go toolchain (go) on PATH")
    result = subprocess.run(
        ["go", "build", "-o", str(binary), "."],
        cwd=ECHO_GO,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise BenchError(f"go build of bench/echo failed:\n{result.stderr}")
    return binary


@contextlib.contextmanager
def running_baselines(tmp: Path) -> Iterator[dict[str, Server]]:
    """The grpc.aio and grpc-go echo servers, on one descriptor set of echo.proto and the
    product's files (for the replay baseline)."""
    descriptors = echo_server.descriptor_set(tmp / "echo.binpb")
    binary = build_go_echo(tmp)
    script = Path(echo_server.__file__)
    aio = start("echo-aio", [sys.executable, str(script), "--descriptors", str(descriptors)])
    with running(aio):
        go = start("echo-go", [str(binary), "-descriptors", str(descriptors)])
        with running(go):
            yield {"aio": aio, "go": go}


def smoke(pair: Pair, profiles: list[Profile], fixtures: dict[str, Any]) -> int:
    failed = 0
    for profile in profiles:
        server = pair.kernel if profile.service == "kernel" else pair.resource
        config = ghz_profiles.product_config(profile, fixtures, smoke=True)
        began = time.perf_counter()
        try:
            ghz_report = ghz_profiles.run_ghz(config, server.address, pair.token, timeout_s=300)
            ghz_profiles.check(ghz_report, profile.expect, profile.name, config.get("total"))
        except BenchError as error:
            failed += 1
            print(f"FAIL {profile.name}: {error}", flush=True)
            continue
        finally:
            server.check_alive()
        print(
            f"ok   {profile.name}: {ghz_report['count']} calls, all {profile.expect} "
            f"({time.perf_counter() - began:.1f} s)",
            flush=True,
        )
    verdict = f"{failed} of {len(profiles)} profile(s) FAILED" if failed else "all passed"
    print(f"ghz smoke: {len(profiles)} profile(s), {verdict}", flush=True)
    return 1 if failed else 0


def versions() -> dict[str, str]:
    from importlib.metadata import version

    import grpc

    def out(*argv: str) -> str:
        try:
            result = subprocess.run(argv, capture_output=True, text=True, check=False)
        except FileNotFoundError:
            return f"{argv[0]}: not installed"
        lines = (result.stdout or result.stderr).strip().splitlines()
        return next((line for line in lines if "\tmod\t" in line), lines[0] if lines else "")

    return {
        "maka-runtime": version("maka-runtime"),
        "python": platform.python_version(),
        "grpcio": grpc.__version__,
        "ghz": " ".join(out("go", "version", "-m", ghz_profiles.tool("ghz")).split()[1:3]),
        "go": out("go", "version"),
        "git": out("git", "-C", str(ghz_profiles.ROOT), "describe", "--always", "--dirty"),
    }


def machine() -> dict[str, Any]:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    return {
        "cpus": os.cpu_count(),
        "cpu": model,
        "platform": platform.platform(),
        "load_average_at_start": os.getloadavg(),
    }


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="the short CI run of every profile")
    parser.add_argument("--profile", action="append", help="only this profile (repeatable)")
    parser.add_argument("--profiles", type=Path, default=ghz_profiles.PROFILES, help="directory")
    parser.add_argument("--reps", type=int, default=3, help="repetitions per target")
    parser.add_argument("--duration", type=float, default=3.0, help="seconds per repetition")
    parser.add_argument("--no-rows", action="store_true", help="skip the Python-driver rows")
    parser.add_argument("--no-growth", action="store_true", help="skip the growth curves")
    parser.add_argument(
        "--unary-baseline",
        choices=ghz_profiles.UNARY_BASELINES,
        default="replay",
        help="what the echoes answer a unary profile: the product's captured response under "
        "its own method (replay) or Echo.Unary's bytes payload of the same size (opaque)",
    )
    parser.add_argument("--max-sessions", type=int, default=10_000, help="growth: most sessions")
    parser.add_argument(
        "--json", type=Path, default=ghz_profiles.ROOT / "bench" / "results" / "ghz.json"
    )
    args = parser.parse_args(argv)
    if args.reps < 1 or args.duration <= 0:
        parser.error("--reps and --duration must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    profiles = ghz_profiles.load_all(args.profiles, args.profile)
    results: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": " ".join(["python", "bench/ghz_bench.py", *(argv or sys.argv[1:])]),
        "machine": machine(),
        "versions": versions(),
        "settings": {
            "reps": args.reps,
            "duration_s": args.duration,
            "unary_baseline": args.unary_baseline,
        },
    }
    with tempfile.TemporaryDirectory(prefix="maka-ghz-bench-") as base:
        tmp = Path(base)
        workspace = tmp / "workspace"
        workspace.mkdir()
        with running_pair(tmp / "data") as pair:
            needs_sessions = (
                profiles
                if args.smoke or args.no_growth
                else [
                    *profiles,
                    *growth.turn_profiles(profiles),
                ]
            )
            fixtures = asyncio.run(ghz_fixtures.create(pair, workspace, needs_sessions))
            if args.smoke:
                return smoke(pair, profiles, fixtures)
            with running_baselines(tmp) as baselines:
                aio = baselines["aio"]
                print(report.HEADER, flush=True)
                results["profiles"] = {
                    p.name: measure_profile(
                        p,
                        pair,
                        baselines,
                        fixtures,
                        reps=args.reps,
                        duration=args.duration,
                        unary_baseline=args.unary_baseline,
                    )
                    for p in profiles
                }
                if not args.no_rows:
                    results["rows"] = pair_rows.run_all(pair, aio, workspace, tmp)
                    results["rows"]["short_turns_without_sqlite"] = (
                        ceilings.short_turns_without_sqlite(
                            pair,
                            aio,
                            workspace,
                            tmp,
                            reps=args.reps,
                            duration=args.duration,
                            durable=results["profiles"].get(ceilings.SHORT),
                        )
                    )
                if not args.no_growth:
                    results["growth"] = growth.run_all(
                        pair,
                        baselines,
                        fixtures=fixtures,
                        profiles=profiles,
                        workspace=workspace,
                        tmp=tmp,
                        args=args,
                    )
                    results.setdefault("rows", {}).update(growth.rows(results["growth"]))
    print()
    print(report.markdown(results))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except BenchError as error:
        print(f"ghz_bench: {error}", file=sys.stderr)
        raise SystemExit(1) from None

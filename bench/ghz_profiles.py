"""The ghz profiles of bench/ghz/: load one, resolve it against fixtures, run ghz, check it.

A profile is a ghz configuration plus a ``bench`` block (bench/ghz/README.md). :func:`run_ghz`
writes the resolved configuration to a file, runs ``ghz --config FILE`` and returns its JSON
report; :func:`check` fails loudly unless every call ended with the profile's expected status
and ghz itself reported no error.
"""

from __future__ import annotations

import base64
import copy
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support import BenchError, percentile

ROOT = Path(__file__).resolve().parents[1]
PROFILES = Path(__file__).resolve().parent / "ghz"
PLACEHOLDER = re.compile(r"\$\{(\w+)\}")
ECHO_UNARY = "maka.bench.echo.v1.Echo.Unary"
ECHO_STREAM = "maka.bench.echo.v1.Echo.Stream"


def tool(name: str) -> str:
    """A pinned Go tool (``./dev setup-go`` puts them in .tools/bin), else one on PATH."""
    pinned = ROOT / ".tools" / "bin" / name
    found = str(pinned) if pinned.exists() else shutil.which(name)
    if found is None:
        raise BenchError(f"{name} is not installed (./dev setup-go installs it)")
    return found


@dataclass
class Profile:
    name: str
    bench: dict[str, Any]
    config: dict[str, Any]

    @property
    def service(self) -> str:
        return str(self.bench["service"])

    @property
    def expect(self) -> str:
        return str(self.bench.get("expect", "OK"))

    @property
    def method(self) -> str:
        return str(self.config["call"]).rsplit(".", 1)[1]

    @property
    def concurrency(self) -> int:
        return int(self.config.get("concurrency", 50))

    @property
    def connections(self) -> int:
        return int(self.config.get("connections", 1))

    def worker_ids(self) -> list[str]:
        """ghz's ``{{.WorkerID}}`` of each worker: ``g<i>c<i mod connections>``."""
        return [f"g{i}c{i % self.connections}" for i in range(self.concurrency)]


def load(path: Path) -> Profile:
    raw = json.loads(path.read_text())
    bench = raw.pop("bench")
    for key in ("service", "measures", "unit"):
        if key not in bench:
            raise BenchError(f"{path}: bench.{key} is missing")
    if bench["service"] not in ("kernel", "resource"):
        raise BenchError(f"{path}: bench.service must be kernel or resource")
    return Profile(path.stem, bench, raw)


def load_all(directory: Path = PROFILES, names: list[str] | None = None) -> list[Profile]:
    profiles = [load(path) for path in sorted(directory.glob("*.json"))]
    if names:
        unknown = set(names) - {p.name for p in profiles}
        if unknown:
            raise BenchError(f"no such profile(s) in {directory}: {', '.join(sorted(unknown))}")
        profiles = [p for p in profiles if p.name in names]
    if not profiles:
        raise BenchError(f"no profiles in {directory}")
    return profiles


def resolve(value: Any, fixtures: dict[str, Any]) -> Any:
    """*value* with every ``${NAME}`` filled from *fixtures* (a value that is only a
    placeholder takes the fixture's type)."""
    if isinstance(value, dict):
        return {k: resolve(v, fixtures) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, fixtures) for v in value]
    if isinstance(value, str):
        whole = PLACEHOLDER.fullmatch(value)
        if whole:
            return fixtures[whole.group(1)]
        return PLACEHOLDER.sub(lambda m: str(fixtures[m.group(1)]), value)
    return value


def product_config(profile: Profile, fixtures: dict[str, Any], *, smoke: bool) -> dict[str, Any]:
    config = copy.deepcopy(profile.config)
    if smoke:
        config.update(copy.deepcopy(profile.bench.get("smoke", {"total": 200})))
    return dict(resolve(config, fixtures))


#: The baselines a profile can run against: ``replay`` (a unary profile's own call, answered
#: with the product's captured response), ``opaque`` (``Echo.Unary``: a bytes payload of the
#: response's size) and ``stream`` (``Echo.Stream``: frames of the responses' mean size).
UNARY_BASELINES = ("replay", "opaque")


def baseline_kind(profile: Profile, frames: int, unary_baseline: str) -> str:
    """Which baseline *profile* runs against: a stream's is always ``stream``; a unary
    profile's is *unary_baseline*."""
    if unary_baseline not in UNARY_BASELINES:
        raise BenchError(f"unary baseline must be one of {UNARY_BASELINES}: {unary_baseline!r}")
    streaming = frames != 1 or profile.bench["unit"] != "req/s"
    return "stream" if streaming else unary_baseline


def replay_config(profile: Profile, fixtures: dict[str, Any]) -> dict[str, Any]:
    """The profile's own settings, call and request against an echo that replays the
    product's response (``Echo.Keep``): ghz does the same work as against the product."""
    return product_config(profile, fixtures, smoke=False)


def baseline_config(
    profile: Profile, request_bytes: int, response_bytes: int, frames: int
) -> dict[str, Any]:
    """The profile's settings against the echo service: a request as large as the product's,
    *frames* responses (one for a unary call) of *response_bytes*."""
    config = {
        k: v
        for k, v in profile.config.items()
        if k not in ("call", "data", "stream-call-count", "timeout")
    }
    streaming = baseline_kind(profile, frames, "opaque") == "stream"
    config["call"] = ECHO_STREAM if streaming else ECHO_UNARY
    padding = bytes(max(0, request_bytes - 8))
    config["data"] = {
        "payload": base64.b64encode(padding).decode(),
        "response_bytes": max(0, response_bytes - 3),
        "frames": frames,
    }
    return config


def run_ghz(
    config: dict[str, Any],
    host: str,
    token: str,
    *,
    duration_s: float | None = None,
    timeout_s: float = 600,
) -> dict[str, Any]:
    """Run ghz with *config* against *host* (through reflection, with the credential) and
    return its JSON report. *duration_s* runs for that long (calls in flight finish)."""
    full = dict(config)
    full.update(host=host, insecure=True, format="json")
    metadata = {"authorization": f"Bearer {token}"}
    full["metadata"] = metadata
    full["reflect-metadata"] = metadata
    if duration_s is not None:
        full.pop("total", None)
        full["duration"] = f"{duration_s}s"
        full["duration-stop"] = "wait"
    fd, path = tempfile.mkstemp(prefix="ghz-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as file:
            json.dump(full, file)
        result = subprocess.run(
            [tool("ghz"), "--config", path],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    finally:
        os.unlink(path)
    if result.returncode != 0:
        raise BenchError(
            f"ghz {config['call']} on {host} failed ({result.returncode}): "
            f"{result.stderr.strip() or result.stdout.strip()[:2000]}"
        )
    try:
        report: dict[str, Any] = json.loads(result.stdout)
    except json.JSONDecodeError as error:
        raise BenchError(f"ghz {config['call']}: no JSON report: {result.stdout[:500]}") from error
    return report


def check(report: dict[str, Any], expect: str, what: str, total: int | None = None) -> None:
    """Fail unless every call ended *expect* (and, with *total*, there were that many)."""
    count = int(report.get("count", 0))
    statuses = report.get("statusCodeDistribution") or {}
    errors = report.get("errorDistribution") or {}
    problems = []
    if count == 0:
        problems.append("no calls were made")
    if total is not None and count != total:
        problems.append(f"{count} calls, not {total}")
    if statuses != {expect: count}:
        problems.append(f"statuses {statuses}, every call must end {expect}")
    if expect == "OK" and errors:
        problems.append(f"errors {errors}")
    unexpected = {e: n for e, n in errors.items() if expect == "OK" or expect not in e}
    if expect != "OK" and unexpected:
        problems.append(f"errors {unexpected}")
    if report.get("endReason") not in ("normal", "timeout"):
        problems.append(f"ghz ended with {report.get('endReason')!r}")
    if problems:
        raise BenchError(f"{what}: " + "; ".join(problems))


def figures(report: dict[str, Any], per_call: int) -> dict[str, float]:
    """Calls/s, responses/s (*per_call* responses each) and latency percentiles (ms) of a ghz
    report, from its per-call details (a stream the client ends counts too)."""
    latencies = [entry["latency"] / 1e6 for entry in report.get("details") or []]
    if not latencies:
        raise BenchError("ghz reported no calls")
    return {
        "calls": int(report["count"]),
        "calls_per_s": float(report["rps"]),
        "per_s": float(report["rps"]) * per_call,
        "p50_ms": percentile(latencies, 0.50),
        "p99_ms": percentile(latencies, 0.99),
        "average_ms": sum(latencies) / len(latencies),
    }

"""Measure what the sandbox costs per run: foreground ``true`` with and without it, same run.

    python bench/sandbox_bench.py [--runs N] [--json PATH]

Starts a real ``maka-resource`` (its own process, a fresh data directory, 127.0.0.1:0) and, in
rounds that alternate so both see the same machine load, times one ``RunForeground`` of
``true`` (call to final result, one client):

* ``sandboxed`` — the default boundary (workspace-write): bubblewrap with its namespaces and
  mounts, in a cgroup of its own;
* ``unsandboxed`` — ``danger-full-access``: no bubblewrap, still in its own cgroup.

For reference, in this process without the service: ``bash -c true`` and the same under
bubblewrap with the arguments a run gets. Prints medians and p95 in milliseconds and the
difference, and writes them as JSON with ``--json``.
"""

from __future__ import annotations

import argparse
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

import grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc
from maka_runtime_proto.resource.v1 import sandbox_pb2 as sb

sys.path.insert(0, str(Path(__file__).resolve().parent))
from resource_bench import start_server

from maka_runtime.resource.core.sandbox import ExecutionBoundary
from maka_runtime.resource.core.sandbox.bwrap import bwrap_argv, layout

SESSION = "bench"
DANGER = sb.ExecutionBoundary(profile=sb.PERMISSION_PROFILE_DANGER_FULL_ACCESS)


def _ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": statistics.median(ordered) * 1000,
        "p95_ms": ordered[int(len(ordered) * 0.95) - 1] * 1000,
        "runs": len(ordered),
    }


def _one_run(stub: Any, token: str, workspace: str, boundary: sb.ExecutionBoundary | None) -> float:
    request = pb.RunForegroundRequest(session_id=SESSION, command="true", cwd=workspace)
    if boundary is not None:
        request.boundary.CopyFrom(boundary)
    begin = time.perf_counter()
    events = list(stub.RunForeground(request, metadata=[("authorization", f"Bearer {token}")]))
    took = time.perf_counter() - begin
    result = events[-1].result
    assert result.status == pb.RUN_STATUS_COMPLETED, result
    want = (
        sb.PERMISSION_PROFILE_DANGER_FULL_ACCESS
        if boundary
        else sb.PERMISSION_PROFILE_WORKSPACE_WRITE
    )
    assert result.sandbox.profile == want
    return took


def _bare(argv: list[str]) -> float:
    begin = time.perf_counter()
    subprocess.run(argv, check=True)
    return time.perf_counter() - begin


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="runs of each kind")
    parser.add_argument("--json", metavar="PATH", help="also write the figures here as JSON")
    args = parser.parse_args()
    samples: dict[str, list[float]] = {"sandboxed": [], "unsandboxed": [], "bare": [], "bwrap": []}
    with tempfile.TemporaryDirectory(prefix="maka-sandbox-bench-") as base:
        data_dir, workspace = Path(base) / "data", Path(base) / "workspace"
        workspace.mkdir()
        bwrap = bwrap_argv(
            "bwrap", layout(ExecutionBoundary(writable_roots=(str(workspace),))), cwd=str(workspace)
        )
        server = start_server(data_dir)
        try:
            token = server.token
            with grpc.insecure_channel(server.address) as channel:
                stub = resource_pb2_grpc.ResourceServiceStub(channel)
                for boundary in (None, DANGER) * 10:  # warm up
                    _one_run(stub, token, str(workspace), boundary)
                for _ in range(args.runs):
                    samples["sandboxed"].append(_one_run(stub, token, str(workspace), None))
                    samples["unsandboxed"].append(_one_run(stub, token, str(workspace), DANGER))
                    samples["bare"].append(_bare(["/bin/bash", "-c", "true"]))
                    samples["bwrap"].append(_bare([*bwrap, "/bin/bash", "-c", "true"]))
                info = stub.GetServerInfo(
                    pb.GetServerInfoRequest(), metadata=[("authorization", f"Bearer {token}")]
                )
                stub.Shutdown(
                    pb.ShutdownRequest(),
                    timeout=30,
                    metadata=[("authorization", f"Bearer {token}")],
                )
        finally:
            server.stop()
    figures: dict[str, Any] = {
        "service_foreground_true_sandboxed": _ms(samples["sandboxed"]),
        "service_foreground_true_unsandboxed": _ms(samples["unsandboxed"]),
        "bare_bash_true": _ms(samples["bare"]),
        "bare_bwrap_bash_true": _ms(samples["bwrap"]),
        "bwrap_version": info.sandbox.bwrap_version,
        "containment": sb.Containment.Name(info.sandbox.containment),
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
        },
    }
    cost = (
        figures["service_foreground_true_sandboxed"]["median_ms"]
        - figures["service_foreground_true_unsandboxed"]["median_ms"]
    )
    figures["sandbox_cost_median_ms"] = cost
    s, u = (
        figures["service_foreground_true_sandboxed"],
        figures["service_foreground_true_unsandboxed"],
    )
    b, w = figures["bare_bash_true"], figures["bare_bwrap_bash_true"]
    print(
        f"foreground `true` through the service: sandboxed {s['median_ms']:.1f} ms median "
        f"(p95 {s['p95_ms']:.1f}), unsandboxed {u['median_ms']:.1f} ms (p95 {u['p95_ms']:.1f}): "
        f"the sandbox costs {cost:.1f} ms per run ({args.runs} runs each, alternating; "
        f"containment {figures['containment']})"
    )
    print(
        f"bare, in this process: bash -c true {b['median_ms']:.1f} ms, under bwrap "
        f"{w['median_ms']:.1f} ms (bubblewrap {figures['bwrap_version']})"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Measure the per-run output journal: what a slow consumer receives, and what a run costs.

    python bench/output_journal_bench.py [--runs N] [--megabytes M] [--json PATH]

Two figures, each with the journal and without it (``--max-run-output-bytes 0``: output is kept
only in the 1 MiB replay memory, as before the journal):

* bytes a slow ``RunForeground`` consumer receives of a print of ``--megabytes`` MB (6 by
  default): a real ``maka-resource`` process, a client that reads the start announcement, then
  nothing until the run has ended (it watches the run end with ``WatchRuns``), then the rest;
  the gaps it is told of, and whether the bytes it got hash like the bytes printed;
* the per-run cost of ``true``, and of a run printing 1 MB, in one process on a real SQLite
  store (``RunSupervisor.run_foreground``): the median and p95 over ``--runs`` runs, with and
  without the journal alternating, so both see the same machine.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc

from maka_runtime.common.storage_root import resolve_storage_root, try_acquire_root_owner
from maka_runtime.resource.core import BashInput, RunSupervisor, ShellRunConfig
from maka_runtime.resource.store import SqliteShellRunStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import Server, start_service

SESSION = "journal-bench"


def start_server(data_dir: Path, *flags: str) -> Server:
    """Start maka-resource (standalone) with *flags*."""
    return start_service("resource", data_dir, "--standalone", *flags)


def slow_consumer(payload: Path, digest: str, pause: float, *flags: str) -> dict[str, Any]:
    """What a consumer that falls as far behind as it can receives of ``cat payload``."""
    with tempfile.TemporaryDirectory(prefix="maka-journal-bench-") as data_dir:
        server = start_server(Path(data_dir), *flags)
        try:
            auth = server.metadata
            with grpc.insecure_channel(server.address) as channel:
                stub = resource_pb2_grpc.ResourceServiceStub(channel)
                watch = stub.WatchRuns(
                    pb.WatchRunsRequest(session_id=SESSION), timeout=300, metadata=auth
                )
                call = stub.RunForeground(
                    pb.RunForegroundRequest(
                        session_id=SESSION, command=f"cat {payload}", cwd="/", announce_start=True
                    ),
                    timeout=300,
                    metadata=auth,
                )
                ref = next(call).started.ref
                for change in watch:
                    if change.run.ref == ref and change.run.status == pb.RUN_STATUS_COMPLETED:
                        break
                watch.cancel()
                received, gaps, lost = hashlib.sha256(), 0, 0
                size = 0
                for event in call:
                    time.sleep(pause)  # the consumer's own work per event (a kernel commits it)
                    if event.WhichOneof("event") == "output":
                        received.update(event.output.data)
                        size += len(event.output.data)
                    elif event.WhichOneof("event") == "gap":
                        gaps += 1
                        lost += event.gap.stdout_bytes + event.gap.stderr_bytes
                stub.Shutdown(pb.ShutdownRequest(), timeout=30, metadata=auth)
        finally:
            server.stop()
    return {
        "bytes_received": size,
        "share_received": size / payload.stat().st_size,
        "gaps": gaps,
        "bytes_reported_lost": lost,
        "sha256_equal": received.hexdigest() == digest,
    }


async def run_costs(runs: int, command: str) -> dict[str, dict[str, float]]:
    """Milliseconds per foreground run of *command*, with and without the journal."""
    samples: dict[str, list[float]] = {"journal": [], "no_journal": []}
    with tempfile.TemporaryDirectory(prefix="maka-journal-bench-") as base:
        supervisors: dict[str, RunSupervisor] = {}
        owners = []
        for name in samples:
            root = resolve_storage_root(Path(base) / name, "resource")
            owner = try_acquire_root_owner(root)
            assert owner is not None
            owners.append(owner)
            store = await SqliteShellRunStore.open(owner.lease)
            config = ShellRunConfig(
                output_dir=str(root.path / "output") if name == "journal" else None
            )
            supervisors[name] = await RunSupervisor.open(store=store, config=config)
        request = BashInput(session_id=SESSION, command=command, cwd="/")
        for supervisor in supervisors.values():  # warm up
            for _ in range(10):
                await supervisor.run_foreground(request)
        for index in range(runs):
            # Alternate which goes first, so that neither always follows the other.
            order = list(supervisors.items())
            for name, supervisor in order if index % 2 else order[::-1]:
                started = time.perf_counter()
                record = await supervisor.run_foreground(request)
                samples[name].append((time.perf_counter() - started) * 1000)
                assert record.status == "completed"
        for supervisor in supervisors.values():
            await supervisor.close()
        for owner in owners:
            owner.close()
    return {
        name: {
            "median_ms": statistics.median(values),
            "p95_ms": statistics.quantiles(values, n=20)[-1],
        }
        for name, values in samples.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="runs per cost measurement")
    parser.add_argument("--megabytes", type=int, default=6, help="the slow consumer's print")
    parser.add_argument(
        "--pause", type=float, default=0.02, help="the slow consumer's seconds per event"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the figures here as JSON")
    args = parser.parse_args()
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="maka-journal-payload-") as scratch:
        payload = Path(scratch) / "payload.bin"
        data = os.urandom(args.megabytes * 1_000_000)
        payload.write_bytes(data)
        digest = hashlib.sha256(data).hexdigest()
        figures["slow_consumer"] = {
            "bytes_printed": len(data),
            "pause_per_event_s": args.pause,
            "journal": slow_consumer(payload, digest, args.pause),
            "no_journal": slow_consumer(payload, digest, args.pause, "--max-run-output-bytes", "0"),
        }
    figures["cost_true"] = asyncio.run(run_costs(args.runs, "true"))
    figures["cost_1mb"] = asyncio.run(
        run_costs(max(20, args.runs // 4), "head -c 1000000 /dev/zero")
    )
    figures["machine"] = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
    }
    slow = figures["slow_consumer"]
    for name in ("journal", "no_journal"):
        got = slow[name]
        print(
            f"slow RunForeground consumer, {name}: {got['bytes_received']} of "
            f"{slow['bytes_printed']} bytes ({got['share_received']:.1%}), {got['gaps']} gap(s) "
            f"reporting {got['bytes_reported_lost']} bytes, sha256 equal: {got['sha256_equal']}"
        )
    for key, label in (("cost_true", "`true`"), ("cost_1mb", "a 1 MB print")):
        cost = figures[key]
        print(
            f"per-run cost of {label}: {cost['journal']['median_ms']:.2f} ms median "
            f"(p95 {cost['journal']['p95_ms']:.2f}) with the journal, "
            f"{cost['no_journal']['median_ms']:.2f} ms (p95 {cost['no_journal']['p95_ms']:.2f}) "
            "without"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

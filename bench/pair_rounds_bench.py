"""``bench/pair_bench.py`` with the services' credentials, in alternating rounds, optionally
against a second pair started from another checkout ('before').

    python bench/pair_rounds_bench.py [--runs N] [--rounds R] [--baseline-tree DIR] [--json PATH]

Makes a token file (as the test suite does) that both services accept and every client here
carries (``MAKA_TOKEN_FILE``, ``MAKA_TOKEN``), starts a real ``maka-resource`` and a real
``maka-kernel`` (and, with ``--baseline-tree``, a second pair from that checkout), then runs
``pair_bench.measure`` R times on each pair in turn: ``subprocess.run`` of ``bash -c true``, a
bare ``RunForeground`` of ``true``, and a shell turn whose tool call runs ``true``. Prints the
median over rounds of each round's medians and the ratio turn / bare run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pair_bench

from maka_runtime.common.auth import hash_token, new_token


def _credential(directory: Path) -> None:
    token = new_token()
    path = directory / "tokens.json"
    roles = ["admin", "operator", "kernel", "client"]
    entry = {"principal": "bench", "roles": roles, "sha256": hash_token(token)}
    path.write_text(json.dumps({"tokens": [entry]}))
    path.chmod(0o600)
    os.environ.update(MAKA_TOKEN_FILE=str(path), MAKA_TOKEN=token)


def _start_pair(base: Path, tree: Path | None) -> tuple[list[subprocess.Popen[str]], str, str]:
    saved = os.environ.get("PYTHONPATH")
    if tree is not None:
        os.environ["PYTHONPATH"] = f"{tree}{os.pathsep}{tree / 'gen' / 'python'}"
    try:
        resource, resource_address = pair_bench.start("maka_runtime.resource.server", base / "r")
        kernel, kernel_address = pair_bench.start(
            "maka_runtime.kernel.server", base / "k", "--resource-address", resource_address
        )
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
    return [kernel, resource], kernel_address, resource_address


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="runs of each kind per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline-tree", metavar="DIR")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    trees: dict[str, Path | None] = {"service": None}
    if args.baseline_tree:
        trees["before"] = Path(args.baseline_tree).resolve()
    rounds: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    processes: list[subprocess.Popen[str]] = []
    with tempfile.TemporaryDirectory(prefix="maka-pair-rounds-") as tmp:
        _credential(Path(tmp))
        try:
            pairs = {}
            for name, tree in trees.items():
                started, kernel_address, resource_address = _start_pair(Path(tmp) / name, tree)
                processes += started
                pairs[name] = (kernel_address, resource_address)
            for _ in range(args.rounds):
                for name, (kernel_address, resource_address) in pairs.items():
                    figures = asyncio.run(
                        pair_bench.measure(kernel_address, resource_address, args.runs)
                    )
                    rounds[name].append(figures)
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait(30)
    report: dict[str, Any] = {}
    for name, figures in rounds.items():
        row = {
            kind: statistics.median(f[kind]["median_ms"] for f in figures)
            for kind in ("subprocess", "resource_run", "shell_turn")
        }
        row["turn_to_bare_ratio"] = statistics.median(f["turn_to_bare_ratio"] for f in figures)
        row["tool_call_overhead_ms"] = statistics.median(
            f["tool_call_overhead_ms"] for f in figures
        )
        report[name] = row
        print(
            f"{name}: subprocess {row['subprocess']:.2f} ms, bare run {row['resource_run']:.2f} "
            f"ms, shell turn {row['shell_turn']:.2f} ms: turn / bare run "
            f"{row['turn_to_bare_ratio']:.2f} (overhead {row['tool_call_overhead_ms']:.2f} ms)"
        )
    if args.json:
        args.json.write_text(json.dumps({"rounds": rounds, "report": report}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

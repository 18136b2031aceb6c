"""A spawn that runs out of file descriptors part-way leaves none of its own open
(core/process/pipes.py): the process is a real one, with a real descriptor limit."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# In a child process of its own (the limit is the whole process's): open descriptors, then
# the limit set to that many plus *spare*, then a spawn; what it raised and what it left.
_PROBE = """
import asyncio, errno, json, os, resource, sys
from maka_runtime.resource.core.process import PipesProcess
from maka_runtime.resource.core.sandbox.launch import LaunchPlan

gated = sys.argv[1] == "gated"

async def spawn(spare):
    plan = LaunchPlan(env={"PATH": os.environ["PATH"]}, cgroup=None, sandboxed=False)
    before = sorted(os.listdir("/proc/self/fd"))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    highest = max(int(fd) for fd in before)
    resource.setrlimit(resource.RLIMIT_NOFILE, (highest + 1 + spare, hard))
    error = None
    try:
        process = PipesProcess.spawn(
            "true", cwd="/", plan=plan, sink=lambda stream, data: None, gated=gated
        )
    except OSError as raised:
        error = errno.errorcode.get(raised.errno, str(raised.errno))
    else:
        process.kill_all()
        await process.kill(5)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return {"error": error, "leaked": sorted(set(os.listdir("/proc/self/fd")) - set(before))}

async def main():
    print(json.dumps([await spawn(spare) for spare in range(8)]))

asyncio.run(main())
"""


def _spawns(gated: bool) -> list[dict[str, object]]:
    """The outcomes of spawns with 0 to 7 descriptors to spare."""
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, "gated" if gated else "plain"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answer: list[dict[str, object]] = json.loads(result.stdout.splitlines()[-1])
    return answer


@pytest.mark.parametrize("gated", [True, False], ids=["gated", "ungated"])
def test_running_out_of_descriptors_part_way_leaks_none(gated: bool) -> None:
    # The first, second or third pipe fails, or subprocess's own pipe, or nothing.
    outcomes = _spawns(gated)
    assert outcomes[0]["error"] == "EMFILE"
    assert any(o["error"] is None for o in outcomes)  # with enough, it starts
    for spare, outcome in enumerate(outcomes):
        assert outcome["leaked"] == [], f"{spare} spare descriptor(s): {outcome}"

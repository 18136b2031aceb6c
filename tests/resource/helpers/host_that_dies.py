"""A resource host that starts runs and then waits to be killed with SIGKILL.

Usage: host_that_dies.py BASE_DIR. Prints one JSON line {"refs": [...], "pids": [...]} once
every run is running; the pids are the runs' leaders and one grandchild.
"""

import asyncio
import json
import os
import sys
from pathlib import Path

from maka_runtime.common.storage_root import resolve_storage_root, try_acquire_root_owner
from maka_runtime.resource.core import BashInput, OutputChunk, RunSupervisor, ShellRunConfig
from maka_runtime.resource.core.sandbox import ExecutionBoundary, SandboxSettings
from maka_runtime.resource.store import SqliteShellRunStore

# Unsandboxed: its runs must outlive this host (a sandbox ends with it) and print host pids,
# for the start-up sweep's marker and process-group rules to find.
DANGER = ExecutionBoundary(profile="danger-full-access")
REPO = str(Path(__file__).resolve().parents[3])


async def main(base: Path) -> None:
    owner = try_acquire_root_owner(resolve_storage_root(base / "interactive", "resource"))
    assert owner is not None
    store = await SqliteShellRunStore.open(owner.lease)
    # As tests.support.sandbox (this script runs on its own): its Python is readable.
    roots = (REPO, sys.base_prefix, sys.prefix)
    config = ShellRunConfig(sandbox=SandboxSettings(readable_roots=roots))
    manager = await RunSupervisor.open(store=store, config=config)
    cwd = os.getcwd()
    # The PTY run ignores the hangup its terminal sends when this host dies, as nohup would.
    commands = [
        ("sleep 600", False),
        ('trap "" HUP; echo ignoring; exec sleep 600', True),
        ("sleep 600 & echo $!; wait", False),
    ]
    refs, pids = [], []
    for command, pty in commands:
        record = await manager.start_background(
            BashInput(session_id="doomed", command=command, cwd=cwd, pty=pty, boundary=DANGER)
        )
        assert record.status == "running" and record.process is not None
        refs.append(record.ref)
        pids.append(record.process.pid)
    # The PTY run says when it ignores the hangup (or this host's death could come first), and
    # the last run prints its grandchild's pid: wait for those lines (sentinels, not sleeps).
    await _line(manager, refs[1])
    pids.append(int(await _line(manager, refs[-1])))
    print(json.dumps({"refs": refs, "pids": pids}), flush=True)
    await asyncio.Event().wait()


async def _line(manager: RunSupervisor, ref: str) -> bytes:
    printed = b""
    async for event in manager.follow_output("doomed", ref):
        if isinstance(event, OutputChunk):
            printed += event.data
            if printed.endswith(b"\n"):
                break
    return printed


asyncio.run(main(Path(sys.argv[1])))

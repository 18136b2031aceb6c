"""``maka-kernel`` with its session store in memory: what one kernel process does with no
SQLite at all. Not durable and not a product mode: the bench starts it for its ceiling row
(bench/ceilings.py) and nothing else does. Every other part is the product's own: the same
servicer, call pipeline, turn runner, session log and event loop, on the same flags.
"""

from __future__ import annotations

from maka_runtime.common.server import ServerHost
from maka_runtime.kernel import server
from maka_runtime.kernel.core.recovery import SweepReport, recover_interrupted
from maka_runtime.kernel.store.memory import MemorySessionStore


async def _open_store(
    self: server.KernelService, host: ServerHost
) -> tuple[MemorySessionStore, SweepReport]:
    store = MemorySessionStore()
    return store, await recover_interrupted(store, server.now_ms())


server.KernelService._open_store = _open_store  # type: ignore[assignment,method-assign]

if __name__ == "__main__":
    raise SystemExit(server.main())

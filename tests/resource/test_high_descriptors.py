"""A busy service holds well over 1,024 descriptors (live runs' pipes, journals, pidfds, gRPC,
SQLite), so any descriptor it waits on may be numbered past what ``select`` accepts. A run's
end must not depend on that: the pidfds of a killed cgroup's members and an output pipe are
polled (``sandbox/cgroups.py``, ``process/child.py``)."""

from __future__ import annotations

import asyncio
import os
import resource
from collections.abc import Iterator

import pytest

from maka_runtime.resource.core.process.child import _readable
from tests.resource.conftest import Host, bash_input

#: Past select's FD_SETSIZE (1024).
HIGH = 1100


@pytest.fixture
def crowded() -> Iterator[None]:
    """This process holds descriptors up past :data:`HIGH`, so the next ones are numbered above
    (its descriptor limit raised for the test if it is lower, as a service's would be: any
    process may raise its soft limit up to its hard one)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = HIGH + 512  # the filler, what the test's host holds, and the runs' own
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, max(hard, needed)))
    filler = [os.open(os.devnull, os.O_RDONLY) for _ in range(HIGH)]
    assert filler[-1] >= 1024
    try:
        yield
    finally:
        for fd in filler:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_readiness_of_a_descriptor_past_1024(crowded: None) -> None:
    read, write = os.pipe()
    try:
        assert read >= 1024
        assert not _readable(read)
        os.write(write, b"x")
        assert _readable(read)
        os.read(read, 1)
        os.close(write)
        write = -1
        assert _readable(read)  # end of file: a read would not block
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)


async def test_a_killed_run_ends_on_its_record_with_descriptors_past_1024(
    host: Host, crowded: None
) -> None:
    # It ignores TERM, so its timeout kills it; its cgroup's members are pinned by pidfds
    # numbered past 1024 while the host waits for them to exit.
    started = await host.coordinator.run_background_bash(
        bash_input("trap '' TERM; sleep 30", "call.t", timeout_ms=200)
    )
    run = host.manager._live[started.ref]
    final = await asyncio.wait_for(asyncio.shield(run.terminal), timeout=30)
    assert final.status == "timed_out"
    stored = await host.store.get(started.ref)
    assert stored is not None and stored.status == "timed_out"
    assert host.drain_requests == []  # no fail-stop

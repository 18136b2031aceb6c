"""A run's cgroup is released as soon as its killed members exit: waited for through their
pidfds, not polled (sandbox/cgroups.py, ``RunCgroup.wait_empty``)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from maka_runtime.resource.core.sandbox.cgroups import RunCgroup


async def test_killed_members_are_awaited_without_polling(
    cgroup: RunCgroup, monkeypatch: pytest.MonkeyPatch
) -> None:
    joined = await asyncio.create_subprocess_exec(
        "/bin/sh", "-c", 'echo 0 > "$0" && echo in && exec sleep 60', str(cgroup.procs),
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert joined.stdout is not None and await joined.stdout.readline() == b"in\n"
        assert cgroup.populated()
        assert cgroup.kill()  # SIGKILL to every member, each pinned by a pidfd

        async def no_polling(delay: float) -> None:
            raise AssertionError(f"wait_empty polled (asyncio.sleep({delay}))")

        monkeypatch.setattr(asyncio, "sleep", no_polling)
        assert await cgroup.wait_empty(10.0)
        assert not cgroup.populated()
    finally:
        monkeypatch.undo()
        with contextlib.suppress(ProcessLookupError):
            joined.kill()
        await joined.wait()
    assert cgroup.remove()

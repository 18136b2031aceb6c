"""Where the cgroup v2 hierarchy is and how it is mounted (sandbox/cgroups.py), read from
mountinfo: a hybrid host's ``unified`` mount, a pure v2 host's with ``nsdelegate`` and
``favordynmods``, none at all. The service says at start when runs' cgroup moves may wait for
the kernel (leaders that join their cgroup, on a mount without ``favordynmods``), and how runs
enter their cgroups."""

from __future__ import annotations

from pathlib import Path

import pytest

from maka_runtime.resource.core.process.leader import clone_into_unavailable
from maka_runtime.resource.core.sandbox.cgroups import (
    _cgroup2_entry,
    cgroup2_mount,
    cgroup2_options,
)
from tests.support.processes import running_service

HYBRID = """\
31 1 0:27 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
33 31 0:29 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
PURE = """\
24 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev shared:9 - cgroup2 cgroup2 rw,nsdelegate,favordynmods
"""
NONE = "24 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"


def test_a_hybrid_hosts_unified_mount_and_its_options() -> None:
    assert _cgroup2_entry(HYBRID) == (Path("/sys/fs/cgroup/unified"), frozenset({"rw"}))
    assert "favordynmods" not in (cgroup2_options(HYBRID) or ())


def test_a_pure_v2_hosts_mount_with_favordynmods() -> None:
    assert _cgroup2_entry(PURE) == (
        Path("/sys/fs/cgroup"),
        frozenset({"rw", "nsdelegate", "favordynmods"}),
    )


def test_no_cgroup2_mount() -> None:
    assert _cgroup2_entry(NONE) is None and cgroup2_options(NONE) is None


def test_this_hosts_mount_is_read_from_its_mountinfo() -> None:
    text = Path("/proc/self/mountinfo").read_text()
    expected = _cgroup2_entry(text)
    assert cgroup2_mount() == (None if expected is None else expected[0])
    assert cgroup2_options() == (None if expected is None else expected[1])


@pytest.mark.parametrize("entry", ["auto", "join"])
def test_the_start_says_how_runs_enter_their_cgroups_and_when_that_may_wait(
    tmp_path: Path, entry: str
) -> None:
    with running_service("resource", tmp_path, "--standalone", "--run-cgroup-entry", entry) as h:
        lines = list(h.lines)
    contained = any("containment: a cgroup per run" in line for line in lines)
    cloned = any("created inside its cgroup (clone3)" in line for line in lines)
    joins = any("joins its cgroup (" in line for line in lines)
    hinted = any("mounted without favordynmods" in line for line in lines)
    if not contained:  # runs without cgroups move nothing, so there is no wait to warn of
        assert any("containment: process groups only" in line for line in lines)
        assert not (hinted or cloned or joins)
    elif entry == "join":
        assert joins and not cloned
        assert any("joins its cgroup (--run-cgroup-entry join)" in line for line in lines)
        assert hinted == ("favordynmods" not in (cgroup2_options() or ()))
    else:
        # A leader created inside its cgroup never moves, so it never waits for the kernel.
        assert cloned != joins
        assert not (cloned and hinted)
        assert cloned == (clone_into_unavailable() == "")

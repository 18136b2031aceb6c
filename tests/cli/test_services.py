"""``maka up`` (both services, Ctrl-C stops both) and ``maka shutdown``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from tests.cli.conftest import MAKA, finish
from tests.support import auth
from tests.support.processes import spawn_service, wait_for_exit

UP = re.compile(r"Maka Runtime is up: kernel (\S+:\d+), resource (\S+:\d+)\.")


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKA_")}
    return {**env, **auth.ENV}  # the suite's credential (tests.support.auth)


def maka(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MAKA, *args], check=False, env=clean_env(), capture_output=True, text=True, timeout=60
    )


@pytest.mark.slow
def test_up_starts_both_and_ctrl_c_stops_both(tmp_path: Path) -> None:
    listen = ["--kernel", "127.0.0.1:0", "--resource", "127.0.0.1:0"]
    child = pexpect.spawn(
        sys.executable,
        [*MAKA[1:], *listen, "up", "--data-dir", str(tmp_path)],
        env=clean_env(),
        encoding="utf-8",
        timeout=30,
    )
    child.expect(UP)
    kernel, resource = child.match.group(1), child.match.group(2)
    health = maka("--json", "--kernel", kernel, "--resource", resource, "health")
    assert health.returncode == 0, health
    assert health.stdout.count('"serving"') == 2
    child.sendintr()
    child.expect("Maka Runtime stopped.")
    assert finish(child) == 0


@pytest.mark.slow
def test_shutdown_stops_the_chosen_services(tmp_path: Path) -> None:
    kernel = spawn_service("kernel", tmp_path / "k")
    resource = spawn_service("resource", tmp_path / "r")
    try:
        addresses = ["--kernel", kernel.wait_bound(), "--resource", resource.wait_bound()]
        done = maka(*addresses, "--json", "shutdown", "--resource-only")
        assert done.returncode == 0, done
        assert '"service": "resource"' in done.stdout
        assert wait_for_exit(resource.pid, 30)
        assert kernel.process.poll() is None
        assert maka(*addresses, "shutdown", "--kernel-only").returncode == 0
        assert wait_for_exit(kernel.pid, 30)
    finally:
        kernel.kill()
        resource.kill()

"""Real services for the CLI tests, and ``maka`` run as a subprocess (or under a real PTY)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.support import auth
from tests.support.processes import ServiceProcess, running_service

MAKA = [sys.executable, "-m", "maka_runtime_client.cli"]


@pytest.fixture(scope="module")
def kernel_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    # A short grace: after an after_step stop of a `hang` step the kernel still waits its whole
    # shutdown grace at exit (see the Ctrl-C test); these tests are not about shutdown.
    data = tmp_path_factory.mktemp("kernel-data")
    with running_service("kernel", data, "--shutdown-grace", "2") as server:
        yield server


@pytest.fixture(scope="module")
def resource_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    with running_service(
        "resource", tmp_path_factory.mktemp("resource-data"), "--standalone"
    ) as server:
        yield server


@dataclass
class Maka:
    """Runs ``maka`` against the test services, in a session of its own for runs."""

    env: dict[str, str]
    workspace: Path

    def __call__(self, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*MAKA, *args],
            check=False,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    def ok(self, *args: str) -> str:
        result = self(*args)
        assert result.returncode == 0, result
        return result.stdout

    def json(self, *args: str) -> list[Any]:
        return [json.loads(line) for line in self.ok("--json", *args).splitlines()]

    def spawn(self, *args: str, rows: int = 24, cols: int = 80) -> pexpect.spawn:
        return pexpect.spawn(
            sys.executable,
            ["-m", "maka_runtime_client.cli", *args],
            env=self.env,
            dimensions=(rows, cols),
            encoding="utf-8",
            codec_errors="replace",
            timeout=20,
        )

    def new_session(self) -> str:
        return str(self.json("new", str(self.workspace))[0]["id"])


@pytest.fixture
def maka(kernel_server: ServiceProcess, resource_server: ServiceProcess, tmp_path: Path) -> Maka:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKA_")}
    env.update(auth.ENV)  # the suite's credential (tests.support.auth)
    env.update(
        MAKA_KERNEL_ADDRESS=kernel_server.address,
        MAKA_RESOURCE_ADDRESS=resource_server.address,
        MAKA_SESSION=f"cli-{uuid.uuid4().hex[:12]}",
        COLUMNS="200",
    )
    return Maka(env=env, workspace=tmp_path)


def finish(child: pexpect.spawn, timeout: float = 20) -> int:
    """Wait for *child* to exit; its exit status (or 128 + signal)."""
    child.expect(pexpect.EOF, timeout=timeout)
    child.close()
    if child.signalstatus is not None:
        return 128 + int(child.signalstatus)
    return int(child.exitstatus)

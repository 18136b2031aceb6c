"""What the deployment tests share: the tools they need, podman in its own work directory, the
two images, and running commands with their output kept for the failure message.

These tests (marker ``deploy``) need root, podman, ``ip`` and the images; ``./dev stack-test``
runs them (CI's deploy step). Without a tool they skip, except where
``MAKA_REQUIRE_TOOLCHAINS=1`` (CI), where they fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
BIN = Path(sys.executable).parent
IMAGES = {"kernel": "localhost/maka-kernel:latest", "resource": "localhost/maka-resource:latest"}


def require(tool: str) -> str:
    """The path of *tool* (also looked up next to this Python); skip, or fail in CI."""
    found = shutil.which(tool) or shutil.which(tool, path=str(BIN))
    if found is None:
        missing(f"{tool} is required")
    assert found is not None
    return found


def missing(why: str) -> None:
    if os.environ.get("MAKA_REQUIRE_TOOLCHAINS") == "1":
        pytest.fail(f"{why} (MAKA_REQUIRE_TOOLCHAINS=1)")
    pytest.skip(why)


def require_root() -> None:
    if os.geteuid() != 0:
        missing("root is required (podman, network namespaces)")


def run(
    args: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    check: bool = True,
    cwd: Path | None = None,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run *args*; with *check*, a non-zero exit fails the test with its output."""
    result = subprocess.run(
        list(args),
        env=env,
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if check and result.returncode != 0:
        raise AssertionError(
            f"{' '.join(args)} exited {result.returncode}\n"
            f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        )
    return result


@pytest.fixture(scope="session")
def podman_env() -> dict[str, str]:
    """The environment with podman's own storage and configuration (deploy/podman-env.sh)."""
    require_root()
    require("podman")
    require("runc")
    out = run(["bash", "-c", f". {DEPLOY / 'podman-env.sh'} && env -0"]).stdout
    env = dict(item.split("=", 1) for item in out.split("\0") if "=" in item)
    env["PATH"] = f"{BIN}:{env.get('PATH', '')}"
    return env


@pytest.fixture(scope="session")
def images(podman_env: dict[str, str]) -> dict[str, str]:
    """Both images, built by deploy/images.sh when one is missing."""
    present = [
        run(["podman", "image", "exists", image], env=podman_env, check=False).returncode == 0
        for image in IMAGES.values()
    ]
    if not all(present):
        require("debootstrap")
        run([str(DEPLOY / "images.sh")], env={**podman_env, "PYTHON": sys.executable}, timeout=600)
    return IMAGES


@pytest.fixture
def secrets(tmp_path: Path) -> Path:
    """A fresh set of the stack's credentials (deploy/credentials.sh)."""
    require("openssl")
    directory = tmp_path / "secrets"
    run([str(DEPLOY / "credentials.sh"), str(directory)])
    return directory

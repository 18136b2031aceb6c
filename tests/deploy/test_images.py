"""The two images on their own: lint, contents, user, volumes, health check, and SIGTERM as
PID 1 (no init) and under an init, ending with exit 0 well inside the stop timeout."""

from __future__ import annotations

import json
import os
import subprocess
import tarfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.deploy.conftest import DEPLOY, require, run

pytestmark = pytest.mark.deploy

STOP_TIMEOUT = 20  # seconds podman waits after SIGTERM before SIGKILL
ALONE = {
    "kernel": [
        *("--listen", "127.0.0.1:50051", "--resource-address", "127.0.0.1:1"),
        *("--shutdown-resource", "no"),
    ],
    "resource": ["--listen", "127.0.0.1:50052", "--standalone"],
}


def test_the_containerfile_is_hadolint_clean() -> None:
    result = run([require("hadolint"), str(DEPLOY / "Containerfile")], check=False)
    assert (result.returncode, result.stdout) == (0, "")


def inspect(env: dict[str, str], image: str) -> dict[str, object]:
    found = json.loads(run(["podman", "image", "inspect", image], env=env).stdout)[0]
    assert isinstance(found, dict)
    return found


def files_of(env: dict[str, str], image: str) -> list[str]:
    """Every path in *image*'s file system (from an exported container)."""
    name = f"maka-files-{os.getpid()}"
    run(["podman", "create", "--name", name, image], env=env)
    try:
        with (
            subprocess.Popen(["podman", "export", name], env=env, stdout=subprocess.PIPE) as export,
            tarfile.open(fileobj=export.stdout, mode="r|") as tar,
        ):
            return [member.name.lstrip("./") for member in tar]
    finally:
        run(["podman", "rm", "--force", "--volumes", name], env=env, check=False)


@pytest.mark.parametrize("service", ["kernel", "resource"])
def test_each_image_runs_as_its_user_with_data_on_a_volume(
    podman_env: dict[str, str], images: dict[str, str], service: str
) -> None:
    found = inspect(podman_env, images[service])
    config = found["Config"]
    assert isinstance(config, dict)
    assert config["User"] == "10001:10001"
    assert "/data" in config["Volumes"]
    health = found["Healthcheck"]
    assert isinstance(health, dict)
    assert health["Test"] == ["CMD", "/opt/maka/bin/python", "/opt/maka/healthprobe.py"]
    names = files_of(podman_env, images[service])
    leaked = [n for n in names if n.endswith(("tokens.json", "local.token", "tls.key", "link.key"))]
    assert leaked == []  # credentials are mounted at run time, never part of an image


def test_the_kernel_image_has_no_shell_tools(
    podman_env: dict[str, str], images: dict[str, str]
) -> None:
    names = files_of(podman_env, images["kernel"])
    programs = sorted(
        n.rpartition("/")[2] for n in names if n.rpartition("/")[0] in {"bin", "usr/bin", "sbin"}
    )
    assert programs and all(p.startswith("python") for p in programs), programs
    shell = ["podman", "run", "--rm", "--entrypoint", "/bin/sh", images["kernel"], "-c", "true"]
    assert run(shell, env=podman_env, check=False).returncode != 0


def test_the_resource_image_carries_bash_coreutils_git_and_bubblewrap(
    podman_env: dict[str, str], images: dict[str, str]
) -> None:
    script = "id -u; git --version; bwrap --version; ls --version | head -n 1"
    command = ["podman", "run", "--rm", "--entrypoint", "bash", images["resource"], "-c", script]
    lines = run(command, env=podman_env).stdout.splitlines()
    assert lines[0] == "10001"
    assert lines[1].startswith("git version ") and lines[2].startswith("bubblewrap ")
    assert "coreutils" in lines[3]


@pytest.mark.parametrize("service", ["kernel", "resource"])
def test_a_start_in_either_image_compiles_no_dataclass_code(
    podman_env: dict[str, str], images: dict[str, str], service: str
) -> None:
    """The build saved the code of both services' dataclasses (deploy/warm-codecache.py), and
    the image's user reads it: importing the service compiles none of it."""
    code = (
        f"import maka_runtime.{service}.server; from maka_runtime.common import codecache; "
        "s = codecache.stats(); print(s.hits, s.misses)"
    )
    command = ["podman", "run", "--rm", "--entrypoint", "/opt/maka/bin/python"]
    hits, misses = run([*command, images[service], "-c", code], env=podman_env).stdout.split()
    assert (int(hits) > 100, int(misses)) == (True, 0)


@contextmanager
def container(env: dict[str, str], image: str, *args: str, init: bool) -> Iterator[str]:
    name = f"maka-pid1-{os.getpid()}-{time.monotonic_ns()}"
    flags = ["--init"] if init else []
    run(["podman", "run", "-d", "--name", name, *flags, image, *args], env=env)
    try:
        yield name
    finally:
        run(["podman", "rm", "--force", "--volumes", name], env=env, check=False)


@pytest.mark.parametrize("init", [False, True], ids=["pid1", "init"])
@pytest.mark.parametrize("service", ["kernel", "resource"])
def test_sigterm_ends_the_service_with_exit_0_inside_the_stop_timeout(
    podman_env: dict[str, str], images: dict[str, str], service: str, init: bool
) -> None:
    with container(podman_env, images[service], *ALONE[service], init=init) as name:
        start = time.monotonic()
        check = ["podman", "healthcheck", "run", name]
        # The probe itself is the sentinel (no health timer without systemd); each run of it
        # takes a podman exec, which paces the loop.
        while run(check, env=podman_env, check=False).returncode != 0:
            assert time.monotonic() - start < 30, run(["podman", "logs", name], env=podman_env)
        started = time.monotonic() - start
        start = time.monotonic()
        run(["podman", "stop", "--time", str(STOP_TIMEOUT), name], env=podman_env)
        stopped = time.monotonic() - start
        state = ["podman", "inspect", "--format", "{{.State.ExitCode}}", name]
        logs = run(["podman", "logs", name], env=podman_env).stderr
        assert run(state, env=podman_env).stdout.strip() == "0", logs
        assert f"maka-{service} stopped" in logs
        assert stopped < STOP_TIMEOUT / 2, stopped
        how = "init" if init else "pid 1"
        print(f"{service} ({how}): healthy in {started:.1f} s, stopped in {stopped:.1f} s")

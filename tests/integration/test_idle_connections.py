"""Connections that stay idle for more than six minutes and then carry on (the keepalive policy,
``maka_runtime_client.keepalive``), on the three paths that used to die after about 150 s:

- ``maka turn`` waiting at an approval prompt: answered after the idle time, the turn completes;
- ``maka attach`` to a bash PTY: the first keystroke after the idle time reaches the shell;
- the kernel's link to the resource service: a tool run silent for 370 s completes.

The three idle together (one six-minute wait for the module), against the real pair of services
and the real ``maka`` console script under pseudo-terminals. Marked ``idle``: ``./dev test``
leaves them out, ``./dev test -m idle`` runs them, CI runs them next to the rest of the suite.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from tests.support import auth
from tests.support.processes import ServiceProcess, running_service

pytestmark = [pytest.mark.slow, pytest.mark.idle]

#: The silent tool run sleeps this long; the other two paths are idle for at least as long.
IDLE_SECONDS = 370
MAKA = str(Path(sys.executable).parent / "maka")
SHELL = "PS1='$ ' exec bash --norc --noprofile"
#: What the connection loss looked like (gRPC's log lines, the CLI's and kernel's reports).
BROKEN = ("goaway", "too_many_pings", "chttp2", "stream_abandoned", "lease", "unavailable")


def broken_words(child: pexpect.spawn) -> list[str]:
    """The signs of a lost connection in everything *child* printed."""
    printed = child.logfile_read.getvalue().lower()
    return [word for word in BROKEN if word in printed]


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[ServiceProcess, ServiceProcess]]:
    # Standalone: `maka bg` may use a session of its own; the kernel's sessions are registered.
    with (
        running_service("resource", tmp_path / "resource", "--standalone") as resource,
        running_service(
            "kernel",
            tmp_path / "kernel",
            *("--default-backend", "shell", "--resource-address", resource.address),
        ) as kernel,
    ):
        yield kernel, resource


def maka_env(kernel: ServiceProcess, resource: ServiceProcess) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKA_", "GRPC_"))}
    env.update(auth.ENV)  # the suite's credential (tests.support.auth)
    env.update(
        MAKA_KERNEL_ADDRESS=kernel.address,
        MAKA_RESOURCE_ADDRESS=resource.address,
        MAKA_SESSION="idle-pty",
        COLUMNS="200",
    )
    return env


def spawn(env: dict[str, str], *args: str) -> pexpect.spawn:
    child = pexpect.spawn(
        MAKA, list(args), env=env, dimensions=(24, 120), encoding="utf-8", timeout=30
    )
    child.logfile_read = io.StringIO()  # the whole transcript
    return child


def run(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [MAKA, *args], env=env, capture_output=True, text=True, timeout=30, check=False
    )
    assert result.returncode == 0, result
    return result.stdout


def exit_status(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    return int(child.exitstatus if child.signalstatus is None else 128 + child.signalstatus)


@pytest.mark.timeout(IDLE_SECONDS + 180)
def test_three_idle_paths_carry_on_after_six_minutes(
    pair: tuple[ServiceProcess, ServiceProcess], tmp_path: Path
) -> None:
    kernel, resource = pair
    env = maka_env(kernel, resource)
    workspace = tmp_path / "workspace"
    workspace.mkdir()

    # 1. A turn waiting at its approval prompt (permission mode ask, the default).
    asking = json.loads(run(env, "--json", "new", str(workspace)).splitlines()[0])["id"]
    prompt = spawn(env, "turn", asking, "echo approved-after-$((6*7))")
    prompt.expect(r"Allow\? \[o\]nce / \[s\]ession / \[d\]eny: ")

    # 2. An attached bash PTY.
    ref = run(env, "bg", "--pty", "--", SHELL).strip()
    attached = spawn(env, "attach", ref)
    attached.send("echo before-$((2+3))\r")
    attached.expect("before-5")

    # 3. A silent tool run, the kernel's stream to the resource service idle all along.
    silent = json.loads(
        run(
            env,
            *("--json", "new", "--permission-mode", "bypass"),
            *("--option", f"timeout_ms={(IDLE_SECONDS + 60) * 1000}", str(workspace)),
        ).splitlines()[0]
    )["id"]
    started = time.monotonic()
    tool = spawn(env, "turn", silent, f"sleep {IDLE_SECONDS}; echo done-$((6*7))")

    # The wait: the silent run ends on its own after IDLE_SECONDS (paths 1 and 2 idle meanwhile).
    outcome = tool.expect(
        ["done-42", "resource_unavailable", pexpect.EOF], timeout=IDLE_SECONDS + 90
    )
    idle = time.monotonic() - started
    assert outcome == 0, f"the silent run did not complete after {idle:.0f} s: {tool.before}"
    assert idle >= IDLE_SECONDS
    tool.expect("turn completed")
    assert exit_status(tool) == 0
    assert not broken_words(tool), tool.logfile_read.getvalue()

    # Path 1 carries on: the answer reaches the kernel, the command runs, the turn completes.
    prompt.sendline("o")
    prompt.expect("resolved allow_once")
    prompt.expect("approved-after-42")
    prompt.expect("turn completed")
    assert exit_status(prompt) == 0
    assert not broken_words(prompt), prompt.logfile_read.getvalue()

    # Path 2 carries on: the next keystrokes reach the shell under the same lease.
    attached.send("echo after-$((6*7))\r")
    attached.expect("after-42")
    attached.send("exit 3\r")
    attached.expect("failed, exit 3")
    assert exit_status(attached) == 3
    assert not broken_words(attached), attached.logfile_read.getvalue()

    # Neither service logged a lost connection.
    for service in (kernel, resource):
        assert "too_many_pings" not in service.stderr, service.stderr

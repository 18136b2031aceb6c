"""The compose stack end to end (deploy/compose.yaml) on the two images.

A user's session on the host: a turn with a tool call, an attach to a PTY run (the SDK's
attach, from inside the private network: the resource service is not published), a stopped
turn, then the stack is stopped (both services exit 0: the kernel's SIGTERM cascades to the
resource service) and brought back, where every turn and run has its final state.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from maka_runtime_client.aio import ClientOptions, KernelClient
from maka_runtime_client.credentials import TlsFiles
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb

from tests.deploy.conftest import DEPLOY, require, run

pytestmark = pytest.mark.deploy

#: Runs inside the resource container (its venv has the SDK; its own certificate is a client's).
ATTACH = """
import asyncio, sys
from maka_runtime_client.aio import ResourceClient

async def main(ref):
    async with ResourceClient("127.0.0.1:50052") as resource:
        run = await resource.get_run(None, ref)
        lease = await resource.acquire_controller(run.session_id, ref, "stack-test")
        seen = ""
        stream = resource.attach(run.session_id, ref)
        async for event in stream:
            kind = event.WhichOneof("event")
            if kind == "attached":
                await lease.send_input("echo attached-$((6*7))\\n")
            elif kind == "output":
                seen += event.output.data.decode(errors="replace")
                if "attached-42" in seen:
                    break
        await stream.aclose()
        await lease.release(timeout=5)
    print("attached-ok", run.mode)

asyncio.run(main(sys.argv[1]))
"""
REF = re.compile(r"maka://runtime/background-tasks/[0-9a-f]+")
TERMINAL_RUNS = {
    f"RUN_STATUS_{name}" for name in ("COMPLETED", "FAILED", "TIMED_OUT", "CANCELLED", "ORPHANED")
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Stack:
    env: dict[str, str]
    project: str
    secrets: Path
    port: int

    def compose(self, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        command = [require("podman-compose"), "-f", str(DEPLOY / "compose.yaml")]
        return run([*command, "-p", self.project, *args], env=self.env, timeout=timeout)

    def container(self, service: str) -> str:
        return f"{self.project}_{service}_1"

    def client_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MAKA_")}
        env["MAKA_TOKEN"] = (self.secrets / "client" / "token").read_text().strip()
        env["MAKA_TLS_CA"] = str(self.secrets / "client" / "ca.pem")
        env["MAKA_KERNEL_ADDRESS"] = f"127.0.0.1:{self.port}"
        return env

    def maka(self, *args: str, timeout: float = 60) -> str:
        return run([require("maka"), *args], env=self.client_env(), timeout=timeout).stdout

    def in_resource(self, *args: str) -> str:
        command = ["podman", "exec", "-i", self.container("resource"), *args]
        return run(command, env=self.env, timeout=60).stdout

    def wait_healthy(self, timeout: float = 60) -> float:
        """Seconds until both health checks (grpc.health.v1, in the containers) pass."""
        start = time.monotonic()
        for service in ("resource", "kernel"):
            check = ["podman", "healthcheck", "run", self.container(service)]
            # The probe is the sentinel; each run of it (a podman exec) paces the loop.
            while run(check, env=self.env, check=False).returncode != 0:
                assert time.monotonic() - start < timeout, f"{service} is not healthy"
        return time.monotonic() - start

    def exit_code(self, service: str) -> int:
        inspect = ["podman", "inspect", "--format", "{{.State.ExitCode}}"]
        return int(run([*inspect, self.container(service)], env=self.env).stdout)

    def logs(self, service: str) -> str:
        result = run(["podman", "logs", self.container(service)], env=self.env, check=False)
        return result.stdout + result.stderr


@pytest.fixture
def stack(podman_env: dict[str, str], images: dict[str, str], secrets: Path) -> Iterator[Stack]:
    env = {**podman_env, "MAKA_SECRETS": str(secrets)}
    stack = Stack(env, f"maka-test-{os.getpid()}", secrets, free_port())
    stack.env["MAKA_KERNEL_PORT"] = str(stack.port)
    try:
        yield stack
    finally:
        command = [require("podman-compose"), "-f", str(DEPLOY / "compose.yaml")]
        run([*command, "-p", stack.project, "down", "--volumes"], env=stack.env, check=False)


async def turns_of(stack: Stack, session_id: str) -> list[kpb.Turn]:
    options = ClientOptions(
        token=(stack.secrets / "client" / "token").read_text().strip(),
        tls=TlsFiles(ca=stack.secrets / "client" / "ca.pem"),
    )
    async with KernelClient(f"127.0.0.1:{stack.port}", options=options) as kernel:
        return await kernel.list_turns(session_id)


def stopped_turn(stack: Stack, session: str) -> list[dict[str, object]]:
    """A foreground turn stopped while its tool runs (`maka interrupt`); its JSON events."""
    command = [require("maka"), "--json", "turn", session, "sleep 300"]
    events = []
    with subprocess.Popen(
        command, env=stack.client_env(), stdout=subprocess.PIPE, text=True
    ) as turn:
        assert turn.stdout is not None
        for line in turn.stdout:
            events.append(json.loads(line))
            if "tool_call" in events[-1]:
                stack.maka("interrupt", session)
        assert turn.wait(30) is not None
    return events


def test_the_stack_runs_a_session_and_comes_back_with_every_final_state(stack: Stack) -> None:
    start = time.monotonic()
    stack.compose("up", "-d")
    healthy = stack.wait_healthy()
    print(f"stack up and healthy in {time.monotonic() - start:.1f} s (health {healthy:.1f} s)")
    session = stack.maka("new", "--remote", "--permission-mode", "bypass", "/workspace").strip()

    out = stack.maka("turn", session, "echo made-in-the-stack > note.txt && cat note.txt && id -u")
    assert "made-in-the-stack" in out and "10001" in out and "turn completed" in out

    background = stack.maka("--json", "turn", session, "/bg bash")
    match = REF.search(background)
    assert match, background
    ref = match.group(0)
    assert "attached-ok 2" in stack.in_resource("python", "-c", ATTACH, ref)  # RUN_MODE_PTY

    events = stopped_turn(stack, session)
    state = events[-1]["turn_state"]
    assert isinstance(state, dict) and state["status"] == "TURN_STATUS_ABORTED", events[-3:]

    start = time.monotonic()
    stack.compose("stop")
    print(f"stack stopped in {time.monotonic() - start:.1f} s")
    logs = stack.logs("kernel") + stack.logs("resource")
    assert (stack.exit_code("kernel"), stack.exit_code("resource")) == (0, 0), logs
    assert "maka-kernel stopped" in stack.logs("kernel")
    assert "maka-resource stopped" in stack.logs("resource")

    stack.compose("down")  # the containers go, the volumes stay
    stack.compose("up", "-d")
    stack.wait_healthy()
    turns = asyncio.run(turns_of(stack, session))
    assert [t.status for t in turns] == [
        kpb.TURN_STATUS_COMPLETED,
        kpb.TURN_STATUS_COMPLETED,
        kpb.TURN_STATUS_ABORTED,
    ]
    listed = stack.in_resource("maka", "--json", "ps", "--all").splitlines()
    runs = [json.loads(line) for line in listed if line]
    statuses = {r["ref"]: r["status"] for r in runs}
    assert len(statuses) == 3 and set(statuses.values()) <= TERMINAL_RUNS, runs
    assert statuses[ref] == "RUN_STATUS_CANCELLED"  # the PTY run, ended by the shutdown cascade

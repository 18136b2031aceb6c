"""The pair on two hosts: kernel and resource service in two network namespaces joined only by
a veth pair (192.0.2.0/24, a documentation range, only inside the namespaces made here), TLS on
both listeners and mutual TLS on the link, no shared loopback (each namespace has its own
``lo``; the CLI runs on the kernel's host and calls it at its link address).

A turn's tool call crosses the link; SIGTERM to the kernel shuts the other host's service down
(the cascade); a resource host that disappears (its link down, its process killed) fails turns
cleanly, and the kernel finds it again once it is back.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.deploy.conftest import DEPLOY, require, require_root, run
from tests.support.processes import ServiceProcess, service_command

pytestmark = pytest.mark.deploy

KERNEL_IP, RESOURCE_IP = "192.0.2.1", "192.0.2.2"
KERNEL_ADDRESS, RESOURCE_ADDRESS = f"{KERNEL_IP}:50051", f"{RESOURCE_IP}:50052"


@dataclass
class Hosts:
    kernel_ns: str
    resource_ns: str
    resource_link: str
    secrets: Path
    workspace: Path
    tmp: Path

    def spawn(
        self, ns: str, service: str, *args: str, extra_env: dict[str, str] | None = None
    ) -> ServiceProcess:
        """*service* as a process inside namespace *ns* (its stderr collected)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("MAKA_")}
        env.update(extra_env or {})
        data_dir = self.tmp / f"{service}-data"
        command = service_command(service, ["--data-dir", str(data_dir), *args])
        process = subprocess.Popen(
            ["ip", "netns", "exec", ns, *command],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        handle = ServiceProcess(service=service, process=process)
        handle._reader = threading.Thread(target=handle._read, daemon=True)
        handle._reader.start()
        handle.wait_bound()
        return handle

    def resource(self) -> ServiceProcess:
        files = self.secrets / "resource"
        return self.spawn(
            *(self.resource_ns, "resource", "--listen", RESOURCE_ADDRESS),
            *("--tls-cert", str(files / "tls.crt"), "--tls-key", str(files / "tls.key")),
            *("--tls-client-ca", str(files / "ca.pem"), "--token-file", str(files / "tokens.json")),
            # Only the resource host has HOST_ROLE, and its runs are let see it: a run that prints
            # it ran there (its sandbox has no network of its own host to look at).
            *("--sandbox-env-allow", "HOST_ROLE"),
            extra_env={"HOST_ROLE": "the-resource-host"},
        )

    def kernel(self) -> ServiceProcess:
        files = self.secrets / "kernel"
        return self.spawn(
            *(self.kernel_ns, "kernel", "--listen", KERNEL_ADDRESS),
            *("--tls-cert", str(files / "tls.crt"), "--tls-key", str(files / "tls.key")),
            *("--token-file", str(files / "tokens.json"), "--resource-address", RESOURCE_ADDRESS),
            *("--resource-tls-ca", str(files / "ca.pem")),
            *("--resource-tls-cert", str(files / "link.crt")),
            *("--resource-tls-key", str(files / "link.key")),
            *("--default-backend", "shell", "--resource-timeout", "3", "--shutdown-grace", "5"),
        )

    def maka(self, *args: str) -> subprocess.CompletedProcess[str]:
        """The CLI, run on the kernel's host (its namespace), with the client credential."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("MAKA_")}
        env["MAKA_TOKEN"] = (self.secrets / "client" / "token").read_text().strip()
        env["MAKA_TLS_CA"] = str(self.secrets / "client" / "ca.pem")
        command = ["ip", "netns", "exec", self.kernel_ns, require("maka"), "--kernel"]
        return run([*command, KERNEL_ADDRESS, *args], env=env, check=False, timeout=60)

    def new_session(self) -> str:
        created = self.maka("new", "--permission-mode", "bypass", str(self.workspace))
        assert created.returncode == 0, created.stderr
        return created.stdout.strip()

    def turn(self, session: str, command: str) -> tuple[list[dict[str, object]], float]:
        """A turn's JSON events, and how long it took."""
        start = time.monotonic()
        result = self.maka("--json", "turn", session, command)
        events = [json.loads(line) for line in result.stdout.splitlines() if line]
        assert events, result.stderr
        return events, time.monotonic() - start

    def link(self, state: str) -> None:
        run(["ip", "-n", self.resource_ns, "link", "set", self.resource_link, state])


def status(events: list[dict[str, object]]) -> str:
    state = events[-1].get("turn_state")
    assert isinstance(state, dict), events[-3:]
    return str(state["status"])


def outputs(events: list[dict[str, object]]) -> str:
    chunks = [e["tool_output"] for e in events if "tool_output" in e]
    return "".join(str(c.get("text", "")) for c in chunks if isinstance(c, dict))


def error_codes(events: list[dict[str, object]]) -> list[str]:
    errors = [e["error"] for e in events if "error" in e]
    return [str(error.get("code")) for error in errors if isinstance(error, dict)]


@pytest.fixture
def hosts(tmp_path: Path) -> Iterator[Hosts]:
    require_root()
    require("ip")
    require("openssl")
    tag = str(os.getpid() % 100000)
    kernel_ns, resource_ns = f"maka-k{tag}", f"maka-r{tag}"
    kernel_link, resource_link = f"mk{tag}", f"mr{tag}"
    secrets = tmp_path / "secrets"
    env = {
        **os.environ,
        "MAKA_KERNEL_SAN": f"IP:{KERNEL_IP}",
        "MAKA_RESOURCE_SAN": f"IP:{RESOURCE_IP}",
    }
    run([str(DEPLOY / "credentials.sh"), str(secrets)], env=env)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    try:
        run(["ip", "netns", "add", kernel_ns])
        run(["ip", "netns", "add", resource_ns])
        veth = ["type", "veth", "peer", "name", resource_link, "netns", resource_ns]
        run(["ip", "link", "add", kernel_link, "netns", kernel_ns, *veth])
        for ns, link, ip in (
            (kernel_ns, kernel_link, KERNEL_IP),
            (resource_ns, resource_link, RESOURCE_IP),
        ):
            run(["ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", link])
            run(["ip", "-n", ns, "link", "set", link, "up"])
            run(["ip", "-n", ns, "link", "set", "lo", "up"])
        yield Hosts(kernel_ns, resource_ns, resource_link, secrets, workspace, tmp_path)
    finally:
        for ns in (kernel_ns, resource_ns):  # the veth pair goes with its namespaces
            run(["ip", "netns", "del", ns], check=False)


def test_a_turn_crosses_the_link_and_the_cascade_reaches_the_other_host(hosts: Hosts) -> None:
    resource = hosts.resource()
    kernel = hosts.kernel()
    try:
        session = hosts.new_session()
        events, took = hosts.turn(session, "echo across-the-link; echo $HOST_ROLE")
        assert status(events) == "TURN_STATUS_COMPLETED", events[-3:]
        assert outputs(events) == "across-the-link\nthe-resource-host\n"  # ran on the other host
        print(f"two hosts: a turn with a tool call in {took:.2f} s")

        start = time.monotonic()
        kernel.signal(signal.SIGTERM)
        assert kernel.wait(30) == 0, kernel.stderr
        assert resource.wait(30) == 0, resource.stderr
        print(f"two hosts: shutdown cascade in {time.monotonic() - start:.2f} s")
        assert "could not shut the resource service down" not in kernel.stderr
        assert "maka-resource shutting down" in resource.stderr
    finally:
        kernel.kill()
        resource.kill()


def test_a_resource_host_that_disappears_fails_turns_and_the_kernel_recovers(
    hosts: Hosts,
) -> None:
    resource = hosts.resource()
    kernel = hosts.kernel()
    try:
        session = hosts.new_session()
        events, _ = hosts.turn(session, "echo before")
        assert status(events) == "TURN_STATUS_COMPLETED", events[-3:]

        hosts.link("down")  # the host is unreachable: packets go nowhere, nothing answers
        events, took = hosts.turn(session, "echo while-the-link-is-down")
        assert status(events) == "TURN_STATUS_FAILED", events[-3:]
        assert "resource_unavailable" in error_codes(events), events
        # Each call has --resource-timeout (3 s); cleaning up the run that may have started
        # gets 15 s more (README: failures between the two).
        assert took < 30, took
        print(f"two hosts: link down fails a turn in {took:.2f} s")
        hosts.link("up")
        events, _ = hosts.turn(session, "echo link-back")
        assert status(events) == "TURN_STATUS_COMPLETED", events[-3:]
        assert outputs(events) == "link-back\n"

        resource.kill()  # the host's service is gone: connections are refused
        events, took = hosts.turn(session, "echo while-it-is-gone")
        assert status(events) == "TURN_STATUS_FAILED", events[-3:]
        assert "resource_unavailable" in error_codes(events), events
        print(f"two hosts: a killed resource service fails a turn in {took:.2f} s")
        resource = hosts.resource()
        events, took = hosts.turn(session, "echo found-again")
        assert status(events) == "TURN_STATUS_COMPLETED", events[-3:]
        assert outputs(events) == "found-again\n"
        print(f"two hosts: the kernel found the restarted service in {took:.2f} s")
    finally:
        kernel.terminate(30)
        resource.kill()

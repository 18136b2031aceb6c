"""The launcher behind ``./dev up``: starts the pair, wires the kernel to the resource service,
stops both on Ctrl-C."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from maka_runtime_proto.kernel.v1 import kernel_pb2, kernel_pb2_grpc

from tests.support.processes import wait_for_exit

UP = re.compile(r"kernel (\S+), resource (\S+)\.")


def test_launcher_starts_both_and_stops_both_on_ctrl_c(data_dir: Path) -> None:
    launcher = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "maka_runtime_client.launcher",
            "--kernel-listen",
            "127.0.0.1:0",
            "--resource-listen",
            "127.0.0.1:0",
            "--data-dir",
            str(data_dir),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert launcher.stdout is not None
        banner = launcher.stdout.readline()
        match = UP.search(banner)
        assert match, banner
        kernel, resource = match.groups()
        pids = []
        for address in (kernel, resource):
            with grpc.insecure_channel(address) as channel:
                reply = health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(), timeout=10
                )
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
        with grpc.insecure_channel(kernel) as channel:
            info = kernel_pb2_grpc.KernelServiceStub(channel).GetServerInfo(
                kernel_pb2.GetServerInfoRequest(), timeout=10
            )
            pids.append(info.pid)
        assert (data_dir / "kernel").is_dir() and (data_dir / "resource").is_dir()
        launcher.send_signal(signal.SIGINT)
        out, err = launcher.communicate(timeout=30)
        assert launcher.returncode == 0, err
        assert "Maka Runtime stopped." in out
        assert "maka-kernel stopped" in err and "maka-resource stopped" in err
        assert all(wait_for_exit(pid, timeout=5) for pid in pids)
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.communicate()


def test_ctrl_c_at_a_terminal_reaches_only_the_launcher(data_dir: Path) -> None:
    """Regression: the services shared the terminal's process group, so a Ctrl-C hit them
    directly, in no particular order, and the launcher reported a failure."""
    import pexpect

    child = pexpect.spawn(
        sys.executable,
        [
            "-m",
            "maka_runtime_client.launcher",
            "--kernel-listen",
            "127.0.0.1:0",
            "--resource-listen",
            "127.0.0.1:0",
            "--data-dir",
            str(data_dir),
        ],
        encoding="utf-8",
        timeout=30,
    )
    child.expect(UP)
    child.sendintr()
    # The kernel shuts down first and its cascade then shuts the resource service down (once:
    # a second request would be a hard stop); which "stopped" line comes first is a race.
    child.expect(r"maka-kernel shutting down \(SIGTERM\)")
    child.expect(r"maka-resource shutting down \(Shutdown RPC\)")
    child.expect("Maka Runtime stopped.")
    assert child.before.count("stopped") >= 2
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


#: Run *code*'s ``main`` in an interpreter where the server package cannot be found (the client
#: distribution installed alone): ``sys.modules[name] = None`` makes every lookup of it fail.
WITHOUT_SERVERS = "import sys; sys.modules['maka_runtime'] = None; from {module} import main; "


@pytest.mark.parametrize(
    ("module", "args", "prefix"),
    [
        ("maka_runtime_client.launcher", [], "maka-up: error: "),
        (
            "maka_runtime_client.cli",
            ["--kernel", "127.0.0.1:0", "--resource", "127.0.0.1:0", "up"],
            "maka: error: ",
        ),
    ],
)
def test_without_the_server_distribution_up_says_what_to_install(
    data_dir: Path, module: str, args: list[str], prefix: str
) -> None:
    """Where only maka-runtime-client is installed, ``maka up`` (and the launcher) start nothing
    and name the distribution to install, instead of two services that die on an import."""
    argv = [*args, "--data-dir", str(data_dir)]
    if module.endswith("launcher"):
        argv += ["--kernel-listen", "127.0.0.1:0", "--resource-listen", "127.0.0.1:0"]
    code = WITHOUT_SERVERS.format(module=module) + f"sys.exit(main({argv!r}))"
    launcher = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = launcher.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        launcher.send_signal(signal.SIGINT)  # it started the pair: stop both cleanly
        out, err = launcher.communicate(timeout=30)
    assert launcher.returncode == 1, out + err
    assert err.startswith(prefix), err
    assert "pip install maka-runtime" in err
    assert "listening" not in err and "is up" not in out

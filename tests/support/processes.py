"""Start ``maka-kernel`` / ``maka-resource`` as real processes and wait for their address.

A service logs ``<name> listening on HOST:PORT`` once bound; :func:`start_service` waits for
that line (a sentinel, not a sleep) and returns a handle whose ``address`` has the real port.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests.support import auth, sandbox

LISTENING = re.compile(r"(maka-\w+) listening on (\S+):(\d+)")
MODULES = {"kernel": "maka_runtime.kernel.server", "resource": "maka_runtime.resource.server"}


@dataclass
class ServiceProcess:
    """A running service process; its stderr is collected line by line."""

    service: str
    process: subprocess.Popen[str]
    address: str = ""
    lines: list[str] = field(default_factory=list)
    _reader: threading.Thread | None = None
    _bound: threading.Event = field(default_factory=threading.Event)
    _new_line: threading.Condition = field(default_factory=threading.Condition)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def stderr(self) -> str:
        return "".join(self.lines)

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self._new_line:
                self.lines.append(line)
                self._new_line.notify_all()
            match = LISTENING.search(line)
            if match and not self._bound.is_set():
                self.address = f"{match.group(2)}:{match.group(3)}"
                self._bound.set()
        self.process.stderr.close()
        self._bound.set()

    def wait_logged(self, text: str, timeout: float = 20.0) -> bool:
        """True once a line containing *text* was logged (woken by each new line)."""
        with self._new_line:
            return self._new_line.wait_for(lambda: text in self.stderr, timeout)

    def wait_bound(self, timeout: float = 20.0) -> str:
        if not self._bound.wait(timeout) or not self.address:
            self.kill()
            raise AssertionError(f"{self.service} did not start:\n{self.stderr}")
        return self.address

    def signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signum)

    def wait(self, timeout: float = 20.0) -> int:
        code = self.process.wait(timeout)
        if self._reader is not None:
            self._reader.join(timeout)
        return code

    def terminate(self, timeout: float = 20.0) -> int:
        self.signal(signal.SIGTERM)
        return self.wait(timeout)

    def kill(self) -> None:
        self.signal(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(10)


#: A kernel started on its own: scripted sessions by default, and never the developer's real
#: resource service on the default port (nothing listens on port 1).
KERNEL_ALONE = (
    "--default-backend",
    "scripted",
    "--resource-address",
    "127.0.0.1:1",
    "--shutdown-resource",
    "no",
)


def service_command(service: str, args: Sequence[str]) -> list[str]:
    return [sys.executable, "-m", MODULES[service], *args]


def refused_at_start(service: str, args: Sequence[str]) -> subprocess.CompletedProcess[str]:
    """*service* started with *args*, expected to refuse them and exit at once."""
    return subprocess.run(
        service_command(service, args), capture_output=True, text=True, timeout=60, check=False
    )


def spawn_service(
    service: str,
    data_dir: Path,
    *args: str,
    env: dict[str, str] | None = None,
) -> ServiceProcess:
    """Start *service* on ``127.0.0.1:0`` with *data_dir*; do not wait for it."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("MAKA_")}
    # The suite's credential (tests.support.auth): the service accepts it, its kernel's link
    # sends it.
    full_env.update(auth.ENV)
    # The suite's helpers and Python are readable inside every run's sandbox.
    full_env.update(sandbox.ENV)
    full_env.update(env or {})
    # Later flags win: a test of the pair passes its own backend and resource address.
    defaults = KERNEL_ALONE if service == "kernel" else ()
    process = subprocess.Popen(
        service_command(
            service, ["--listen", "127.0.0.1:0", "--data-dir", str(data_dir), *defaults, *args]
        ),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=full_env,
    )
    handle = ServiceProcess(service=service, process=process)
    handle._reader = threading.Thread(target=handle._read, daemon=True)
    handle._reader.start()
    return handle


@contextlib.contextmanager
def running_service(
    service: str, data_dir: Path, *args: str, env: dict[str, str] | None = None
) -> Iterator[ServiceProcess]:
    """Start *service*, wait until it listens, and make sure it is gone afterwards."""
    handle = spawn_service(service, data_dir, *args, env=env)
    try:
        handle.wait_bound()
        yield handle
    finally:
        if handle.process.poll() is None:
            handle.signal(signal.SIGTERM)
            try:
                handle.process.wait(15)
            except subprocess.TimeoutExpired:
                handle.kill()


def wait_for_exit(pid: int, timeout: float = 10.0) -> bool:
    """True once *pid* has exited (works for processes that are not our children).

    A pidfd becomes readable when the process exits: an event, not a polling loop.
    """
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
        return bool(ready)
    finally:
        os.close(fd)

"""What every benchmark shares: start a server process and wait for its "listening" line.

A service (``maka-kernel``, ``maka-resource``) or a baseline echo server logs
``<name> listening on HOST:PORT`` once it is bound and serving; :func:`start` waits for that
line (never a sleep), keeps draining the log so the pipe never fills, and returns a handle with
the address, the credential of its data directory, how long the start took, and its memory.
A server that exits before it listens, or does not listen in time, fails loudly with its log.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from maka_runtime.common.auth import local_token_path

LISTENING = re.compile(r"listening on (\S+:\d+)")
MODULES = {"kernel": "maka_runtime.kernel.server", "resource": "maka_runtime.resource.server"}
START_TIMEOUT_S = 60.0


class BenchError(RuntimeError):
    """A benchmark could not measure what it set out to (a server failed, a call failed)."""


@dataclass
class Server:
    """A running server process."""

    name: str
    process: subprocess.Popen[str]
    address: str
    #: Seconds from spawning the process to its "listening" line (bound and serving).
    started_in_s: float
    data_dir: Path | None = None
    log: list[str] = field(default_factory=list)

    @property
    def token(self) -> str:
        """The local credential of the server's data directory (principal ``local``, every
        role)."""
        if self.data_dir is None:
            raise BenchError(f"{self.name} has no data directory, so no local credential")
        return local_token_path(self.data_dir).read_text().strip()

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"),)

    def rss_bytes(self) -> int:
        """The process's resident memory now (``VmRSS``)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise BenchError(f"no VmRSS for {self.name}")

    def cpu_seconds(self) -> float:
        """The CPU time the process has used so far, user and system, all threads."""
        return _stat_cpu_seconds(Path(f"/proc/{self.process.pid}/stat"))

    def loop_cpu_seconds(self) -> float:
        """The CPU time of the process's main thread so far: the thread of its event loop
        (every server here runs its loop there; its other threads are gRPC's, SQLite's)."""
        pid = self.process.pid
        return _stat_cpu_seconds(Path(f"/proc/{pid}/task/{pid}/stat"))

    def check_alive(self) -> None:
        if self.process.poll() is not None:
            raise BenchError(
                f"{self.name} exited with {self.process.returncode}:\n{''.join(self.log[-40:])}"
            )

    def stop(self, timeout: float = 30.0) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                return self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.wait(timeout)


def _stat_cpu_seconds(stat: Path) -> float:
    """User and system CPU seconds of a ``/proc/…/stat`` (a process's or one thread's)."""
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without any ``MAKA_*`` setting (a benchmark measures the
    defaults), plus *extra*."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKA_")}
    env.update(extra or {})
    return env


def start(
    name: str,
    argv: Sequence[str],
    *,
    data_dir: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = START_TIMEOUT_S,
    cwd: Path | None = None,
) -> Server:
    """Spawn *argv* (in *cwd*, if given) and wait for its ``listening on HOST:PORT`` line."""
    began = time.perf_counter()
    process = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(env),
        cwd=cwd,
    )
    log: list[str] = []
    bound: list[str] = []
    done = threading.Event()
    # The reader drains the log for as long as the process lives, so its pipe never fills.
    threading.Thread(target=_read, args=(process, log, bound, done), daemon=True).start()
    if not done.wait(timeout) or not bound:
        process.kill()
        process.wait(10)
        why = f"did not listen within {timeout:.0f} s" if not done.is_set() else "exited"
        raise BenchError(f"{name} {why}:\n{''.join(log[-40:])}")
    took = time.perf_counter() - began
    return Server(name, process, bound[0], took, data_dir, log)


def _read(
    process: subprocess.Popen[str], log: list[str], bound: list[str], done: threading.Event
) -> None:
    assert process.stderr is not None
    with process.stderr:  # closed at its end of file: the process has gone
        for line in process.stderr:
            log.append(line)
            del log[:-200]
            match = LISTENING.search(line)
            if match and not bound:
                bound.append(match.group(1))
                done.set()
    done.set()


def start_service(
    service: str, data_dir: Path, *args: str, env: dict[str, str] | None = None
) -> Server:
    """Start ``maka-kernel`` or ``maka-resource`` on ``127.0.0.1:0`` with *data_dir*."""
    argv = [sys.executable, "-m", MODULES[service], "--listen", "127.0.0.1:0"]
    argv += ["--data-dir", str(data_dir), *args]
    return start(f"maka-{service}", argv, data_dir=data_dir, env=env)


@dataclass
class Pair:
    """A kernel and its resource service on one data directory, as ``./dev up`` runs them."""

    kernel: Server
    resource: Server

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return self.kernel.metadata

    @property
    def token(self) -> str:
        return self.kernel.token


@contextlib.contextmanager
def running_pair(data_dir: Path, *kernel_args: str) -> Iterator[Pair]:
    """The pair on *data_dir* (the resource service first; the kernel links to it), stopped
    afterwards."""
    resource = start_service("resource", data_dir, "--max-live-runs", "64")
    try:
        kernel = start_service(
            "kernel", data_dir, "--resource-address", resource.address, *kernel_args
        )
        try:
            yield Pair(kernel, resource)
        finally:
            kernel.stop()
    finally:
        resource.stop()


@contextlib.contextmanager
def running(server: Server) -> Iterator[Server]:
    try:
        yield server
    finally:
        server.stop()


def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def percentile(values: Sequence[float], q: float) -> float:
    """The *q*-quantile (0..1) of *values*, nearest rank."""
    ordered = sorted(values)
    if not ordered:
        raise BenchError("no samples")
    rank = max(0, min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1))
    return ordered[rank]

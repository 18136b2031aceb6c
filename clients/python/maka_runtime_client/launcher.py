"""Start the service pair locally and stop it cleanly: ``python -m maka_runtime_client.launcher``.

The resource service starts first (admitting only the sessions the kernel registers); once it
listens, the kernel starts pointed at it. Ctrl-C (or SIGTERM) stops the kernel, whose shutdown
stops its turns and then shuts the resource service down (the cascade); the launcher waits for
both and signals the resource service itself only if it is still running after that. If either
service dies, the other is stopped too and the launcher exits non-zero.

The services come from the server distribution ``maka-runtime``; where only this client
distribution is installed, the launcher says so and what to install (exit 1).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import os
import re
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

#: How long the resource service gets to exit after the kernel (its shutdown cascade) stopped.
CASCADE_WAIT = 30.0
LISTENING = re.compile(r"(maka-\w+) listening on (\S+:\d+)")
#: Where the server distribution is missing: what to install.
SERVERS_MISSING = (
    "the services are not installed here (maka-runtime-client is the SDK and the maka command "
    "line only); install the server distribution: pip install maka-runtime"
)


def servers_installed() -> bool:
    """Whether this interpreter can run the services (the package ``maka_runtime``)."""
    return importlib.util.find_spec("maka_runtime") is not None


class ServiceChild:
    def __init__(self, name: str, process: asyncio.subprocess.Process) -> None:
        self.name = name
        self.process = process
        self.address: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.pump = asyncio.ensure_future(self._pump())

    async def _pump(self) -> None:
        assert self.process.stderr is not None
        async for raw in self.process.stderr:
            line = raw.decode(errors="replace")
            sys.stderr.write(line)
            match = LISTENING.search(line)
            if match and not self.address.done():
                self.address.set_result(match.group(2))
        if not self.address.done():
            self.address.set_exception(RuntimeError(f"{self.name} exited before listening"))

    async def stop(self) -> int:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGTERM)
        code = await self.process.wait()
        await self.pump
        return code


async def start(name: str, module: str, args: Sequence[str]) -> ServiceChild:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        module,
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        # Out of the terminal's process group: Ctrl-C reaches only the launcher, which then
        # stops the kernel before the resource service (the kernel's turns use its tools).
        start_new_session=True,
    )
    return ServiceChild(name, process)


async def run(options: argparse.Namespace) -> int:
    children: list[ServiceChild] = []
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await _start_pair(options, children)
        exited = [asyncio.ensure_future(child.process.wait()) for child in children]
        stopper = asyncio.ensure_future(stop.wait())
        done, _ = await asyncio.wait([stopper, *exited], return_when=asyncio.FIRST_COMPLETED)
        stopper.cancel()
        failed = stopper not in done
    except RuntimeError as error:
        print(f"maka: {error}", file=sys.stderr)
        failed = True
    codes = await _stop_all(children)
    if failed or any(codes):
        return 1
    print("Maka Runtime stopped.", flush=True)
    return 0


async def _start_pair(options: argparse.Namespace, children: list[ServiceChild]) -> None:
    """Start the resource service, then the kernel pointed at it (each added to *children*
    as soon as it runs, so a failure later still stops it)."""
    common = ["--data-dir", str(options.data_dir)] if options.data_dir else []
    common += ["--log-level", options.log_level]
    resource = await start(
        "maka-resource",
        "maka_runtime.resource.server",
        ["--listen", options.resource_listen, *common],
    )
    children.append(resource)
    resource_address = await resource.address
    kernel = await start(
        "maka-kernel",
        "maka_runtime.kernel.server",
        ["--listen", options.kernel_listen, "--resource-address", resource_address, *common],
    )
    children.append(kernel)
    kernel_address = await kernel.address
    print(
        f"Maka Runtime is up: kernel {kernel_address}, resource {resource_address}. "
        "Press Ctrl-C to stop.",
        flush=True,
    )
    if options.data_dir is not None:
        # Clients find the local credential in the default data directory by themselves.
        print(
            f"Clients: export MAKA_DATA_DIR={options.data_dir} (its credentials/local.token "
            "is the local credential).",
            flush=True,
        )


async def _stop_all(children: list[ServiceChild]) -> list[int]:
    """Stop the kernel, then the resource service; their exit codes."""
    codes: list[int] = []
    for child in reversed(children):
        if codes == [0] and child.process.returncode is None:
            # The kernel stopped cleanly, so its cascade is shutting the resource service down:
            # let it exit on its own (a second shutdown request would cut its drain short).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(child.process.wait()), CASCADE_WAIT)
        codes.append(await child.stop())
    return codes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="maka-up", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--kernel-listen", default=os.environ.get("MAKA_KERNEL_LISTEN", "127.0.0.1:50051")
    )
    parser.add_argument(
        "--resource-listen", default=os.environ.get("MAKA_RESOURCE_LISTEN", "127.0.0.1:50052")
    )
    parser.add_argument("--data-dir", type=Path, default=None, help="default: per-user data dir")
    parser.add_argument("--log-level", default="info")
    options = parser.parse_args(argv)
    if not servers_installed():
        print(f"maka-up: error: {SERVERS_MISSING}", file=sys.stderr)
        return 1
    return asyncio.run(run(options))


if __name__ == "__main__":
    raise SystemExit(main())

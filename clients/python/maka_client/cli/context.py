"""What every command gets: the service addresses, the output, and clients opened on demand."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from maka_client._kernel import KernelClient
from maka_client._resource import ResourceClient
from maka_client._transport import ClientOptions
from maka_client.cli.output import Output
from maka_client.errors import ConflictError, NotFoundError

DEFAULT_KERNEL = "127.0.0.1:50051"
DEFAULT_RESOURCE = "127.0.0.1:50052"
DEFAULT_SESSION = "default"
OPTIONS = ClientOptions(client_name="maka-cli")


def default_session() -> str:
    """The session runs belong to without ``--session``: ``$MAKA_SESSION``, else "default"."""
    return os.environ.get("MAKA_SESSION") or DEFAULT_SESSION


async def session_for(ctx: Context, explicit: str | None) -> str:
    """The session of a run command: ``--session``, else ``$MAKA_SESSION``, else "default".

    The resource service admits only sessions the kernel knows (unless it runs standalone), so
    the "default" session is created in the kernel on first use (workspace: your home).
    """
    if explicit or os.environ.get("MAKA_SESSION"):
        return explicit or default_session()
    async with ctx.resource() as resource:
        info = await resource.get_server_info()
    if info.standalone:
        return DEFAULT_SESSION
    async with ctx.kernel() as kernel:
        try:
            await kernel.get_session(DEFAULT_SESSION)
        except NotFoundError:
            with contextlib.suppress(ConflictError):  # another maka made it meanwhile
                home = str(Path.home())
                await kernel.create_session(home, session_id=DEFAULT_SESSION, name="maka CLI runs")
    return DEFAULT_SESSION


@dataclass
class Context:
    """Addresses and output of one ``maka`` invocation."""

    kernel_address: str
    resource_address: str
    out: Output

    def kernel(self) -> KernelClient:
        """A new kernel client (use it as ``async with``)."""
        return KernelClient(self.kernel_address, options=OPTIONS)

    def resource(self) -> ResourceClient:
        """A new resource client (use it as ``async with``)."""
        return ResourceClient(self.resource_address, options=OPTIONS)


class CommandError(Exception):
    """A failure the CLI itself detects; printed like a service error."""

    def __init__(self, message: str, reason: str = "USAGE") -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason

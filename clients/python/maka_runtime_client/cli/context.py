"""What every command gets: the service addresses, the output, and clients opened on demand."""

from __future__ import annotations

from dataclasses import dataclass, field

from maka_runtime_client._kernel import KernelClient
from maka_runtime_client._resource import ResourceClient
from maka_runtime_client._transport import ClientOptions
from maka_runtime_client.cli.output import Output

DEFAULT_KERNEL = "127.0.0.1:50051"
DEFAULT_RESOURCE = "127.0.0.1:50052"
OPTIONS = ClientOptions(client_name="maka-cli")


@dataclass
class Context:
    """Addresses and output of one ``maka`` invocation."""

    kernel_address: str
    resource_address: str
    out: Output
    #: Client settings: the credential (``--token``, TLS files) over :data:`OPTIONS`.
    options: ClientOptions = field(default_factory=lambda: OPTIONS)

    def kernel(self) -> KernelClient:
        """A new kernel client (use it as ``async with``)."""
        return KernelClient(self.kernel_address, options=self.options)

    def resource(self) -> ResourceClient:
        """A new resource client (use it as ``async with``)."""
        return ResourceClient(self.resource_address, options=self.options)


class CommandError(Exception):
    """A failure the CLI itself detects; printed like a service error."""

    def __init__(self, message: str, reason: str = "USAGE") -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason

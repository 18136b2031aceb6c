"""The asyncio clients: ``from maka_runtime_client.aio import KernelClient, ResourceClient``."""

from __future__ import annotations

from maka_runtime_client._kernel import KernelClient, TurnStream, is_turn_end
from maka_runtime_client._lease import ControllerLease
from maka_runtime_client._resource import ResourceClient
from maka_runtime_client._resume import ResumableStream
from maka_runtime_client._transport import ClientOptions, ResumePolicy

__all__ = [
    "ClientOptions",
    "ControllerLease",
    "KernelClient",
    "ResourceClient",
    "ResumableStream",
    "ResumePolicy",
    "TurnStream",
    "is_turn_end",
]

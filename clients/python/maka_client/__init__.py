"""Python SDK of Maka Runtime.

``maka_client.aio`` has the asyncio clients, ``maka_client.sync`` their blocking twins;
``maka_client.errors`` the typed exceptions every call raises. The names below are the pinned
public surface (``tests/sdk/test_exported_members.py``).
"""

from maka_client import aio, errors, sync
from maka_client._kernel import KernelClient, TurnStream, is_turn_end
from maka_client._lease import ControllerLease
from maka_client._resource import ResourceClient
from maka_client._resume import ResumableStream
from maka_client._transport import ClientOptions, ResumePolicy
from maka_client.errors import (
    AlreadyExistsError,
    AlreadyResolvedError,
    ClientClosedError,
    ConflictError,
    DrainingError,
    InvalidRequestError,
    LeaseLostError,
    MakaError,
    MessageQueueFullError,
    NotFoundError,
    OutOfRangeError,
    ResourceExhaustedError,
    ResumeFailedError,
    ServerError,
    SessionArchivedError,
    SessionBusyError,
    SessionQuarantinedError,
    UnavailableError,
)

__all__ = [
    "AlreadyExistsError",
    "AlreadyResolvedError",
    "ClientClosedError",
    "ClientOptions",
    "ConflictError",
    "ControllerLease",
    "DrainingError",
    "InvalidRequestError",
    "KernelClient",
    "LeaseLostError",
    "MakaError",
    "MessageQueueFullError",
    "NotFoundError",
    "OutOfRangeError",
    "ResourceClient",
    "ResourceExhaustedError",
    "ResumableStream",
    "ResumeFailedError",
    "ResumePolicy",
    "ServerError",
    "SessionArchivedError",
    "SessionBusyError",
    "SessionQuarantinedError",
    "TurnStream",
    "UnavailableError",
    "aio",
    "errors",
    "is_turn_end",
    "sync",
]

"""Python SDK of Maka Runtime.

``maka_runtime_client.aio`` has the asyncio clients, ``maka_runtime_client.sync`` their blocking
twins; ``maka_runtime_client.errors`` the typed exceptions every call raises. The names below are
the pinned public surface (``tests/sdk/test_exported_members.py``).

The names load on first use (importing this package does not import ``grpc``), so that the
``maka`` command line (:mod:`maka_runtime_client.cli`) can quiet gRPC's own logging before gRPC
loads.
"""

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from maka_runtime_client import aio, errors, sync
    from maka_runtime_client._kernel import KernelClient, TurnStream, is_turn_end
    from maka_runtime_client._lease import ControllerLease
    from maka_runtime_client._resource import ResourceClient
    from maka_runtime_client._resume import ResumableStream
    from maka_runtime_client._transport import ClientOptions, ResumePolicy
    from maka_runtime_client.errors import (
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

#: Public name -> the module that defines it (submodules map to themselves).
_WHERE: dict[str, str] = {
    "aio": "maka_runtime_client.aio",
    "errors": "maka_runtime_client.errors",
    "sync": "maka_runtime_client.sync",
    "KernelClient": "maka_runtime_client._kernel",
    "TurnStream": "maka_runtime_client._kernel",
    "is_turn_end": "maka_runtime_client._kernel",
    "ControllerLease": "maka_runtime_client._lease",
    "ResourceClient": "maka_runtime_client._resource",
    "ResumableStream": "maka_runtime_client._resume",
    "ClientOptions": "maka_runtime_client._transport",
    "ResumePolicy": "maka_runtime_client._transport",
}


def __getattr__(name: str) -> _typing.Any:
    if name in _WHERE:
        module = _importlib.import_module(_WHERE[name])
        value: _typing.Any = module if _WHERE[name].endswith(f".{name}") else getattr(module, name)
    elif name in __all__:
        value = getattr(_importlib.import_module("maka_runtime_client.errors"), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


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
    "PermissionDeniedError",
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
    "UnauthenticatedError",
    "UnavailableError",
    "aio",
    "errors",
    "is_turn_end",
    "sync",
]

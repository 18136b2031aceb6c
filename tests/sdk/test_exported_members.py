"""The public surface of ``maka_runtime_client`` is pinned: adding or removing a name is a
decision."""

from __future__ import annotations

import maka_runtime_client
from maka_runtime_client import aio, sync

EXPECTED = {
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
    "UnauthenticatedError",
    "PermissionDeniedError",
    "aio",
    "errors",
    "is_turn_end",
    "sync",
}


def test_exported_members() -> None:
    assert set(maka_runtime_client.__all__) == EXPECTED
    public = {name for name in vars(maka_runtime_client) if not name.startswith("_")}
    # Submodules (aio, sync, errors; the launcher, the CLI, the keepalive policy and boundary once
    # imported) are the only extras.
    assert public - EXPECTED <= {"launcher", "cli", "keepalive", "credentials", "boundary"}
    for name in maka_runtime_client.__all__:
        value = getattr(maka_runtime_client, name)
        if isinstance(value, type):
            assert value.__module__.startswith("maka_runtime_client"), name


def test_async_and_sync_modules() -> None:
    assert set(aio.__all__) == {
        "ClientOptions",
        "ControllerLease",
        "KernelClient",
        "ResourceClient",
        "ResumableStream",
        "ResumePolicy",
        "TurnStream",
        "is_turn_end",
    }
    assert aio.KernelClient is maka_runtime_client.KernelClient
    assert set(sync.__all__) == {
        "ControllerLease",
        "KernelClient",
        "ResourceClient",
        "Stream",
        "TurnStream",
    }


def test_errors_form_one_hierarchy() -> None:
    for name in maka_runtime_client.__all__:
        value = getattr(maka_runtime_client, name)
        if isinstance(value, type) and name.endswith("Error"):
            assert issubclass(value, maka_runtime_client.MakaError), name
    assert issubclass(maka_runtime_client.LeaseLostError, maka_runtime_client.ConflictError)
    assert issubclass(maka_runtime_client.ResumeFailedError, maka_runtime_client.UnavailableError)


RESOURCE_METHODS = {
    "acquire_controller",
    "archive_session",
    "attach",
    "close",
    "connection_id",
    "get_run",
    "get_server_info",
    "list_runs",
    "read_run_output",
    "register_session",
    "run_output_pages",
    "run_foreground",
    "shutdown",
    "start_background",
    "stop_run",
    "wait_ready",
    "watch_runs",
}


def _methods(cls: type) -> set[str]:
    return {
        name for name, value in vars(cls).items() if not name.startswith("_") and callable(value)
    }


def test_resource_client_methods_are_pinned_and_the_same_in_both_modules() -> None:
    assert _methods(aio.ResourceClient) == RESOURCE_METHODS
    assert _methods(sync.ResourceClient) == RESOURCE_METHODS

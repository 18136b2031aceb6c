"""The public surface of the domain core, and the layering rule that keeps gRPC out of it."""

from __future__ import annotations

import subprocess
import sys

from maka_runtime.resource import core

EXPECTED = {
    "CANCELLED_MESSAGE",
    "ORPHANED_MESSAGE",
    "REF_PREFIX",
    "AttachSession",
    "BoundaryExpansion",
    "Capabilities",
    "ExecutionBoundary",
    "FilesystemAccess",
    "FilesystemEntry",
    "PathMatch",
    "PermissionProfile",
    "RunSandbox",
    "SandboxSettings",
    "Attachment",
    "BashInput",
    "ConnectionContext",
    "ControlKind",
    "ControlRequest",
    "ControlResult",
    "ControllerAcquireResult",
    "ControllerIdentity",
    "ControllerReleaseResult",
    "DrainReport",
    "DrainRung",
    "ForegroundStarted",
    "HostDrainingError",
    "InternalFailureError",
    "InvalidRequestError",
    "OutOfRangeError",
    "NotFoundError",
    "OperationConflictError",
    "OutputChunk",
    "OutputEvent",
    "OutputGap",
    "PermissionDeniedError",
    "OutputPage",
    "PersistenceFailedError",
    "PipesOutput",
    "ProcessIdentity",
    "PtyControl",
    "PtyOutput",
    "RecoveryReport",
    "Residency",
    "ResourceError",
    "ResourceExhaustedError",
    "ResourceHost",
    "RunKind",
    "RunMode",
    "RunSupervisor",
    "SandboxUnavailableError",
    "SessionAdmissionGate",
    "SessionArchivedError",
    "SessionDirectory",
    "SessionInfo",
    "SessionRegistry",
    "SessionStore",
    "ShellRunConfig",
    "ShellRunOutput",
    "ShellRunPage",
    "ShellRunPtyControlClosedError",
    "ShellRunRecord",
    "ShellRunStatus",
    "ShellRunStore",
    "ShellRunUpdate",
    "StandaloneSessionDirectory",
    "StoreClosedError",
    "check_length",
    "is_active_status",
    "parse_ref",
    "timed_out_message",
}


def test_the_exported_names_are_pinned() -> None:
    assert set(core.__all__) == EXPECTED
    for name in core.__all__:
        assert getattr(core, name) is not None


def test_error_codes_are_the_spec_codes() -> None:
    codes = {
        error.__name__: error.code
        for error in (
            core.InvalidRequestError,
            core.NotFoundError,
            core.SessionArchivedError,
            core.OperationConflictError,
            core.ShellRunPtyControlClosedError,
            core.HostDrainingError,
            core.ResourceExhaustedError,
            core.SandboxUnavailableError,
            core.PersistenceFailedError,
            core.StoreClosedError,
            core.InternalFailureError,
        )
    }
    assert codes == {
        "InvalidRequestError": "invalid_request",
        "NotFoundError": "not_found",
        "SessionArchivedError": "session_archived",
        "OperationConflictError": "operation_conflict",
        "ShellRunPtyControlClosedError": "operation_conflict",
        "HostDrainingError": "host_draining",
        "ResourceExhaustedError": "resource_exhausted",
        "SandboxUnavailableError": "sandbox_unavailable",
        "PersistenceFailedError": "persistence_failed",
        "StoreClosedError": "persistence_failed",
        "InternalFailureError": "internal_failure",
    }
    assert str(core.HostDrainingError()) == "Runtime resources are draining"


def test_the_core_and_the_store_never_import_grpc() -> None:
    probe = (
        "import sys, maka_runtime.resource.core, maka_runtime.resource.store; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('grpc', 'google') "
        "or m.endswith('_pb2') or m.endswith('_pb2_grpc')); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=30, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr

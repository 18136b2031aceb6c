"""The resource domain core: shell runs, termination, PTY screens, leases, admission, drain.

Pure asyncio and the standard library (plus pyte for the terminal emulator); never gRPC.
"""

from resource_service.core.admission import (
    SessionAdmissionGate,
    SessionDirectory,
    SessionInfo,
    SessionRegistry,
    StandaloneSessionDirectory,
)
from resource_service.core.config import ShellRunConfig
from resource_service.core.coordinator import (
    Attachment,
    ConnectionContext,
    ForegroundStarted,
    HostRuntimeResourceCoordinator,
    Residency,
)
from resource_service.core.errors import (
    HostDrainingError,
    InternalFailureError,
    InvalidRequestError,
    NotFoundError,
    OperationConflictError,
    PersistenceFailedError,
    ResourceError,
    ResourceExhaustedError,
    SessionArchivedError,
    ShellRunPtyControlClosedError,
    StoreClosedError,
)
from resource_service.core.lease import (
    ControlKind,
    ControllerAcquireResult,
    ControllerIdentity,
    ControllerReleaseResult,
    ControlRequest,
    ControlResult,
    PtyControl,
)
from resource_service.core.manager import (
    CANCELLED_MESSAGE,
    DrainReport,
    ShellRunPage,
    ShellRunProcessManager,
    ShellRunUpdate,
    timed_out_message,
)
from resource_service.core.output import OutputChunk, OutputEvent, OutputGap
from resource_service.core.records import (
    REF_PREFIX,
    PipesOutput,
    ProcessIdentity,
    PtyOutput,
    RunKind,
    RunMode,
    ShellRunOutput,
    ShellRunRecord,
    ShellRunStatus,
    is_active_status,
    parse_ref,
)
from resource_service.core.recovery import ORPHANED_MESSAGE, RecoveryReport
from resource_service.core.requests import BashInput
from resource_service.core.store import SessionStore, ShellRunStore

__all__ = [
    "CANCELLED_MESSAGE",
    "ORPHANED_MESSAGE",
    "REF_PREFIX",
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
    "ForegroundStarted",
    "HostDrainingError",
    "HostRuntimeResourceCoordinator",
    "InternalFailureError",
    "InvalidRequestError",
    "NotFoundError",
    "OperationConflictError",
    "OutputChunk",
    "OutputEvent",
    "OutputGap",
    "PersistenceFailedError",
    "PipesOutput",
    "ProcessIdentity",
    "PtyControl",
    "PtyOutput",
    "RecoveryReport",
    "Residency",
    "ResourceError",
    "ResourceExhaustedError",
    "RunKind",
    "RunMode",
    "SessionAdmissionGate",
    "SessionArchivedError",
    "SessionDirectory",
    "SessionInfo",
    "SessionRegistry",
    "SessionStore",
    "ShellRunConfig",
    "ShellRunOutput",
    "ShellRunPage",
    "ShellRunProcessManager",
    "ShellRunPtyControlClosedError",
    "ShellRunRecord",
    "ShellRunStatus",
    "ShellRunStore",
    "ShellRunUpdate",
    "StandaloneSessionDirectory",
    "StoreClosedError",
    "is_active_status",
    "parse_ref",
    "timed_out_message",
]

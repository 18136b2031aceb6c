"""The resource domain core: shell runs, termination, PTY screens, leases, admission, drain.

Pure asyncio and the standard library (plus pyte for the terminal emulator); never gRPC.

One owner per lifecycle, each owning only what the next one down does not::

    ResourceHost (host.py)          the façade the API talks to: session admission, controller
      │                             leases and who may control, Attach rules (attach.py),
      │                             residency, the fail-stop latch, the public operations
      └─ RunSupervisor (supervisor.py)  the set of live runs: live-run limits, start, stop,
           │                        controls, queries (catalog.py), begin_drain(), hurry()
           └─ LiveRun (live.py)     one run from admission to its terminal record: launch,
                │                   supervision, termination, its output (live_output.py)
                └─ ProcessHandle (process/)  one spawned command: pipes or PTY, readers,
                                    exit watch, reaping; process/termination.py alone signals

Every process starts confined (``sandbox/``): in bubblewrap as its execution boundary asks,
in a cgroup of its own where the host can make one, with the clean environment.

The drain ladder is :func:`.drain.drain` (rungs: :class:`.drain.DrainRung`); the start-up sweep
of a dead host's runs is :mod:`.recovery`. Nothing writes another object's state: each owner
changes the one below only through its methods.
"""

from maka_runtime.resource.core.admission import (
    SessionAdmissionGate,
    SessionDirectory,
    SessionInfo,
    SessionRegistry,
    StandaloneSessionDirectory,
)
from maka_runtime.resource.core.attach import AttachSession
from maka_runtime.resource.core.catalog import ShellRunPage
from maka_runtime.resource.core.config import ShellRunConfig
from maka_runtime.resource.core.drain import DrainReport, DrainRung
from maka_runtime.resource.core.errors import (
    HostDrainingError,
    InternalFailureError,
    InvalidRequestError,
    NotFoundError,
    OperationConflictError,
    OutOfRangeError,
    PermissionDeniedError,
    PersistenceFailedError,
    ResourceError,
    ResourceExhaustedError,
    SandboxUnavailableError,
    SessionArchivedError,
    ShellRunPtyControlClosedError,
    StoreClosedError,
)
from maka_runtime.resource.core.facade_types import (
    Attachment,
    ConnectionContext,
    ForegroundStarted,
    Residency,
)
from maka_runtime.resource.core.host import ResourceHost
from maka_runtime.resource.core.kept_output import OutputPage
from maka_runtime.resource.core.lease import (
    ControlKind,
    ControllerAcquireResult,
    ControllerIdentity,
    ControllerReleaseResult,
    ControlRequest,
    ControlResult,
    PtyControl,
)
from maka_runtime.resource.core.outcome import CANCELLED_MESSAGE, timed_out_message
from maka_runtime.resource.core.output import OutputChunk, OutputEvent, OutputGap
from maka_runtime.resource.core.records import (
    REF_PREFIX,
    PipesOutput,
    ProcessIdentity,
    PtyOutput,
    RunKind,
    RunMode,
    RunSandbox,
    ShellRunOutput,
    ShellRunRecord,
    ShellRunStatus,
    is_active_status,
    parse_ref,
)
from maka_runtime.resource.core.recovery import ORPHANED_MESSAGE, RecoveryReport
from maka_runtime.resource.core.requests import BashInput, check_length
from maka_runtime.resource.core.sandbox import (
    BoundaryExpansion,
    Capabilities,
    ExecutionBoundary,
    FilesystemEntry,
    SandboxSettings,
)
from maka_runtime.resource.core.sandbox.boundary import Access as FilesystemAccess
from maka_runtime.resource.core.sandbox.boundary import Match as PathMatch
from maka_runtime.resource.core.sandbox.boundary import Profile as PermissionProfile
from maka_runtime.resource.core.store import SessionStore, ShellRunStore
from maka_runtime.resource.core.supervisor import RunSupervisor, ShellRunUpdate

__all__ = [
    "CANCELLED_MESSAGE",
    "ORPHANED_MESSAGE",
    "REF_PREFIX",
    "AttachSession",
    "Attachment",
    "BashInput",
    "BoundaryExpansion",
    "Capabilities",
    "ConnectionContext",
    "ControlKind",
    "ControlRequest",
    "ControlResult",
    "ControllerAcquireResult",
    "ControllerIdentity",
    "ControllerReleaseResult",
    "DrainReport",
    "DrainRung",
    "ExecutionBoundary",
    "FilesystemAccess",
    "FilesystemEntry",
    "ForegroundStarted",
    "HostDrainingError",
    "InternalFailureError",
    "InvalidRequestError",
    "NotFoundError",
    "OperationConflictError",
    "OutOfRangeError",
    "OutputChunk",
    "OutputEvent",
    "OutputGap",
    "OutputPage",
    "PathMatch",
    "PermissionDeniedError",
    "PermissionProfile",
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
    "RunSandbox",
    "RunSupervisor",
    "SandboxSettings",
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
]

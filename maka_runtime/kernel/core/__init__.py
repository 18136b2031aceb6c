"""The kernel's domain core: pure asyncio, no gRPC, no generated code.

Public names are re-exported here; everything else is internal to its module. The API layer
imports only from here (an import contract checks it): the pinned public surface in
``__all__``, and the few shapes it converts besides (log entries, the cascade's report, the
failure description: ``StoredMessage``, ``HostShutdownReport``, ``describe``), re-exported
explicitly (``import X as X``).
"""

from maka_runtime.kernel.core.access import owner_of
from maka_runtime.kernel.core.backend import (
    AgentBackend,
    BackendRegistry,
    BackendSendInput,
    QueuedMessage,
    SandboxBoundaryResponse,
    StopMode,
    StopReason,
    TurnInbox,
    UserQuestionResponse,
)
from maka_runtime.kernel.core.errors import (
    AlreadyExistsError,
    BackendUnavailableError,
    HostDrainingError,
    InteractionAlreadyResolvedError,
    InvalidRequestError,
    KernelError,
    MessageQueueFullError,
    NotFoundError,
    OperationConflictError,
    OutOfRangeError,
    PersistenceFailedError,
    RunEndUnconfirmedError,
    RuntimeInteractionFailStopError,
    RuntimeInteractionInvariantError,
    RuntimeOwnerCleanupError,
    RunUnconfirmedQuarantineError,
    SessionArchivedError,
    SessionBusyError,
    SessionPermanentlyQuarantinedError,
    SessionQuarantinedError,
    StoreClosedError,
    TurnNotStartedError,
    combine_failures,
    contains_failure,
)
from maka_runtime.kernel.core.errors import describe as describe
from maka_runtime.kernel.core.interactions.authority import (
    AnsweringAuthority,
    HostedInteractionAuthority,
)
from maka_runtime.kernel.core.interactions.messaging import HostedMessageAuthority
from maka_runtime.kernel.core.interactions.owners import (
    InteractionAuthority,
    InteractionOwner,
    InteractionResponder,
    MessageAuthority,
    MessageOwner,
    RunIdentity,
)
from maka_runtime.kernel.core.kernel import RuntimeKernel
from maka_runtime.kernel.core.log.events import StoredMessage as StoredMessage
from maka_runtime.kernel.core.log.session_log import SessionWatch
from maka_runtime.kernel.core.log.stream import TurnStream
from maka_runtime.kernel.core.recovery import SweepReport
from maka_runtime.kernel.core.session import SessionHeader, SessionPage, SessionQuery, TurnRecord
from maka_runtime.kernel.core.sessions import NewSession, SessionUpdate
from maka_runtime.kernel.core.store import (
    InteractionRecord,
    InteractionStore,
    Resolution,
    SessionStore,
)
from maka_runtime.kernel.core.tools import HostShutdownReport as HostShutdownReport
from maka_runtime.kernel.core.turns.drain import DrainedTurn, DrainReport
from maka_runtime.kernel.core.turns.run import StopOutcome
from maka_runtime.kernel.core.validation import KernelLimits

__all__ = [
    "AgentBackend",
    "AlreadyExistsError",
    "AnsweringAuthority",
    "BackendRegistry",
    "BackendSendInput",
    "BackendUnavailableError",
    "DrainReport",
    "DrainedTurn",
    "HostDrainingError",
    "HostedInteractionAuthority",
    "HostedMessageAuthority",
    "InteractionAlreadyResolvedError",
    "InteractionAuthority",
    "InteractionOwner",
    "InteractionRecord",
    "InteractionResponder",
    "InteractionStore",
    "InvalidRequestError",
    "KernelError",
    "KernelLimits",
    "MessageAuthority",
    "MessageOwner",
    "MessageQueueFullError",
    "NewSession",
    "NotFoundError",
    "OperationConflictError",
    "OutOfRangeError",
    "PersistenceFailedError",
    "QueuedMessage",
    "Resolution",
    "RunEndUnconfirmedError",
    "RunIdentity",
    "RunUnconfirmedQuarantineError",
    "RuntimeInteractionFailStopError",
    "RuntimeInteractionInvariantError",
    "RuntimeKernel",
    "RuntimeOwnerCleanupError",
    "SandboxBoundaryResponse",
    "SessionArchivedError",
    "SessionBusyError",
    "SessionHeader",
    "SessionPage",
    "SessionPermanentlyQuarantinedError",
    "SessionQuarantinedError",
    "SessionQuery",
    "SessionStore",
    "SessionUpdate",
    "SessionWatch",
    "StopMode",
    "StopOutcome",
    "StopReason",
    "StoreClosedError",
    "SweepReport",
    "TurnInbox",
    "TurnNotStartedError",
    "TurnRecord",
    "TurnStream",
    "UserQuestionResponse",
    "combine_failures",
    "contains_failure",
    "owner_of",
]

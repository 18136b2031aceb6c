"""The kernel's domain core: pure asyncio, no gRPC, no generated code.

Public names are re-exported here; everything else is internal to its module. The API layer
imports only from here (an import contract checks it): the pinned public surface in
``__all__``, and the few shapes it converts besides (log entries, the cascade's report, the
failure description: ``StoredMessage``, ``HostShutdownReport``, ``describe``), re-exported
explicitly (``import X as X``).
"""

from kernel_service.core.access import owner_of
from kernel_service.core.backend import (
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
from kernel_service.core.errors import (
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
from kernel_service.core.errors import describe as describe
from kernel_service.core.interactions.authority import (
    AnsweringAuthority,
    HostedInteractionAuthority,
)
from kernel_service.core.interactions.messaging import HostedMessageAuthority
from kernel_service.core.interactions.owners import (
    InteractionAuthority,
    InteractionOwner,
    InteractionResponder,
    MessageAuthority,
    MessageOwner,
    RunIdentity,
)
from kernel_service.core.kernel import RuntimeKernel
from kernel_service.core.log.events import StoredMessage as StoredMessage
from kernel_service.core.log.session_log import SessionWatch
from kernel_service.core.log.stream import TurnStream
from kernel_service.core.recovery import SweepReport
from kernel_service.core.session import SessionHeader, SessionPage, SessionQuery, TurnRecord
from kernel_service.core.sessions import NewSession, SessionUpdate
from kernel_service.core.store import (
    InteractionRecord,
    InteractionStore,
    Resolution,
    SessionStore,
)
from kernel_service.core.tools import HostShutdownReport as HostShutdownReport
from kernel_service.core.turns.drain import DrainedTurn, DrainReport
from kernel_service.core.turns.run import StopOutcome
from kernel_service.core.validation import KernelLimits

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

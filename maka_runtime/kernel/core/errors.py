"""Errors raised by the kernel core.

Every error names a state and says whose fault it is; ``code`` is a stable lowercase identifier
(the API layer turns it into an upper-case ``ErrorInfo.reason``)::

    KernelError
    ├── InvalidRequestError ................ invalid_request      malformed request (``field``)
    ├── OutOfRangeError .................... out_of_range         a cursor beyond the end of the log
    ├── NotFoundError ...................... not_found            no such session / turn / request
    ├── AlreadyExistsError ................. already_exists       a client-chosen id is taken
    ├── MessageQueueFullError .............. message_queue_full   the turn's message queue is full
    ├── SessionArchivedError ............... session_archived     the session is archived
    ├── OperationConflictError ............. operation_conflict   contradicts recorded state
    │   ├── SessionBusyError ............... session_busy         another turn runs
    │   ├── InteractionAlreadyResolvedError  already_resolved     the request was answered or closed
    │   └── TurnNotStartedError ............ turn_not_started     went stale before it could start
    ├── SessionQuarantinedError ............ session_quarantined  a stopped run has not settled yet
    │   ├── SessionPermanentlyQuarantinedError                    a backend could not be disposed
    │   └── RunUnconfirmedQuarantineError                         a stopped run is unconfirmed
    ├── HostDrainingError .................. host_draining        the host is shutting down
    ├── BackendUnavailableError ............ backend_unavailable  no backend of the session's kind
    ├── PersistenceFailedError ............. persistence_failed   the session store failed
    │   └── StoreClosedError ............... store_closed         the store's owner has closed
    ├── RuntimeOwnerCleanupError ........... owner_cleanup_failed releasing a run's owners failed
    │   └── RunEndUnconfirmedError ......... owner_cleanup_failed a stopped run is not confirmed
    ├── RuntimeInteractionFailStopError .... interaction_fail_stop the interaction authority failed
    └── RuntimeInteractionInvariantError ... interaction_invariant an interaction rule was broken

Cleanup failures are aggregated by :func:`combine_failures`: one failure stays itself, several
become one :class:`RuntimeOwnerCleanupError` over an :class:`ExceptionGroup` (one
:class:`PersistenceFailedError` if all of them are refused writes); an owner error is never
wrapped twice (its causes are flattened into the new group).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import ClassVar


class KernelError(Exception):
    """Base class of every error the kernel core raises on purpose."""

    code: ClassVar[str] = "internal_failure"

    def metadata(self) -> Mapping[str, str]:
        """Machine-readable details (``ErrorInfo.metadata`` over the wire)."""
        return {}


class InvalidRequestError(KernelError):
    """The caller sent something malformed (your fault); ``field`` names the offending input."""

    code = "invalid_request"

    def __init__(self, field: str, problem: str, *, limit: int | None = None) -> None:
        self.field = field
        self.problem = problem
        #: The limit the value broke (bytes, entries …), when a limit is what it broke.
        self.limit = limit
        super().__init__(f"invalid {field}: {problem}")

    def metadata(self) -> Mapping[str, str]:
        if self.limit is None:
            return {"field": self.field}
        return {"field": self.field, "limit": str(self.limit)}


class OutOfRangeError(KernelError):
    """A cursor (``after_seq``) points beyond the end of the session's log (your fault: it
    came from another session or a lost store); ``last_seq`` is the newest entry."""

    code = "out_of_range"

    def __init__(self, field: str, value: int, last_seq: int) -> None:
        self.field = field
        self.value = value
        self.last_seq = last_seq
        super().__init__(
            f"{field} {value} is beyond the end of the log (last seq {last_seq}); "
            f"pass at most {last_seq}"
        )

    def metadata(self) -> Mapping[str, str]:
        return {"field": self.field, "last_seq": str(self.last_seq)}


class AlreadyExistsError(KernelError):
    """A client-chosen id is already taken (your fault: pick another, or get the existing one)."""

    code = "already_exists"

    def __init__(self, kind: str, identifier: str) -> None:
        self.kind = kind
        self.identifier = identifier
        super().__init__(f"{kind} {identifier!r} already exists")

    def metadata(self) -> Mapping[str, str]:
        return {"kind": self.kind, "id": self.identifier}


class MessageQueueFullError(KernelError):
    """The running turn already holds as many queued messages (or bytes) as it may; wait for
    its backend to take them at its next step."""

    code = "message_queue_full"

    def __init__(self, turn_id: str, *, limit_name: str, limit: int, current: int) -> None:
        self.turn_id = turn_id
        self.limit_name = limit_name
        self.limit = limit
        super().__init__(
            f"turn {turn_id!r} has {current} queued ({limit_name} limit {limit}); "
            "wait for the turn to take them at its next step"
        )

    def metadata(self) -> Mapping[str, str]:
        return {"turn_id": self.turn_id, "limit_name": self.limit_name, "limit": str(self.limit)}


class NotFoundError(KernelError):
    """No such thing exists (a session, a turn, an interaction request)."""

    code = "not_found"

    def __init__(self, kind: str, identifier: str, detail: str = "") -> None:
        self.kind = kind
        self.identifier = identifier
        suffix = f" {detail}" if detail else ""
        super().__init__(f"{kind} {identifier!r} not found{suffix}")

    def metadata(self) -> Mapping[str, str]:
        return {"kind": self.kind, "id": self.identifier}


class SessionArchivedError(KernelError):
    """The session is archived; unarchive it before starting turns."""

    code = "session_archived"

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        super().__init__(f"session {session_id!r} is archived; unarchive it first")


class OperationConflictError(KernelError):
    """The request contradicts state someone else recorded first."""

    code = "operation_conflict"


class SessionBusyError(OperationConflictError):
    """Another turn holds the session; wait for it to end or stop it."""

    code = "session_busy"

    def __init__(self, session_id: str, active_turn_id: str) -> None:
        self.session_id = session_id
        self.active_turn_id = active_turn_id
        super().__init__(
            f"session {session_id!r} is busy with turn {active_turn_id!r}; "
            "stop it or wait for it to end"
        )

    def metadata(self) -> Mapping[str, str]:
        return {"session_id": self.session_id, "active_turn_id": self.active_turn_id}


class InteractionAlreadyResolvedError(OperationConflictError):
    """The interaction request was already answered, timed out or closed."""

    code = "already_resolved"

    def __init__(self, request_id: str, status: str, reason: str = "") -> None:
        self.request_id = request_id
        self.status = status
        self.reason = reason
        because = f" ({reason})" if reason else ""
        super().__init__(f"interaction request {request_id!r} is already {status}{because}")

    def metadata(self) -> Mapping[str, str]:
        return {"request_id": self.request_id, "status": self.status}


class TurnNotStartedError(OperationConflictError):
    """The turn went stale while it was being reserved (its backend generation was stopped or
    replaced, or the session was stopped); nothing was written. Start it again."""

    code = "turn_not_started"

    def __init__(self, turn_id: str, reason: str) -> None:
        self.turn_id = turn_id
        super().__init__(f"turn {turn_id!r} was not started: {reason}; start it again")

    def metadata(self) -> Mapping[str, str]:
        return {"turn_id": self.turn_id}


class SessionQuarantinedError(KernelError):
    """A stopped run of the session has not settled; new turns must wait for it."""

    code = "session_quarantined"
    permanent: ClassVar[bool] = False

    def __init__(self, session_id: str, detail: str) -> None:
        self.session_id = session_id
        super().__init__(f"session {session_id!r} is quarantined: {detail}")

    def metadata(self) -> Mapping[str, str]:
        return {"session_id": self.session_id, "permanent": str(self.permanent).lower()}


class SessionPermanentlyQuarantinedError(SessionQuarantinedError):
    """A backend of the session could not be disposed; the session never activates again."""

    permanent = True

    def __init__(self, session_id: str, failure: BaseException) -> None:
        self.session_id = session_id
        self.failure = failure
        KernelError.__init__(
            self,
            f"session {session_id!r} is permanently quarantined: "
            f"backend disposal failed ({describe(failure)})",
        )


class RunUnconfirmedQuarantineError(SessionQuarantinedError):
    """A stop of the session could not confirm that a tool's run ended: no turn starts until
    the kernel has confirmed it (it keeps asking the resource service, see
    :mod:`maka_runtime.kernel.core.turns.confirm`)."""

    def __init__(self, session_id: str, run_ref: str, turn_id: str) -> None:
        self.run_ref = run_ref
        self.turn_id = turn_id
        super().__init__(
            session_id,
            f"run {run_ref} of turn {turn_id!r} was stopped but is not confirmed ended yet; "
            "new turns are refused until the kernel confirms its end with the resource service",
        )

    def metadata(self) -> Mapping[str, str]:
        return {**super().metadata(), "run_ref": self.run_ref, "turn_id": self.turn_id}


class HostDrainingError(KernelError):
    """The host is shutting down and admits no new turns; retry on another host."""

    code = "host_draining"

    def __init__(self, what: str = "turns") -> None:
        super().__init__(f"the kernel is draining and admits no new {what}")


class BackendUnavailableError(KernelError):
    """No backend factory is registered for the session's backend kind (configuration)."""

    code = "backend_unavailable"

    def __init__(self, kind: str, known: Iterable[str]) -> None:
        self.kind = kind
        names = ", ".join(sorted(known)) or "none"
        super().__init__(f"no backend of kind {kind!r} is registered (known: {names})")

    def metadata(self) -> Mapping[str, str]:
        return {"backend": self.kind}


class PersistenceFailedError(KernelError):
    """The session store refused a write or a read (a full disk, an I/O error); ``__cause__``
    holds the store's own error. Transient: retry once the store takes writes again."""

    code = "persistence_failed"


class StoreClosedError(PersistenceFailedError):
    """The store's owner has closed; no call is accepted any more (you closed it)."""

    code = "store_closed"


class RuntimeOwnerCleanupError(KernelError):
    """Cleaning up a run's owners failed.

    ``cause`` is the single failure or an :class:`ExceptionGroup` of several; ``causes`` is the
    flat tuple. The message names every cause so nothing is lost when only text travels.
    """

    code = "owner_cleanup_failed"

    def __init__(self, cause: Exception) -> None:
        self.cause = cause
        super().__init__(f"run cleanup failed: {describe_all(_leaves(cause))}")
        self.__cause__ = cause

    @property
    def causes(self) -> tuple[Exception, ...]:
        return tuple(_leaves(self.cause))


class RunEndUnconfirmedError(RuntimeOwnerCleanupError):
    """An immediate stop could not confirm, within its bound, that the tool runs it stopped
    ended (the resource service did not answer, or answered with a run still active).

    ``refs`` names the runs; ``cause`` is what the last attempt got (``None``: no answer in
    time). It is a leaf: aggregated with other failures it stays itself, with its metadata.
    """

    def __init__(
        self, session_id: str, refs: Sequence[str], within: float, cause: Exception | None
    ) -> None:
        self.session_id = session_id
        self.refs = tuple(refs)
        self.within = within
        why = describe(cause) if cause is not None else "no answer in time"
        runs = f"run {', '.join(self.refs)}" if self.refs else "a run being launched"
        # The cause is named as it is: an earlier failure (a keepalive after 5 s) is not the
        # confirmation bound running out.
        failed = (
            f"the tool host failed: {why}; the confirmation bound is {within:g} s"
            if cause is not None
            else f"no answer within the confirmation bound of {within:g} s"
        )
        KernelError.__init__(
            self,
            f"the stop could not confirm that {runs} of session {session_id!r} ended "
            f"({failed}); the session is quarantined until it is confirmed",
        )
        self.cause = cause if cause is not None else TimeoutError(why)
        self.__cause__ = cause

    @property
    def causes(self) -> tuple[Exception, ...]:
        return (self,)

    def metadata(self) -> Mapping[str, str]:
        return {
            "session_id": self.session_id,
            "run_ref": self.refs[0] if self.refs else "",
            "run_refs": ",".join(self.refs),
        }


class RuntimeInteractionFailStopError(KernelError):
    """The interaction authority failed durably; ``authority_failure`` is its error."""

    code = "interaction_fail_stop"

    def __init__(self, authority_failure: Exception) -> None:
        self.authority_failure = authority_failure
        super().__init__(f"interaction authority failed: {describe(authority_failure)}")
        self.__cause__ = authority_failure


class RuntimeInteractionInvariantError(KernelError):
    """An interaction protocol rule was broken (the caller used the wrong path)."""

    code = "interaction_invariant"


def describe(failure: BaseException) -> str:
    """``Type: message`` of one failure."""
    text = str(failure)
    name = type(failure).__name__
    return f"{name}: {text}" if text else name


def describe_all(failures: Iterable[BaseException]) -> str:
    return "; ".join(describe(failure) for failure in failures)


def _leaves(failure: Exception) -> Iterator[Exception]:
    if isinstance(failure, ExceptionGroup):
        for nested in failure.exceptions:
            yield from _leaves(nested)
    else:
        yield failure


def combine_failures(failures: Iterable[Exception | None]) -> Exception | None:
    """Aggregate cleanup failures without losing or double-wrapping any.

    ``None`` entries are skipped and the same object is kept once. No failure gives ``None``;
    one gives that failure itself; several give a :class:`RuntimeOwnerCleanupError` whose group
    holds the flattened causes (an owner error's causes are lifted, never nested).
    """
    distinct: list[Exception] = []
    for failure in failures:
        if failure is not None and all(failure is not seen for seen in distinct):
            distinct.append(failure)
    if not distinct:
        return None
    if len(distinct) == 1:
        return distinct[0]
    flat: list[Exception] = []
    for failure in distinct:
        lifted = failure.causes if isinstance(failure, RuntimeOwnerCleanupError) else (failure,)
        flat.extend(cause for cause in lifted if all(cause is not seen for seen in flat))
    group = ExceptionGroup("run cleanup failed", flat)
    if all(isinstance(cause, PersistenceFailedError) for cause in flat):
        # Only writes the store refused (a full disk): the client's answer is that one, and
        # every cause stays in the message and in __cause__.
        refused = PersistenceFailedError(f"{len(flat)} writes failed: {describe_all(flat)}")
        refused.__cause__ = group
        return refused
    return RuntimeOwnerCleanupError(group)


def contains_failure(failure: object, expected: object) -> bool:
    """Whether *expected* is *failure* or is reachable through the kernel's wrappers."""
    if failure is expected:
        return True
    if isinstance(failure, RuntimeOwnerCleanupError) and contains_failure(failure.cause, expected):
        return True
    if isinstance(failure, RuntimeInteractionFailStopError) and contains_failure(
        failure.authority_failure, expected
    ):
        return True
    return isinstance(failure, BaseExceptionGroup) and any(
        contains_failure(nested, expected) for nested in failure.exceptions
    )

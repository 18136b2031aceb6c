"""Errors of the resource domain.

Every error carries a stable lowercase ``code`` (the original host protocol's error codes); the API
layer maps codes to gRPC status codes and ``ErrorInfo`` reasons in one table.

    ResourceError                           (code)              whose fault
    ├── InvalidRequestError                 invalid_request     the caller's: malformed input
    │   └── OutOfRangeError                 out_of_range        the caller's: a cursor past the end
    ├── NotFoundError                       not_found           the caller's: no such thing
    ├── SessionArchivedError                session_archived    the caller's: session archived
    ├── PermissionDeniedError               permission_denied   the caller's: not its to do
    ├── OperationConflictError              operation_conflict  someone's: state forbids it now
    │   └── ShellRunPtyControlClosedError   operation_conflict  the PTY is ending or has ended
    ├── HostDrainingError                   host_draining       nobody's: the host shuts down
    ├── ResourceExhaustedError              resource_exhausted  a limit: too many live runs/PTYs
    ├── SandboxUnavailableError             sandbox_unavailable the host's: no usable bubblewrap
    ├── PersistenceFailedError              persistence_failed  the store refused a write (a full
    │   │                                                       disk): transient, retry later
    │   └── StoreClosedError                persistence_failed  the store's owner has closed
    └── InternalFailureError                internal_failure    the host's: an invariant broke

Errors about a field of the request carry its snake_case name in ``field``.

The host's fail-stop latch trips only for a broken invariant of its own state, never for
anything a request carries: a process that survives SIGKILL, a run's supervision that crashed,
the store's owner lease lost (``StoreClosedError``) and a stored record that is not the one this
host wrote (``InternalFailureError`` from the store). A refused write (``PersistenceFailedError``)
fails the call that made it and nothing else; an unexpected error inside one request fails that
request.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "HostDrainingError",
    "InternalFailureError",
    "InvalidRequestError",
    "NotFoundError",
    "OperationConflictError",
    "OutOfRangeError",
    "PermissionDeniedError",
    "PersistenceFailedError",
    "ResourceError",
    "ResourceExhaustedError",
    "SandboxUnavailableError",
    "SessionArchivedError",
    "ShellRunPtyControlClosedError",
    "StoreClosedError",
]


class ResourceError(Exception):
    """Base class of every error the resource domain reports to a caller."""

    code: ClassVar[str] = "internal_failure"

    def __init__(
        self, message: str, *, field: str | None = None, details: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        #: The request field at fault, in the API's snake_case spelling, when one is.
        self.field = field
        #: More machine-readable specifics (``ErrorInfo.metadata`` besides ``field``).
        self.details = dict(details or {})


class InvalidRequestError(ResourceError):
    """The request is malformed; ``field`` names the offending field. Nothing was changed."""

    code = "invalid_request"

    def __init__(self, message: str, *, field: str, limit: int | None = None) -> None:
        super().__init__(
            message, field=field, details={"limit": str(limit)} if limit is not None else None
        )


class OutOfRangeError(InvalidRequestError):
    """A cursor (``after_change_seq``, ``after_sequence``) is beyond the newest one; ``last``
    is the newest."""

    code = "out_of_range"

    def __init__(self, message: str, *, field: str, last: int) -> None:
        super().__init__(message, field=field)
        self.details["last"] = str(last)


class NotFoundError(ResourceError):
    """No such session, or no such run in that session (``field`` says which)."""

    code = "not_found"


class SessionArchivedError(ResourceError):
    """The session is archived: it admits no more operations."""

    code = "session_archived"


class PermissionDeniedError(ResourceError):
    """The caller may see the session but not do this: a client principal starting a run in
    a session the kernel registered (see :mod:`.access`)."""

    code = "permission_denied"


class OperationConflictError(ResourceError):
    """The run's current state forbids the operation (a lease held by someone else, a sequence
    out of order, a run that has ended). Retrying the same request will not help."""

    code = "operation_conflict"


class ShellRunPtyControlClosedError(OperationConflictError):
    """Input or resize reached a PTY that is being terminated or has ended."""


class HostDrainingError(ResourceError):
    """The host is draining: new runs are refused."""

    code = "host_draining"

    def __init__(self, message: str = "Runtime resources are draining") -> None:
        super().__init__(message)


class ResourceExhaustedError(ResourceError):
    """A configured limit (live runs, live PTYs, live runs of one session, pending input) would
    be exceeded; ``limit_name`` names the setting, ``limit`` its value."""

    code = "resource_exhausted"

    def __init__(self, message: str, *, limit_name: str = "", limit: int | None = None) -> None:
        details = {"limit_name": limit_name} if limit_name else {}
        if limit is not None:
            details["limit"] = str(limit)
        super().__init__(message, details=details)


class SandboxUnavailableError(ResourceError):
    """The run's profile needs the sandbox and this host cannot make one (bubblewrap missing,
    or unable to create namespaces). Nothing was started; the message says how to fix it."""

    code = "sandbox_unavailable"


class PersistenceFailedError(ResourceError):
    """A state change could not be committed (a full disk, an I/O error); ``__cause__`` holds
    the store's error. Nothing changed; retrying once the store takes writes again can work."""

    code = "persistence_failed"


class StoreClosedError(PersistenceFailedError):
    """The store was used after its root owner closed."""


class InternalFailureError(ResourceError):
    """An invariant of the host broke (a process that survives SIGKILL, a lost handle)."""

    code = "internal_failure"

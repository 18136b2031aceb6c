"""The error hierarchy: stable codes, helpful messages, aggregation that loses nothing."""

from __future__ import annotations

import pytest

from maka_runtime.kernel.core import (
    BackendUnavailableError,
    HostDrainingError,
    InteractionAlreadyResolvedError,
    InvalidRequestError,
    KernelError,
    NotFoundError,
    OperationConflictError,
    PersistenceFailedError,
    RuntimeInteractionFailStopError,
    RuntimeInteractionInvariantError,
    RuntimeOwnerCleanupError,
    SessionArchivedError,
    SessionBusyError,
    SessionPermanentlyQuarantinedError,
    SessionQuarantinedError,
    StoreClosedError,
    combine_failures,
    contains_failure,
)


def test_every_error_has_a_stable_lowercase_code() -> None:
    cause = RuntimeError("x")
    errors: list[tuple[KernelError, str]] = [
        (InvalidRequestError("text", "must not be empty"), "invalid_request"),
        (NotFoundError("session", "s1"), "not_found"),
        (SessionArchivedError("s1"), "session_archived"),
        (OperationConflictError("no"), "operation_conflict"),
        (SessionBusyError("s1", "t1"), "session_busy"),
        (InteractionAlreadyResolvedError("r1", "answered"), "already_resolved"),
        (SessionQuarantinedError("s1", "why"), "session_quarantined"),
        (SessionPermanentlyQuarantinedError("s1", cause), "session_quarantined"),
        (HostDrainingError(), "host_draining"),
        (BackendUnavailableError("llm", ["scripted"]), "backend_unavailable"),
        (PersistenceFailedError("disk"), "persistence_failed"),
        (StoreClosedError("closed"), "store_closed"),
        (RuntimeOwnerCleanupError(cause), "owner_cleanup_failed"),
        (RuntimeInteractionFailStopError(cause), "interaction_fail_stop"),
        (RuntimeInteractionInvariantError("rule"), "interaction_invariant"),
    ]
    for error, code in errors:
        assert error.code == code
        assert code == code.lower()


def test_messages_say_what_is_wrong() -> None:
    assert "invalid text: must not be empty" in str(
        InvalidRequestError("text", "must not be empty")
    )
    busy = SessionBusyError("s1", "t-7")
    assert "t-7" in str(busy) and busy.metadata()["active_turn_id"] == "t-7"
    assert "quarantined" in str(SessionQuarantinedError("s1", "x"))
    permanent = SessionPermanentlyQuarantinedError("s1", RuntimeError("disposal failed"))
    assert "permanently quarantined" in str(permanent)
    assert "disposal failed" in str(permanent)
    assert permanent.metadata()["permanent"] == "true"


def test_one_failure_stays_itself_and_none_is_none() -> None:
    failure = RuntimeError("only")
    assert combine_failures([None, failure, None, failure]) is failure
    assert combine_failures([None]) is None


def test_several_failures_become_one_cleanup_error_listing_every_cause() -> None:
    first, second = RuntimeError("first broke"), ValueError("second broke")
    combined = combine_failures([first, second])
    assert isinstance(combined, RuntimeOwnerCleanupError)
    assert combined.causes == (first, second)
    assert isinstance(combined.cause, ExceptionGroup)
    assert "first broke" in str(combined) and "second broke" in str(combined)


def test_owner_errors_are_never_wrapped_twice() -> None:
    a, b, c = RuntimeError("a"), RuntimeError("b"), RuntimeError("c")
    inner = combine_failures([a, b])
    assert isinstance(inner, RuntimeOwnerCleanupError)
    assert combine_failures([inner]) is inner
    outer = combine_failures([inner, c])
    assert isinstance(outer, RuntimeOwnerCleanupError)
    assert outer.causes == (a, b, c)
    assert not any(isinstance(x, RuntimeOwnerCleanupError) for x in outer.causes)


def test_contains_failure_follows_the_wrappers() -> None:
    close = RuntimeError("close")
    stop = RuntimeError("stop")
    combined = combine_failures([RuntimeInteractionFailStopError(close), stop])
    assert contains_failure(combined, close) and contains_failure(combined, stop)
    assert not contains_failure(combined, RuntimeError("close"))


@pytest.mark.parametrize("cls", [RuntimeOwnerCleanupError, RuntimeInteractionFailStopError])
def test_wrappers_keep_their_cause(
    cls: type[RuntimeOwnerCleanupError] | type[RuntimeInteractionFailStopError],
) -> None:
    cause = RuntimeError("root")
    error = cls(cause)
    assert error.__cause__ is cause

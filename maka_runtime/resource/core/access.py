"""Who may reach a session's runs: the one rule of the resource service's session lookup.

Every operation that names a session, or a run by its ref, passes
:meth:`~maka_runtime.resource.core.admission.SessionAdmissionGate.check`, which asks
:func:`caller_view` whether the calling principal may see that session at all:

- the resource host itself (no principal: recovery, drain, a test driving the core) and the
  ``kernel`` and ``admin`` roles reach every session and may start runs in any admitted one;
- a session the kernel registered belongs to the principal the kernel named as its owner
  (``RegisterSession.owner``; an empty owner is the local principal's). That principal may
  read, watch, attach to, control and stop its runs, but not start runs in it: the kernel
  starts them, after the session's approvals (:class:`~.errors.PermissionDeniedError`, so a
  denied command cannot be re-run directly);
- in standalone mode an unregistered session belongs to the first principal that names it:
  the first call that names it *claims* it (recorded in the registry). Calls that only come
  across a session (a listing of every session's runs, a run reached by its ref alone) do not
  claim; there an unclaimed session counts as the local principal's, as do runs recorded
  before sessions had owners;
- for any other principal the session does not exist: the caller gets exactly the
  ``NOT_FOUND`` of an unknown session, so ids cannot be probed.

The principal is the call's, read from the request scope
(:func:`maka_runtime.common.principal.current_principal`, set at the servicer boundary for each
call).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Literal

from maka_runtime.common.principal import ADMIN, KERNEL, Principal, current_principal, owner_id
from maka_runtime.resource.core.errors import PermissionDeniedError

if TYPE_CHECKING:
    from maka_runtime.resource.core.admission import SessionDirectory, SessionInfo

__all__ = ["Verdict", "caller_view", "decide", "owner_of", "trusted"]

#: What the caller may do with a session: everything asked, not start runs, or nothing.
Verdict = Literal["allowed", "kernel_session", "hidden"]
_TRUSTED = frozenset({ADMIN, KERNEL})
#: The audit log of refused calls (shared with the servicer boundary's).
audit = logging.getLogger("maka.auth")


def owner_of(info: SessionInfo) -> str:
    """The principal that owns the session (``local`` when nobody recorded one)."""
    return owner_id(info.owner)


def trusted(principal: Principal | None) -> bool:
    """The host itself, the kernel and admin reach every session."""
    return principal is None or principal.has_any(_TRUSTED)


def decide(info: SessionInfo, principal: Principal | None, *, start: bool) -> Verdict:
    """The rule (see the module docstring) for a session as the directory knows it."""
    if trusted(principal):
        return "allowed"
    assert principal is not None
    if owner_of(info) != principal.id:
        return "hidden"
    if start and info.origin == "kernel":
        return "kernel_session"
    return "allowed"


def audit_hidden(session_id: str) -> None:
    """Log a call refused because its session is another principal's (once per call)."""
    principal = current_principal()
    who = principal.id if principal is not None else "the host"
    audit.warning("refused session %s for %s: NOT_FOUND (not its owner)", session_id, who)


async def caller_view(
    directory: SessionDirectory, info: SessionInfo, *, start: bool, claim: bool
) -> SessionInfo | None:
    """*info* if the current caller may go on, ``None`` if the session does not exist for it
    (claiming an unclaimed standalone session first when *claim*); raises
    :class:`PermissionDeniedError` for a start it may not make."""
    principal = current_principal()
    if principal is not None and claim and info.origin == "unclaimed":
        await directory.claim_session(info.session_id, principal.id)
        info = await directory.lookup(info.session_id) or info
    verdict = decide(info, principal, start=start)
    who = principal.id if principal is not None else "the host"
    if verdict == "hidden":
        return None
    if verdict == "kernel_session":
        audit.warning(
            "refused a start in session %s for %s: PERMISSION_DENIED", info.session_id, who
        )
        raise PermissionDeniedError(
            f"session {info.session_id} belongs to the kernel: its commands run as tool calls "
            "of its turns (after their approvals), not directly; start runs of your own in a "
            "standalone session",
            field="session_id",
        )
    return info

"""Who may see a session: the principal that created it, and ``admin``.

For any other principal a session does not exist: every operation that names it fails with the
same :class:`~maka_runtime.kernel.core.errors.NotFoundError` as an id nobody created, so ids cannot
be probed. ``ListSessions`` lists the caller's own sessions; ``admin`` sees (and lists) all.

The principal is the call's, read from the request scope
(:func:`maka_runtime.common.principal.current_principal`: the servicer boundary sets it for every
call, core tests with :func:`~maka_runtime.common.principal.acting_as`). Without one the caller is
the kernel itself (the start-up sweep, the spec scenarios, a test driving the core directly), which
sees every session. A session records its owner in its header; one recorded before owners were
(an empty owner) belongs to the local principal (:data:`~maka_runtime.common.principal.LOCAL`).
"""

from __future__ import annotations

import logging

from maka_runtime.common.principal import ADMIN, LOCAL, Principal, current_principal, owner_id
from maka_runtime.kernel.core.errors import NotFoundError
from maka_runtime.kernel.core.session import SessionHeader
from maka_runtime.kernel.core.store import SessionStore

__all__ = ["SessionAccess", "creator", "listed_owners", "may_see", "owner_of"]

#: The audit log of refused calls (shared with the servicer boundary's).
audit = logging.getLogger("maka.auth")


def owner_of(header: SessionHeader) -> str:
    """The principal that owns the session (``local`` for one from before owners)."""
    return owner_id(header.owner)


def sees_all(principal: Principal | None) -> bool:
    """Whether *principal* sees every session: the kernel itself and ``admin``."""
    return principal is None or ADMIN in principal.roles


def may_see(principal: Principal | None, header: SessionHeader) -> bool:
    """The rule: a session exists for its owner and for whoever sees all."""
    return sees_all(principal) or (principal is not None and owner_of(header) == principal.id)


def creator(principal: Principal | None) -> str:
    """The owner a new session records (empty without a principal: the local principal's)."""
    return principal.id if principal is not None else ""


def listed_owners(principal: Principal | None) -> tuple[str, ...] | None:
    """The recorded owners whose sessions *principal* lists (``None``: every session)."""
    if sees_all(principal):
        return None
    assert principal is not None
    return (LOCAL, "") if principal.id == LOCAL else (principal.id,)


class SessionAccess:
    """The one place a named session is looked up for a caller."""

    def __init__(self, store: SessionStore) -> None:
        self._store = store

    @staticmethod
    def checked() -> bool:
        """Whether the current caller's sessions must be looked up before anything else."""
        return not sees_all(current_principal())

    async def header(self, session_id: str) -> SessionHeader:
        """The session's header if the current caller may see it; otherwise exactly the
        :class:`NotFoundError` of an unknown id."""
        header = await self._store.read_header(session_id)
        principal = current_principal()
        if not may_see(principal, header):
            who = principal.id if principal is not None else "the kernel"
            audit.warning("refused session %s for %s: NOT_FOUND (not its owner)", session_id, who)
            raise NotFoundError("session", session_id)
        return header

    def header_now(self, session_id: str) -> SessionHeader | None:
        """:meth:`header` when the store holds the header and the caller may see it, without
        awaiting; ``None``: await :meth:`header` (a refusal is logged and raised there)."""
        header = self._store.held_header(session_id)
        if header is None or not may_see(current_principal(), header):
            return None
        return header

    async def check(self, session_id: str) -> None:
        """:meth:`header` for a caller who does not see every session; nothing otherwise."""
        if self.checked():
            await self.header(session_id)

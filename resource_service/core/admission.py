"""Session admission: every operation for a session passes a per-session gate.

The resource host does not own sessions; a :class:`SessionDirectory` tells it which exist and
whether they are archived. The kernel can supply one (it owns sessions); without a kernel,
:class:`StandaloneSessionDirectory` admits any well-formed session id.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

from resource_service.core.errors import NotFoundError, SessionArchivedError
from resource_service.core.requests import check_session_id

__all__ = [
    "SessionAdmissionGate",
    "SessionDirectory",
    "SessionInfo",
    "StandaloneSessionDirectory",
]


@dataclass(frozen=True)
class SessionInfo:
    session_id: str
    archived: bool = False
    #: The session's working directory: the default cwd of its runs.
    cwd: str | None = None


class SessionDirectory(Protocol):
    async def lookup(self, session_id: str) -> SessionInfo | None:
        """The session, or ``None`` if it does not exist."""
        ...


class StandaloneSessionDirectory:
    """Sessions known to this process only.

    With ``admit_unknown=True`` (the standalone default) any well-formed session id is admitted
    as an active session; sessions registered or archived here override that.
    """

    def __init__(self, *, admit_unknown: bool = True, default_cwd: str | None = None) -> None:
        self._admit_unknown = admit_unknown
        self._default_cwd = default_cwd
        self._sessions: dict[str, SessionInfo] = {}

    def register(self, session_id: str, *, cwd: str | None = None) -> SessionInfo:
        check_session_id(session_id)
        info = SessionInfo(session_id, archived=False, cwd=cwd)
        self._sessions[session_id] = info
        return info

    def archive(self, session_id: str) -> None:
        check_session_id(session_id)
        current = self._sessions.get(session_id) or SessionInfo(session_id, cwd=self._default_cwd)
        self._sessions[session_id] = SessionInfo(session_id, archived=True, cwd=current.cwd)

    def forget(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)

    async def lookup(self, session_id: str) -> SessionInfo | None:
        info = self._sessions.get(session_id)
        if info is None and self._admit_unknown:
            return SessionInfo(session_id, cwd=self._default_cwd)
        return info


class SessionAdmissionGate:
    """Admits operations for existing, unarchived sessions.

    :meth:`hold` also serialises the holders per session (starts and lease acquisitions), so a
    session being archived is never raced by a start that looked it up just before.
    """

    def __init__(self, directory: SessionDirectory | None = None) -> None:
        self.directory: SessionDirectory = directory or StandaloneSessionDirectory()
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    async def check(self, session_id: str) -> SessionInfo:
        """Look the session up; :class:`NotFoundError` or :class:`SessionArchivedError`."""
        check_session_id(session_id)
        info = await self.directory.lookup(session_id)
        if info is None:
            raise NotFoundError(f"no session {session_id}", field="session_id")
        if info.archived:
            raise SessionArchivedError(
                f"session {session_id} is archived; it admits no more operations",
                field="session_id",
            )
        return info

    @asynccontextmanager
    async def hold(self, session_id: str) -> AsyncIterator[SessionInfo]:
        """Check the session and hold its gate for the duration of the block."""
        check_session_id(session_id)
        lock, users = self._locks.get(session_id, (asyncio.Lock(), 0))
        self._locks[session_id] = (lock, users + 1)
        try:
            async with lock:
                yield await self.check(session_id)
        finally:
            lock, users = self._locks[session_id]
            if users == 1:
                del self._locks[session_id]
            else:
                self._locks[session_id] = (lock, users - 1)

"""Session admission: every operation for a session passes a per-session gate.

The resource host does not own sessions; a :class:`SessionDirectory` tells it which exist and
whether they are archived. The kernel owns sessions and registers them
(:meth:`SessionDirectory.register_session`, :meth:`SessionDirectory.archive_session`);
:class:`SessionRegistry` keeps those registrations in a durable :class:`SessionStore`. In kernel
mode only registered, unarchived sessions are admitted; in standalone mode any well-formed session
id is admitted as well, while registered and archived entries still apply.
:class:`StandaloneSessionDirectory` is the same directory kept in memory only.

Whether the *calling principal* may reach a session is decided in the same lookup
(:meth:`SessionAdmissionGate.check`, by the rule of :mod:`.access`): every operation passes it,
so a session another principal owns is ``NOT_FOUND`` everywhere.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Literal, Protocol

from maka_runtime.common.principal import current_principal
from maka_runtime.resource.core.access import audit_hidden, caller_view, decide
from maka_runtime.resource.core.errors import NotFoundError, SessionArchivedError
from maka_runtime.resource.core.requests import check_length, check_session_cwd, check_session_id
from maka_runtime.resource.core.store import SessionStore

__all__ = [
    "SessionAdmissionGate",
    "SessionDirectory",
    "SessionInfo",
    "SessionRegistry",
    "StandaloneSessionDirectory",
]


Origin = Literal["kernel", "claimed", "unclaimed"]


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class SessionInfo:
    session_id: str
    archived: bool = False
    #: The session's working directory: the default cwd of its runs (``None``: the host's).
    cwd: str | None = None
    #: The kernel deleted the session (a deleted session is archived too).
    deleted: bool = False
    #: When the entry last changed (ms since the epoch; 0 for an entry nobody registered).
    updated_at: int = 0
    #: The principal that owns the session (empty: the local principal), see :mod:`.access`.
    owner: str = ""
    #: ``kernel``: registered by the kernel (its owner may not start runs in it); ``claimed``:
    #: a standalone session its owner claimed by naming it first; ``unclaimed``: a standalone
    #: session nobody has named yet (never stored).
    origin: Origin = "kernel"


class SessionDirectory(Protocol):
    """Which sessions exist (the read side, used by the gate) and the kernel's registrations."""

    @property
    def standalone(self) -> bool:
        """True when any well-formed session id is admitted, registered or not."""
        ...

    async def lookup(self, session_id: str) -> SessionInfo | None:
        """The session, or ``None`` if it does not exist."""
        ...

    def held(self, session_id: str) -> SessionInfo | None:
        """What :meth:`lookup` would answer for a session held in memory, without awaiting;
        ``None`` whenever only :meth:`lookup` can say (never held, or a directory that must
        ask elsewhere): the caller then awaits :meth:`lookup`."""
        ...

    async def register_session(
        self, session_id: str, *, cwd: str | None = None, owner: str = ""
    ) -> bool:
        """Record that the session exists, active, with *cwd*, owned by *owner*; lifts an
        archive (and a delete). Returns whether anything changed; an unchanged registration
        stores nothing."""
        ...

    async def claim_session(self, session_id: str, owner: str) -> bool:
        """Record that *owner* owns the standalone session, unless it is known already.
        Returns whether anything changed."""
        ...

    async def archive_session(self, session_id: str, *, deleted: bool = False) -> bool:
        """Record the session as archived (and deleted); an unknown session is recorded too.
        Returns whether anything changed."""
        ...


def _registered(
    current: SessionInfo | None, session_id: str, cwd: str | None, owner: str = ""
) -> SessionInfo | None:
    """The entry a registration leads to, or ``None`` if it changes nothing."""
    check_session_id(session_id)
    check_session_cwd(cwd or "")
    check_length("owner", owner)
    cwd = cwd or None
    if (
        current is not None
        and current.cwd == cwd
        and not current.archived
        and (current.owner, current.origin) == (owner, "kernel")
    ):
        return None
    return SessionInfo(session_id, archived=False, cwd=cwd, deleted=False, owner=owner)


def _claimed(current: SessionInfo | None, session_id: str, owner: str) -> SessionInfo | None:
    """The entry a standalone claim leads to: only a session nobody knows yet is claimed."""
    check_session_id(session_id)
    if current is not None:
        return None
    return SessionInfo(session_id, owner=owner, origin="claimed")


def _archived(current: SessionInfo | None, session_id: str, deleted: bool) -> SessionInfo | None:
    """The entry an archive leads to, or ``None`` if it changes nothing. A deleted session
    stays deleted."""
    check_session_id(session_id)
    if current is not None and current.archived and (current.deleted or not deleted):
        return None
    if current is None:
        return SessionInfo(session_id, archived=True, deleted=deleted)
    return dataclasses.replace(
        current, archived=True, deleted=deleted or current.deleted, updated_at=0
    )


class SessionRegistry:
    """The sessions registered with this host, kept in a :class:`SessionStore`.

    Every entry is loaded once by :meth:`open` and kept in memory, so a lookup never touches
    the store and a registration that changes nothing returns without writing (the kernel
    registers a session before each tool run). A change is committed before it is applied, so
    memory never runs ahead of the store; changes are applied one at a time, in call order.
    """

    def __init__(
        self,
        store: SessionStore,
        *,
        standalone: bool,
        default_cwd: str | None = None,
        now: Callable[[], int] = _now_ms,
    ) -> None:
        self._store = store
        self._standalone = standalone
        self._default_cwd = default_cwd
        self._now = now
        self._sessions: dict[str, SessionInfo] = {}
        self._writing = asyncio.Lock()

    @classmethod
    async def open(
        cls,
        store: SessionStore,
        *,
        standalone: bool,
        default_cwd: str | None = None,
        now: Callable[[], int] = _now_ms,
    ) -> SessionRegistry:
        """A registry holding every entry *store* has."""
        registry = cls(store, standalone=standalone, default_cwd=default_cwd, now=now)
        for info in await store.load_sessions():
            registry._sessions[info.session_id] = info
        return registry

    @property
    def standalone(self) -> bool:
        return self._standalone

    def known(self) -> dict[str, SessionInfo]:
        """Every registered or archived session, by id (a copy)."""
        return dict(self._sessions)

    def held(self, session_id: str) -> SessionInfo | None:
        return self._sessions.get(session_id)

    async def lookup(self, session_id: str) -> SessionInfo | None:
        info = self._sessions.get(session_id)
        if info is None and self._standalone:
            return SessionInfo(session_id, cwd=self._default_cwd, origin="unclaimed")
        return info

    async def register_session(
        self, session_id: str, *, cwd: str | None = None, owner: str = ""
    ) -> bool:
        return await self._change(
            session_id, lambda current: _registered(current, session_id, cwd, owner)
        )

    async def claim_session(self, session_id: str, owner: str) -> bool:
        return await self._change(session_id, lambda current: _claimed(current, session_id, owner))

    async def archive_session(self, session_id: str, *, deleted: bool = False) -> bool:
        return await self._change(
            session_id, lambda current: _archived(current, session_id, deleted)
        )

    async def _change(
        self, session_id: str, change: Callable[[SessionInfo | None], SessionInfo | None]
    ) -> bool:
        # The common case, a registration that changes nothing, takes no lock and no store call.
        if change(self._sessions.get(session_id)) is None:
            return False
        async with self._writing:
            changed = change(self._sessions.get(session_id))
            if changed is None:
                return False
            stored = dataclasses.replace(changed, updated_at=self._now())
            await self._store.save_session(stored)
            self._sessions[session_id] = stored
            return True


class StandaloneSessionDirectory:
    """Sessions known to this process only (nothing is stored).

    With ``admit_unknown=True`` (the standalone default) any well-formed session id is admitted
    as an active session; sessions registered or archived here override that.
    """

    def __init__(self, *, admit_unknown: bool = True, default_cwd: str | None = None) -> None:
        self._admit_unknown = admit_unknown
        self._default_cwd = default_cwd
        self._sessions: dict[str, SessionInfo] = {}

    @property
    def standalone(self) -> bool:
        return self._admit_unknown

    def register(self, session_id: str, *, cwd: str | None = None, owner: str = "") -> SessionInfo:
        check_session_id(session_id)
        info = SessionInfo(session_id, archived=False, cwd=cwd, owner=owner)
        self._sessions[session_id] = info
        return info

    def archive(self, session_id: str, *, deleted: bool = False) -> None:
        check_session_id(session_id)
        current = self._sessions.get(session_id) or SessionInfo(session_id, cwd=self._default_cwd)
        self._sessions[session_id] = dataclasses.replace(
            current, archived=True, deleted=deleted or current.deleted
        )

    def forget(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)

    def held(self, session_id: str) -> SessionInfo | None:
        return self._sessions.get(session_id)

    async def lookup(self, session_id: str) -> SessionInfo | None:
        info = self._sessions.get(session_id)
        if info is None and self._admit_unknown:
            return SessionInfo(session_id, cwd=self._default_cwd, origin="unclaimed")
        return info

    async def register_session(
        self, session_id: str, *, cwd: str | None = None, owner: str = ""
    ) -> bool:
        return self._apply(_registered(self._sessions.get(session_id), session_id, cwd, owner))

    async def claim_session(self, session_id: str, owner: str) -> bool:
        return self._apply(_claimed(self._sessions.get(session_id), session_id, owner))

    def _apply(self, changed: SessionInfo | None) -> bool:
        if changed is not None:
            self._sessions[changed.session_id] = changed
        return changed is not None

    async def archive_session(self, session_id: str, *, deleted: bool = False) -> bool:
        return self._apply(_archived(self._sessions.get(session_id), session_id, deleted))


class SessionAdmissionGate:
    """Admits operations for existing, unarchived sessions.

    :meth:`hold` also serialises the holders per session (starts, lease acquisitions,
    registrations and archives), so a session being archived is never raced by a start that
    looked it up just before.
    """

    def __init__(self, directory: SessionDirectory | None = None) -> None:
        self.directory: SessionDirectory = directory or StandaloneSessionDirectory()
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    def admitted_now(self, session_id: str) -> bool:
        """Whether :meth:`check` of a read (no start) would admit the current caller to the
        session, decided from memory alone; ``False`` means only :meth:`check` can say (an
        unknown, unclaimed, hidden, archived or deleted session: it raises the right error)."""
        info = self.directory.held(session_id)
        return (
            info is not None
            and info.origin != "unclaimed"
            and not info.archived
            and not info.deleted
            and decide(info, current_principal(), start=False) == "allowed"
        )

    async def check(
        self, session_id: str, *, start: bool = False, claim: bool = True, missing: str = ""
    ) -> SessionInfo:
        """Look the session up for the current caller (:mod:`.access`: *start* asks to start a
        run, *claim* lets a standalone session be claimed); :class:`NotFoundError` (also for a
        session the caller may not see), :class:`SessionArchivedError` or
        :class:`~.errors.PermissionDeniedError`. With *missing*, a session that does not exist
        for the caller is ``NotFoundError(missing)`` on ``ref`` (a run reached by its ref alone
        never names its session to a caller who may not see it)."""
        check_session_id(session_id)
        info = await self.directory.lookup(session_id)
        if info is not None:
            info = await caller_view(self.directory, info, start=start, claim=claim)
            if info is None and (claim or missing):  # a listing only leaves it out
                audit_hidden(session_id)
        if info is None and missing:
            raise NotFoundError(missing, field="ref")
        if info is None:
            if self.directory.standalone:
                raise NotFoundError(f"no session {session_id}", field="session_id")
            raise NotFoundError(
                f"session {session_id} is not known to this resource service: the kernel "
                "registers its sessions (RegisterSession); start the service with --standalone "
                "to admit any session id",
                field="session_id",
            )
        if info.deleted:
            raise NotFoundError(f"session {session_id} was deleted", field="session_id")
        if info.archived:
            raise SessionArchivedError(
                f"session {session_id} is archived; it admits no more operations",
                field="session_id",
            )
        return info

    @asynccontextmanager
    async def hold(self, session_id: str, *, start: bool = False) -> AsyncIterator[SessionInfo]:
        """Check the session and hold its gate for the duration of the block."""
        async with self._exclusive(session_id):
            yield await self.check(session_id, start=start)

    async def register(self, session_id: str, *, cwd: str | None = None, owner: str = "") -> bool:
        """Register the session under its gate; returns whether anything changed."""
        check_session_id(session_id)
        check_session_cwd(cwd or "")
        check_length("owner", owner)
        async with self._exclusive(session_id):
            return await self.directory.register_session(session_id, cwd=cwd, owner=owner)

    @asynccontextmanager
    async def archiving(self, session_id: str, *, deleted: bool = False) -> AsyncIterator[bool]:
        """Hold the session's gate, record the archive (whether it changed anything is
        yielded), and keep holding the gate for the block: no start or lease acquisition of the
        session gets in between the archive and what the block does (stopping its runs)."""
        check_session_id(session_id)
        async with self._exclusive(session_id):
            yield await self.directory.archive_session(session_id, deleted=deleted)

    @asynccontextmanager
    async def _exclusive(self, session_id: str) -> AsyncIterator[None]:
        check_session_id(session_id)
        lock, users = self._locks.get(session_id, (asyncio.Lock(), 0))
        self._locks[session_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[session_id]
            if users == 1:
                del self._locks[session_id]
            else:
                self._locks[session_id] = (lock, users - 1)

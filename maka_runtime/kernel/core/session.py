"""The session header, turn records and the queries stores answer."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal, TypedDict

from maka_runtime.kernel.core.boundary import DEFAULT_PROFILE, INITIAL_REVISION, Boundary, Profile
from maka_runtime.kernel.core.log.events import TurnStatus

SessionStatus = Literal["active", "running", "waiting_for_user", "blocked", "aborted"]
PermissionMode = Literal["ask", "bypass"]

SESSION_STATUSES: Final = ("active", "running", "waiting_for_user", "blocked", "aborted")
PERMISSION_MODES: Final = ("ask", "bypass")
SCHEMA_VERSION: Final = 1


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionHeader:
    """Everything the kernel knows about a session besides its log.

    ``backend_options`` are free-form settings for the session's backend (for the scripted
    backend: a default ``script``).
    """

    id: str
    workspace_root: str
    cwd: str
    created_at: int
    last_used_at: int
    name: str = ""
    title_is_manual: bool = False
    is_flagged: bool = False
    labels: tuple[str, ...] = ()
    is_archived: bool = False
    status: SessionStatus = "active"
    status_updated_at: int = 0
    has_unread: bool = False
    backend: str = "scripted"
    llm_connection_slug: str = ""
    connection_locked: bool = False
    model: str = ""
    permission_mode: PermissionMode = "ask"
    schema_version: int = SCHEMA_VERSION
    backend_options: Mapping[str, str] = field(default_factory=dict)
    #: The principal that created the session (empty: created before owners were recorded, or
    #: by the kernel itself; such a session belongs to the local principal). Never changes.
    owner: str = ""
    #: The execution boundary's permission profile (chosen at creation, never changed).
    profile: Profile = DEFAULT_PROFILE
    #: The expansions approved for the session (``allow_session``), oldest first; see
    #: :mod:`maka_runtime.kernel.core.boundary`.
    expansions: tuple[tuple[str, ...], ...] = ()
    #: The boundary's revision: 1 at creation, one more with every change.
    boundary_revision: int = INITIAL_REVISION

    @property
    def boundary(self) -> Boundary:
        """The session's execution boundary."""
        return Boundary(
            profile=self.profile,
            workspace_root=self.workspace_root,
            expansions=self.expansions,
            revision=self.boundary_revision,
        )


class HeaderPatch(TypedDict, total=False):
    """The header fields an update may change (every key optional)."""

    cwd: str
    last_used_at: int
    name: str
    title_is_manual: bool
    is_flagged: bool
    labels: tuple[str, ...]
    is_archived: bool
    status: SessionStatus
    status_updated_at: int
    has_unread: bool
    llm_connection_slug: str
    connection_locked: bool
    model: str
    permission_mode: PermissionMode
    backend_options: Mapping[str, str]
    expansions: tuple[tuple[str, ...], ...]
    boundary_revision: int


@dataclass(frozen=True, kw_only=True, slots=True)
class TurnRecord:
    """One turn of a session as the store derives it from the log."""

    turn_id: str
    status: TurnStatus
    text: str
    started_at: int
    first_seq: int
    ended_at: int = 0
    abort_source: str = ""
    aborted_at: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionQuery:
    """A page of sessions, newest first. ``None`` filters match everything."""

    archived: bool | None = None
    label: str | None = None
    #: Only sessions whose recorded owner is one of these (``None``: every owner).
    owners: tuple[str, ...] | None = None
    page_size: int = 50
    page_token: str = ""
    #: The page holds at most this many bytes (see :func:`~maka_runtime.kernel.core.sizes.fitting`),
    #: and at least one session.
    max_bytes: int = 2 * 1024 * 1024


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionPage:
    sessions: tuple[SessionHeader, ...]
    next_page_token: str = ""


#: Page tokens are opaque to clients: urlsafe base64 (unpadded) of a small versioned JSON array,
#: ``[version, "sessions", created_at, session_id]``. Anything else is refused as malformed.
PAGE_TOKEN_VERSION: Final = 1
MAX_PAGE_TOKEN_CHARS: Final = 1024
_MAX_CURSOR_INT: Final = 2**63 - 1


@dataclass(frozen=True, kw_only=True, slots=True)
class TurnPage:
    turns: tuple[TurnRecord, ...]
    #: Pass as ``after_seq`` for the next page; 0 on the last page.
    next_after_seq: int = 0


def encode_page_token(created_at: int, session_id: str, *, kind: str = "sessions") -> str:
    """An opaque cursor: the last item of a page (sessions are ordered newest first; with
    ``kind="interactions"`` the item is a request, ordered oldest first)."""
    raw = json.dumps([PAGE_TOKEN_VERSION, kind, created_at, session_id], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_page_token(token: str, *, kind: str = "sessions") -> tuple[int, str]:
    """The cursor of :func:`encode_page_token`; a malformed token is the caller's fault
    (:class:`~maka_runtime.kernel.core.errors.InvalidRequestError` on ``page_token``), whatever it
    holds: it never reaches the store unchecked."""
    from maka_runtime.kernel.core.errors import InvalidRequestError

    refused = InvalidRequestError(
        "page_token", "not a token this server issued; pass back a next_page_token unchanged"
    )
    if len(token) > MAX_PAGE_TOKEN_CHARS:
        raise refused
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        value = json.loads(raw.decode())
    except (ValueError, UnicodeDecodeError) as error:
        raise refused from error
    match value:
        case [int(version), str(token_kind), int(created_at), str(session_id)] if (
            version == PAGE_TOKEN_VERSION
            and token_kind == kind
            and type(version) is int
            and type(created_at) is int
            and 0 <= created_at <= _MAX_CURSOR_INT
            and 0 < len(session_id) <= 256
        ):
            return created_at, session_id
    raise refused

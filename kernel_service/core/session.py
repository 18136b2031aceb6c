"""The session header, turn records and the queries stores answer."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal, TypedDict

from kernel_service.core.events import TurnStatus

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
    page_size: int = 50
    page_token: str = ""
    #: The page holds at most this many bytes (see :func:`~kernel_service.core.sizes.fitting`),
    #: and at least one session.
    max_bytes: int = 2 * 1024 * 1024


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionPage:
    sessions: tuple[SessionHeader, ...]
    next_page_token: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class TurnPage:
    turns: tuple[TurnRecord, ...]
    #: Pass as ``after_seq`` for the next page; 0 on the last page.
    next_after_seq: int = 0


def encode_page_token(created_at: int, session_id: str) -> str:
    """An opaque cursor: the last session of a page (sessions are ordered newest first)."""
    raw = f"{created_at}:{session_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_page_token(token: str) -> tuple[int, str]:
    """The cursor of :func:`encode_page_token`; a malformed token is the caller's fault."""
    from kernel_service.core.errors import InvalidRequestError

    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        created_at, session_id = raw.split(":", 1)
        return int(created_at), session_id
    except (ValueError, UnicodeDecodeError) as error:
        raise InvalidRequestError("page_token", "not a token this server issued") from error

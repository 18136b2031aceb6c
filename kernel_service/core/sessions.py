"""Creating and updating session headers: the caller's spec, checked, becomes a header/patch."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kernel_service.core.backend import BackendRegistry
from kernel_service.core.errors import InvalidRequestError
from kernel_service.core.session import (
    PERMISSION_MODES,
    HeaderPatch,
    PermissionMode,
    SessionHeader,
)
from kernel_service.core.validation import (
    check_backend_options,
    check_labels,
    check_length,
)


@dataclass(frozen=True, kw_only=True, slots=True)
class NewSession:
    """What a caller says about a session it creates; empty values take defaults."""

    workspace_root: str
    cwd: str = ""
    name: str = ""
    backend: str = "scripted"
    model: str = ""
    permission_mode: str = "ask"
    labels: Sequence[str] = ()
    llm_connection_slug: str = ""
    connection_locked: bool = False
    backend_options: Mapping[str, str] = field(default_factory=dict)
    session_id: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionUpdate:
    """Changes to a session; ``None`` leaves a field as it is."""

    name: str | None = None
    is_flagged: bool | None = None
    labels: Sequence[str] | None = None
    model: str | None = None
    permission_mode: str | None = None
    archived: bool | None = None
    has_unread: bool | None = None
    cwd: str | None = None


def _check_path(field_name: str, path: str) -> str:
    check_length(field_name, path)
    if not path or not os.path.isabs(path) or "\0" in path:
        raise InvalidRequestError(field_name, "must be an absolute path")
    return os.path.normpath(path)


def _check_workspace_root(path: str) -> str:
    workspace_root = _check_path("workspace_root", path)
    if not os.path.isdir(workspace_root):
        problem = "is not a directory" if os.path.exists(workspace_root) else "does not exist"
        raise InvalidRequestError("workspace_root", f"{workspace_root!r} {problem}")
    return workspace_root


def _check_cwd(path: str, workspace_root: str) -> str:
    """An absolute directory inside *workspace_root*, after resolving ``..`` and symlinks."""
    cwd = _check_path("cwd", path)
    root = os.path.realpath(workspace_root)
    resolved = os.path.realpath(cwd)
    if os.path.commonpath([root, resolved]) != root:
        raise InvalidRequestError(
            "cwd",
            f"{cwd!r} is outside the workspace root {workspace_root!r} (resolves to {resolved!r})",
        )
    if not os.path.isdir(resolved):
        problem = "is not a directory" if os.path.exists(resolved) else "does not exist"
        raise InvalidRequestError("cwd", f"{cwd!r} {problem}")
    return cwd


def _check_mode(mode: str) -> PermissionMode:
    if mode not in PERMISSION_MODES:
        raise InvalidRequestError(
            "permission_mode", f"must be one of {', '.join(PERMISSION_MODES)}"
        )
    return mode  # type: ignore[return-value]


def _check_name(name: str) -> str:
    check_length("name", name)
    if "\0" in name:
        raise InvalidRequestError("name", "must not contain NUL")
    return name.strip()


def _check_model(model: str) -> str:
    check_length("model", model)
    if "\0" in model:
        raise InvalidRequestError("model", "must not contain NUL")
    return model


def _check_backend(kind: str, backends: BackendRegistry) -> str:
    check_length("backend", kind)
    if not backends.knows(kind):
        names = ", ".join(sorted(backends.kinds())) or "none"
        raise InvalidRequestError("backend", f"unknown backend kind {kind!r} (known: {names})")
    return kind


def build_header(
    spec: NewSession, session_id: str, now: int, backends: BackendRegistry
) -> SessionHeader:
    workspace_root = _check_workspace_root(spec.workspace_root)
    cwd = _check_cwd(spec.cwd, workspace_root) if spec.cwd else workspace_root
    backend = _check_backend(spec.backend, backends)
    name = _check_name(spec.name)
    check_length("llm_connection_slug", spec.llm_connection_slug)
    return SessionHeader(
        id=session_id,
        workspace_root=workspace_root,
        cwd=cwd,
        created_at=now,
        last_used_at=now,
        name=name,
        title_is_manual=bool(name),
        labels=check_labels(spec.labels),
        status="active",
        status_updated_at=now,
        backend=backend,
        llm_connection_slug=spec.llm_connection_slug,
        connection_locked=spec.connection_locked,
        model=_check_model(spec.model),
        permission_mode=_check_mode(spec.permission_mode),
        backend_options=check_backend_options(spec.backend_options),
    )


def patch_for(update: SessionUpdate, now: int, header: SessionHeader) -> HeaderPatch:
    """The header changes *update* asks of the session *header* (checked, nothing applied)."""
    patch: HeaderPatch = {}
    if update.name is not None:
        patch["name"] = _check_name(update.name)
        patch["title_is_manual"] = True
    if update.is_flagged is not None:
        patch["is_flagged"] = update.is_flagged
    if update.labels is not None:
        patch["labels"] = check_labels(update.labels)
    if update.model is not None:
        patch["model"] = _check_model(update.model)
    if update.permission_mode is not None:
        patch["permission_mode"] = _check_mode(update.permission_mode)
    if update.archived is not None:
        patch["is_archived"] = update.archived
    if update.has_unread is not None:
        patch["has_unread"] = update.has_unread
    if update.cwd is not None:
        patch["cwd"] = _check_cwd(update.cwd, header.workspace_root)
    return patch

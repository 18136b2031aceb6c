"""Sessions: the table of what the kernel holds in memory per session, and header specs.

:class:`SessionTable` is the one mutable structure the kernel's parts share: each session's
runtime (its log, backend generation and active run). A caller's spec for a new session or an
update, checked, becomes a header or a patch (:func:`build_header`, :func:`patch_for`).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from maka_runtime.kernel.core.backend import BackendRegistry, StopMode
from maka_runtime.kernel.core.boundary import DEFAULT_PROFILE, PROFILES, Profile
from maka_runtime.kernel.core.deps import KernelDeps
from maka_runtime.kernel.core.errors import InvalidRequestError, describe
from maka_runtime.kernel.core.log.events import StoredMessage, SystemNote
from maka_runtime.kernel.core.log.session_log import SessionLog
from maka_runtime.kernel.core.session import (
    PERMISSION_MODES,
    HeaderPatch,
    PermissionMode,
    SessionHeader,
    TurnPage,
    TurnRecord,
)
from maka_runtime.kernel.core.sizes import fitting
from maka_runtime.kernel.core.turns.generation import Generation
from maka_runtime.kernel.core.turns.quarantine import block
from maka_runtime.kernel.core.turns.run import Run, UnconfirmedRun
from maka_runtime.kernel.core.validation import (
    check_backend_options,
    check_labels,
    check_length,
    check_not_system,
    check_outside,
)

log = logging.getLogger("maka_runtime.kernel.core")


@dataclass(eq=False)
class SessionRuntime:
    """What the kernel holds in memory for one session."""

    session_id: str
    log: SessionLog
    generation: Generation | None = None
    generations_built: int = 0
    failed_disposals: list[Generation] = field(default_factory=list)
    active_run: Run | None = None
    stop_epoch: int = 0
    resumed: bool = False
    #: Stops that named a turn not admitted yet: turn id -> (source, mode), oldest first
    #: (see :mod:`maka_runtime.kernel.core.turns.admission`).
    early_stops: dict[str, tuple[str, StopMode]] = field(default_factory=dict)
    #: Runs a failed stop could not confirm ended, by ref: the session takes no turn until
    #: each is confirmed (see :mod:`maka_runtime.kernel.core.turns.confirm`).
    unconfirmed_runs: dict[str, UnconfirmedRun] = field(default_factory=dict)

    @property
    def permanent_failure(self) -> Exception | None:
        generations = [*self.failed_disposals, self.generation]
        for generation in generations:
            if generation is not None and generation.dispose_failure is not None:
                return generation.dispose_failure
        return None

    def note_generation(self, generation: Generation) -> None:
        """Track a generation that failed its disposal (for quarantine and re-reporting)."""
        if generation.dispose_failure is not None and generation not in self.failed_disposals:
            self.failed_disposals.append(generation)

    def is_current(self, generation: Generation) -> bool:
        return self.generation is generation and generation.active


class SessionTable:
    """Every session the kernel holds in memory, made on first use, and their logs."""

    def __init__(self, deps: KernelDeps) -> None:
        self._deps = deps
        self._runtimes: dict[str, SessionRuntime] = {}

    def session(self, session_id: str) -> SessionRuntime:
        runtime = self._runtimes.get(session_id)
        if runtime is None:
            deps = self._deps
            session_log = SessionLog(
                session_id, deps.store, deps.tasks, max_entry_bytes=deps.max_event_bytes
            )
            runtime = SessionRuntime(session_id, session_log)
            self._runtimes[session_id] = runtime
        return runtime

    def get(self, session_id: str) -> SessionRuntime | None:
        return self._runtimes.get(session_id)

    def forget(self, session_id: str) -> SessionRuntime | None:
        return self._runtimes.pop(session_id, None)

    def runtimes(self) -> list[SessionRuntime]:
        return list(self._runtimes.values())

    def active_run(self, session_id: str) -> Run | None:
        runtime = self._runtimes.get(session_id)
        return runtime.active_run if runtime is not None else None

    def active_runs(self) -> list[Run]:
        return [rt.active_run for rt in self._runtimes.values() if rt.active_run is not None]

    async def append(
        self, session_id: str, messages: Sequence[StoredMessage], header: HeaderPatch | None = None
    ) -> list[StoredMessage]:
        """Commit *messages* to the session's log (with *header* in the same transaction)."""
        return await self.session(session_id).log.append(messages, header)

    async def dispose_idle_generations(self) -> list[Exception | None]:
        """Dispose every idle cached backend; busy ones are retired when their run settles.

        Returns the disposal failures and the stored one of every permanently quarantined
        session (re-reported, never retried).
        """
        failures: list[Exception | None] = []
        for runtime in self.runtimes():
            failures.append(runtime.permanent_failure)
            generation = runtime.generation
            if generation is None or not generation.active:
                continue
            if runtime.active_run is not None or generation.reservations:
                generation.retire_when_idle = True
                continue
            runtime.generation = None
            try:
                await generation.dispose()
            except Exception as disposal_failure:
                failures.append(disposal_failure)
                failures.append(await block(self._deps.store, self._deps.now, runtime.session_id))
            runtime.note_generation(generation)
        return failures

    async def record_failure(
        self, session_id: str, turn_id: str, what: str, failure: Exception
    ) -> None:
        """Put a failure on the record (system note) and in the log; never raises."""
        log.error("%s (session %s, turn %s): %s", what, session_id, turn_id, describe(failure))
        note = SystemNote(
            kind="error",
            text=f"{what}: {failure}",
            turn_id=turn_id,
            ts=self._deps.now(),
            id=self._deps.new_id(),
        )
        try:
            await self.append(session_id, [note])
        except asyncio.CancelledError:
            raise
        except Exception as note_failure:
            log.error(
                "could not record a failure of session %s: %s", session_id, describe(note_failure)
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
    #: The execution boundary's profile (see :mod:`maka_runtime.kernel.core.boundary`).
    profile: str = DEFAULT_PROFILE


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


def _check_workspace_root(path: str, protected: Sequence[str]) -> str:
    workspace_root = _check_path("workspace_root", path)
    check_not_system("workspace_root", workspace_root)
    check_outside("workspace_root", workspace_root, protected)
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
    spec: NewSession,
    session_id: str,
    now: int,
    backends: BackendRegistry,
    owner: str = "",
    *,
    protected: Sequence[str] = (),
) -> SessionHeader:
    """The header of a new session; *protected* are directories its workspace must stay clear
    of (:attr:`KernelLimits.protected_dirs`)."""
    workspace_root = _check_workspace_root(spec.workspace_root, protected)
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
        owner=owner,
        profile=_check_profile(spec.profile),
    )


def _check_profile(profile: str) -> Profile:
    if profile not in PROFILES:
        raise InvalidRequestError("profile", f"must be one of {', '.join(PROFILES)}")
    return profile  # type: ignore[return-value]


def patch_for(
    update: SessionUpdate, now: int, header: SessionHeader, protected: Sequence[str] = ()
) -> HeaderPatch:
    """The header changes *update* asks of the session *header* (checked, nothing applied).

    A session whose workspace overlaps a *protected* directory (one stored before the rule)
    takes no new ``cwd``: its ``workspace_root`` is refused as at creation.
    """
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
        check_outside("workspace_root", header.workspace_root, protected)
        patch["cwd"] = _check_cwd(update.cwd, header.workspace_root)
    return patch


def turn_page(turns: Sequence[TurnRecord], after_seq: int, count: int, max_bytes: int) -> TurnPage:
    """The turns that started after log entry *after_seq*, at most *count* and *max_bytes*."""
    later = [t for t in turns if t.first_seq > after_seq]
    page = fitting(later[:count], max_bytes)
    more = len(later) > len(page)
    return TurnPage(turns=tuple(page), next_after_seq=page[-1].first_seq if more else 0)

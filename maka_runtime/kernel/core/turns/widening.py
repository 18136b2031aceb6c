"""Settling a sandbox-boundary request against the session's execution boundary.

An ``allow_session`` answer to a request that names an expansion widens the session's boundary
durably, in the very transaction that records the answer (the hosted authority's
``resolve_interaction`` with ``widen``: a new revision, or none when the boundary already
covers it), before the backend hears the answer, so a crash never leaves an approval on record
without its widening; the log records it as a ``boundary_widened`` note next to the request's
``interaction_resolved``. An ``allow_session`` record that reaches the recorder unsettled is
widened here (:meth:`~maka_runtime.kernel.core.store.SessionStore.widen_boundary`).
``allow_once`` and ``deny`` change nothing durable: the backend applies an ``allow_once``
expansion to its retry only.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from maka_runtime.kernel.core.boundary import Boundary, BoundaryError, describe
from maka_runtime.kernel.core.deps import KernelDeps
from maka_runtime.kernel.core.log.events import SandboxBoundaryRequest, StoredMessage, SystemNote
from maka_runtime.kernel.core.store import InteractionRecord
from maka_runtime.kernel.core.turns.run import Run

log = logging.getLogger("maka_runtime.kernel.core")


def _widens(record: InteractionRecord) -> tuple[str, ...]:
    request = record.request
    if (
        record.kind == "sandbox_boundary"
        and record.status == "answered"
        and record.decision == "allow_session"
        and isinstance(request, SandboxBoundaryRequest)
    ):
        return request.expansion
    return ()


async def settle_boundary(
    deps: KernelDeps, run: Run, record: InteractionRecord
) -> tuple[list[StoredMessage], Boundary | None]:
    """The log entries the settlement adds and the session's boundary after it (``None``: the
    answer does not touch the boundary)."""
    granted = _widens(record)
    if not granted:
        return [], None
    if not record.settlement:
        record = await _widen(deps, run, record, granted)
    if record.settlement not in ("widened", "covered"):
        text = f"the session's boundary was not widened: {record.settlement}"
        log.warning("session %s: %s", run.session_id, text)
        note = _note(deps, run, record, "error", text)
        return [note], None
    boundary = (await deps.store.read_header(run.session_id)).boundary
    if record.settlement == "covered":
        return [], boundary
    text = (
        f"the session's execution boundary now grants {describe(granted)} "
        f"(revision {record.widened_revision})"
    )
    return [_note(deps, run, record, "boundary_widened", text)], boundary


async def _widen(
    deps: KernelDeps, run: Run, record: InteractionRecord, granted: tuple[str, ...]
) -> InteractionRecord:
    """*record* settled against the boundary now (a resolution the store did not settle)."""
    try:
        header, changed = await deps.store.widen_boundary(run.session_id, granted)
    except BoundaryError as error:
        return replace(record, settlement=str(error))
    if not changed:
        return replace(record, settlement="covered")
    revision = header.boundary.revision
    return replace(record, settlement="widened", widened_revision=revision)


def _note(
    deps: KernelDeps, run: Run, record: InteractionRecord, kind: str, text: str
) -> SystemNote:
    return SystemNote(
        kind=kind,  # type: ignore[arg-type]
        text=text,
        source=record.request_id,
        turn_id=run.turn_id,
        id=deps.new_id(),
        ts=deps.now(),
    )

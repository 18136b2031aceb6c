"""A run: one turn executing on one backend generation, from reservation to settlement.

Phases, in order (a run may end early in any of them)::

    reserving ──▶ beginning ──▶ binding ──▶ sending ──▶ settled
       │ (stale: the generation was stopped, disposed or replaced, or the session was
       │  stopped while reserving → ends quietly, nothing written, never sends)
       └──────────────────────────────────────────────────────────▶ settled

``start_outcome`` resolves once the run knows whether it will send (``SENDING``), was stopped
before it could (``STOPPED``) or went stale (``STALE``); it holds the exception if starting
failed. A stop that arrives while the run is beginning or binding is *claimed* against the run
(``stop_op``) and waits for ``start_outcome``.
"""

from __future__ import annotations

import asyncio
import enum
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kernel_service.core.backend import StopMode, StopReason
from kernel_service.core.interactions.owners import (
    InteractionOwnerHandle,
    MessageOwnerHandle,
    RunIdentity,
)
from kernel_service.core.log.events import InteractionKind, StoredMessage
from kernel_service.core.session import SessionHeader
from kernel_service.core.turns.generation import Generation

if TYPE_CHECKING:
    from kernel_service.core.turns.stop import StopOperation


class RunPhase(enum.Enum):
    RESERVING = "reserving"
    BEGINNING = "beginning"
    BINDING = "binding"
    SENDING = "sending"
    SETTLED = "settled"


class StartOutcome(enum.Enum):
    SENDING = "sending"
    STOPPED = "stopped"
    STALE = "stale"


@dataclass(eq=False)
class Run:
    run_id: str
    session_id: str
    turn_id: str
    text: str
    epoch: int
    start_outcome: asyncio.Future[StartOutcome]
    phase: RunPhase = RunPhase.RESERVING
    generation: Generation | None = None
    claimed: bool = False
    begun: bool = False
    marked_running: bool = False
    first_seq: int = 0
    stop_op: StopOperation | None = None
    interaction: InteractionOwnerHandle | None = None
    messages: MessageOwnerHandle | None = None
    backend_failure: Exception | None = None
    authority_failures: list[Exception] = field(default_factory=list)
    pending_requests: dict[str, InteractionKind] = field(default_factory=dict)
    #: The last sandbox-boundary request denied in this turn (for the "denied" note).
    denied_request: Any = None
    settled: asyncio.Event = field(default_factory=asyncio.Event)
    terminal_failure: Exception | None = None
    stale_reason: str = ""
    header: SessionHeader | None = None
    open_message: tuple[str, list[str]] | None = None
    start_failed: bool = False
    # Set (synchronously) when the run records its own terminal state: from then on a stop or
    # an abandoned stream has nothing left to stop and must not project a second terminal state.
    ending: bool = False
    uncommitted: deque[asyncio.Future[list[StoredMessage]]] = field(default_factory=deque)

    @property
    def identity(self) -> RunIdentity:
        assert self.generation is not None
        return RunIdentity(
            session_id=self.session_id,
            turn_id=self.turn_id,
            run_id=self.run_id,
            generation=self.generation.number,
        )

    @property
    def stopped(self) -> bool:
        return self.stop_op is not None


@dataclass(frozen=True, kw_only=True, slots=True)
class StopOutcome:
    """What a successful stop did. ``turn_id`` is empty when nothing was running."""

    session_id: str
    turn_id: str = ""
    source: str = ""
    mode: StopMode = "immediate"
    reason: StopReason = "user_stop"

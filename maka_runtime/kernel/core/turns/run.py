"""A run: one turn executing on one backend generation, from reservation to settlement.

Its lifecycle is :class:`~maka_runtime.kernel.core.turns.state.RunState`, moved only by
:meth:`Run.advance`. ``start_outcome`` resolves once the run knows whether it will send
(``SENDING``), was stopped before it could (``STOPPED``) or went stale (``STALE``); it holds the
exception if starting failed. A stop that arrives while the run is starting is *claimed* against
the run (``stop_op``) and waits for ``start_outcome``. ``records_done`` and ``sealed`` keep the
terminal state last: see :mod:`.stop` and :mod:`.recording`.
"""

from __future__ import annotations

import asyncio
import enum
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from maka_runtime.kernel.core.backend import StopMode, StopReason
from maka_runtime.kernel.core.interactions.owners import (
    InteractionOwnerHandle,
    MessageOwnerHandle,
    RunIdentity,
)
from maka_runtime.kernel.core.log.events import InteractionKind, StoredMessage
from maka_runtime.kernel.core.session import SessionHeader
from maka_runtime.kernel.core.turns.generation import Generation
from maka_runtime.kernel.core.turns.state import ON_RECORD, RunState, transition

if TYPE_CHECKING:
    from maka_runtime.kernel.core.turns.stop import StopOperation


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
    state: RunState = RunState.RESERVING
    previous_state: RunState | None = None
    generation: Generation | None = None
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
    uncommitted: deque[asyncio.Future[list[StoredMessage]]] = field(default_factory=deque)
    #: Set once the run has put on the record everything it will (its backend's stream ended,
    #: its owners closed and released); a stop writes the terminal state after it.
    records_done: asyncio.Event = field(default_factory=asyncio.Event)
    #: Set when the turn's terminal state is written: whatever of the turn comes later is
    #: discarded (logged), never appended — the terminal state is the turn's last record.
    sealed: bool = False

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

    @property
    def on_record(self) -> bool:
        """Whether the turn's opening entries are committed (and its end must be recorded)."""
        return self.state in ON_RECORD

    @property
    def ending(self) -> bool:
        """Whether the run records (or has recorded) its own terminal state: from then on a
        stop or an abandoned stream has nothing left to stop and must not project a second
        terminal state."""
        return RunState.ENDING in (self.state, self.previous_state)

    @property
    def sending(self) -> bool:
        """Whether the backend is running the turn (the turn takes messages)."""
        return self.state is RunState.SENDING

    def advance(self, target: RunState) -> None:
        """Move to *target* (see :func:`~maka_runtime.kernel.core.turns.state.transition`)."""
        self.previous_state = self.state
        self.state = transition(self.state, target)
        if target is RunState.SETTLED:
            self.settled.set()


@dataclass(frozen=True, kw_only=True, slots=True)
class StopOutcome:
    """What a successful stop did. ``turn_id`` is empty when nothing was stopped; it names a
    turn not admitted yet when the stop was remembered for it (see
    :func:`~maka_runtime.kernel.core.turns.admission.remember_early_stop`)."""

    session_id: str
    turn_id: str = ""
    source: str = ""
    mode: StopMode = "immediate"
    reason: StopReason = "user_stop"

    @property
    def stopped(self) -> bool:
        """Whether a turn was stopped (or will end aborted as soon as it is admitted)."""
        return bool(self.turn_id)


@dataclass(frozen=True, kw_only=True, slots=True)
class UnconfirmedRun:
    """A tool run a failed stop could not confirm ended (see :mod:`.confirm`)."""

    session_id: str
    turn_id: str
    ref: str

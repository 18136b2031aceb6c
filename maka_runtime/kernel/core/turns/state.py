"""The states of a run and the one function that moves a run between them.

A run goes through these states in order; it may leave the path early in any of them::

    RESERVING ──▶ CLAIMED ──▶ BEGUN ──▶ BINDING ──▶ SENDING ──▶ ENDING ──▶ SETTLED
        │            │          │          │            │
        │            └──────────┴──────────┴─▶ START_FAILED ──▶ SETTLED
        ├─▶ START_FAILED (refused after reserving, or the backend could not be built)
        └─▶ STALE (its generation was stopped, disposed or replaced, or the session was
            stopped while reserving: nothing written, never sends) ──▶ SETTLED

* ``CLAIMED``: the run holds the session's one active-run slot; nothing is written yet.
* ``BEGUN``: its user message and ``turn_state running`` are committed, and the header says
  ``running`` (one transaction).
* ``BINDING``: the interaction and message owners are bound.
* ``SENDING``: the backend's events are being recorded.
* ``ENDING``: the run records its own terminal state. From then on a stop or an abandoned
  stream has nothing left to stop and must not project a second terminal state.
* ``SETTLED``: every owner is released and the slot is free. A run cancelled with the kernel
  goes there from any state.

A stop is claimed against a run in any state (its ``stop_op``); it is not a state of its own:
a run stopped while ``BINDING`` never sends and settles once the stop has projected it.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping


class RunState(enum.Enum):
    RESERVING = "reserving"
    CLAIMED = "claimed"
    BEGUN = "begun"
    BINDING = "binding"
    SENDING = "sending"
    ENDING = "ending"
    START_FAILED = "start_failed"
    STALE = "stale"
    SETTLED = "settled"


_S = RunState

#: Every legal move; anything else is a bug in the kernel and is refused.
TRANSITIONS: Mapping[RunState, frozenset[RunState]] = {
    _S.RESERVING: frozenset({_S.CLAIMED, _S.STALE, _S.START_FAILED, _S.SETTLED}),
    _S.CLAIMED: frozenset({_S.BEGUN, _S.START_FAILED, _S.SETTLED}),
    _S.BEGUN: frozenset({_S.BINDING, _S.START_FAILED, _S.SETTLED}),
    _S.BINDING: frozenset({_S.SENDING, _S.START_FAILED, _S.SETTLED}),
    _S.SENDING: frozenset({_S.ENDING, _S.SETTLED}),
    _S.ENDING: frozenset({_S.SETTLED}),
    _S.START_FAILED: frozenset({_S.SETTLED}),
    _S.STALE: frozenset({_S.SETTLED}),
    _S.SETTLED: frozenset(),
}

#: States in which the turn's opening entries are on the record.
ON_RECORD = frozenset({_S.BEGUN, _S.BINDING, _S.SENDING, _S.ENDING})


class IllegalRunTransitionError(RuntimeError):
    """A run was asked to move between two states that are not connected (a kernel bug)."""

    def __init__(self, current: RunState, target: RunState) -> None:
        super().__init__(f"a run cannot go from {current.value} to {target.value}")
        self.current = current
        self.target = target


class EndWriter(enum.Enum):
    """Who records a turn's terminal state: exactly one writer per run."""

    #: The stop claimed against the run projects it ``aborted`` (one stop operation per run).
    STOP = "stop"
    #: The run itself records ``completed``/``failed`` (``ENDING``: no stop can claim it now).
    RUN = "run"
    #: The start failure records ``failed`` (if the turn was on the record at all).
    START_FAILURE = "start_failure"
    #: Nothing is on the record (a stale run) or the kernel closed under the run.
    NOBODY = "nobody"


def end_writer(state: RunState, *, stop_claimed: bool) -> EndWriter:
    """Who records the terminal state of a run in *state* that is settling."""
    if state is RunState.START_FAILED:
        return EndWriter.START_FAILURE
    if stop_claimed:
        return EndWriter.STOP
    if state is RunState.SENDING:
        return EndWriter.RUN
    return EndWriter.NOBODY


def transition(current: RunState, target: RunState) -> RunState:
    """The state after moving from *current* to *target*; an illegal move raises."""
    if target not in TRANSITIONS[current]:
        raise IllegalRunTransitionError(current, target)
    return target

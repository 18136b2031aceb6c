"""The run's lifecycle: one enum, one transition function, illegal moves refused."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from maka_runtime.kernel.core.turns.run import Run
from maka_runtime.kernel.core.turns.state import (
    TRANSITIONS,
    EndWriter,
    IllegalRunTransitionError,
    RunState,
    end_writer,
    transition,
)

HAPPY_PATH = [
    RunState.RESERVING,
    RunState.CLAIMED,
    RunState.BEGUN,
    RunState.BINDING,
    RunState.SENDING,
    RunState.ENDING,
    RunState.SETTLED,
]


def test_the_happy_path_is_legal_move_by_move() -> None:
    for current, target in itertools.pairwise(HAPPY_PATH):
        assert transition(current, target) is target


@pytest.mark.parametrize(
    ("current", "target"),
    [
        (RunState.RESERVING, RunState.SENDING),  # sending without a claim or a record
        (RunState.CLAIMED, RunState.ENDING),  # ending what never began
        (RunState.SENDING, RunState.START_FAILED),  # a run that sends has started
        (RunState.ENDING, RunState.SENDING),  # no way back
        (RunState.STALE, RunState.CLAIMED),  # a stale run never claims the session
        (RunState.SETTLED, RunState.SETTLED),  # settles once
    ],
)
def test_illegal_moves_are_refused(current: RunState, target: RunState) -> None:
    with pytest.raises(IllegalRunTransitionError, match=f"from {current.value} to {target.value}"):
        transition(current, target)


def test_every_state_but_settled_can_settle_and_settled_is_final() -> None:
    for state in RunState:
        if state is RunState.SETTLED:
            assert TRANSITIONS[state] == frozenset()
        else:
            assert RunState.SETTLED in TRANSITIONS[state]


async def test_a_run_settles_only_through_advance() -> None:
    run = Run(
        run_id="r",
        session_id="s",
        turn_id="t",
        text="hi",
        epoch=0,
        start_outcome=asyncio.get_running_loop().create_future(),
    )
    with pytest.raises(IllegalRunTransitionError):
        run.advance(RunState.ENDING)
    assert run.state is RunState.RESERVING
    run.advance(RunState.STALE)
    assert not run.settled.is_set()
    run.advance(RunState.SETTLED)
    assert run.settled.is_set()
    assert not run.on_record and not run.ending


@pytest.mark.parametrize(
    ("state", "stop_claimed", "writer"),
    [
        (RunState.SENDING, False, EndWriter.RUN),
        (RunState.SENDING, True, EndWriter.STOP),
        (RunState.BINDING, True, EndWriter.STOP),
        (RunState.START_FAILED, True, EndWriter.START_FAILURE),
        (RunState.START_FAILED, False, EndWriter.START_FAILURE),
        (RunState.STALE, False, EndWriter.NOBODY),
    ],
)
def test_one_writer_records_the_terminal_state(
    state: RunState, stop_claimed: bool, writer: EndWriter
) -> None:
    assert end_writer(state, stop_claimed=stop_claimed) is writer

"""The shared race helpers and task owner: losers are always awaited, cancellation is never
swallowed, every task has an owner."""

from __future__ import annotations

import asyncio
import logging

import pytest

from maka_runtime.common.aio import Interrupted, TaskOwner, race, unless


async def _forever(cleaned: list[str], name: str) -> None:
    try:
        await asyncio.get_running_loop().create_future()
    finally:
        cleaned.append(name)


async def test_race_returns_the_winner_after_the_losers_have_finished_cleaning_up() -> None:
    cleaned: list[str] = []
    winner = asyncio.get_running_loop().create_future()
    winner.set_result("done")
    index = await race(_forever(cleaned, "a"), winner, _forever(cleaned, "b"))
    assert index == 1
    assert sorted(cleaned) == ["a", "b"]


async def test_race_with_nothing_finished_in_time_returns_none_and_cleans_up() -> None:
    cleaned: list[str] = []
    assert await race(_forever(cleaned, "a"), within=0) is None
    assert cleaned == ["a"]


async def test_cancelling_the_caller_of_race_cancels_every_contestant_and_propagates() -> None:
    cleaned: list[str] = []
    entered = asyncio.Event()

    async def contestant(name: str) -> None:
        entered.set()
        await _forever(cleaned, name)

    caller = asyncio.ensure_future(race(contestant("a"), contestant("b")))
    await entered.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert sorted(cleaned) == ["a", "b"]


async def test_unless_gives_the_result_of_work_that_finishes_first() -> None:
    async def work() -> int:
        return 7

    assert await unless(work(), asyncio.Event()) == 7


async def test_unless_raises_interrupted_when_the_event_comes_first_and_awaits_the_work() -> None:
    cleaned: list[str] = []
    event = asyncio.Event()
    started = asyncio.Event()

    async def work() -> None:
        started.set()
        await _forever(cleaned, "work")

    waiting = asyncio.ensure_future(unless(work(), event))
    await started.wait()
    event.set()
    with pytest.raises(Interrupted):
        await waiting
    assert cleaned == ["work"]


async def test_unless_with_the_event_already_set_never_starts_the_work() -> None:
    started: list[bool] = []

    async def work() -> None:
        started.append(True)

    event = asyncio.Event()
    event.set()
    with pytest.raises(Interrupted):
        await unless(work(), event)  # closed, not left "never awaited" (warnings are errors)
    assert started == []


async def test_unless_propagates_the_failure_of_the_work() -> None:
    async def work() -> None:
        raise ValueError("broken")

    with pytest.raises(ValueError, match="broken"):
        await unless(work(), asyncio.Event())


async def test_cancelling_the_caller_of_unless_is_not_swallowed() -> None:
    cleaned: list[str] = []
    started = asyncio.Event()

    async def work() -> None:
        started.set()
        await _forever(cleaned, "work")

    caller = asyncio.ensure_future(unless(work(), asyncio.Event()))
    await started.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert cleaned == ["work"]


async def test_task_owner_close_cancels_and_awaits_everything_it_spawned() -> None:
    owner = TaskOwner()
    cleaned: list[str] = []
    started = [asyncio.Event(), asyncio.Event()]

    async def task(name: str, started: asyncio.Event) -> None:
        started.set()
        await _forever(cleaned, name)

    owner.spawn(task("a", started[0]), name="a")
    owner.spawn(task("b", started[1]), name="b")
    assert len(owner) == 2
    for event in started:
        await event.wait()
    await owner.close()
    assert sorted(cleaned) == ["a", "b"]
    assert len(owner) == 0


async def test_task_owner_logs_a_failure_only_when_asked(caplog: pytest.LogCaptureFixture) -> None:
    owner = TaskOwner()

    async def fail(message: str) -> None:
        raise RuntimeError(message)

    with caplog.at_level(logging.ERROR, logger="maka.aio"):
        owner.spawn(fail("quiet"), name="quiet")
        owner.spawn(fail("loud"), name="loud", log_failure=True)
        await owner.wait()
    logged = [record.getMessage() for record in caplog.records]
    assert logged == ["background task loud failed"]

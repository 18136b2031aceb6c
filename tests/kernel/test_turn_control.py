"""A backend's wait for an answer (``TurnControl.answer``) when the answer and an immediate stop
arrive together: the stop wins, so the stop's own closure of the request (a denial) is never
recorded as the user's denial, and nothing answered is acted on after the stop."""

from __future__ import annotations

import asyncio

import pytest

from maka_runtime.kernel.backends.agent import TurnControl
from maka_runtime.kernel.backends.bash_call import Stopped
from maka_runtime.kernel.core.backend import SandboxBoundaryResponse


@pytest.mark.parametrize("decision", ["deny", "allow_once"])
async def test_an_answer_that_came_with_an_immediate_stop_counts_as_the_stop(
    decision: str,
) -> None:
    control = TurnControl(None)
    control.begin("s")
    waiter = control.expect_answer("r1")
    waiting = asyncio.create_task(control.answer("r1", waiter))
    await asyncio.sleep(0)  # the backend now waits for the answer
    assert not waiting.done()
    # Both land before the waiting task runs again: the answer first, then the stop.
    control.resolve("r1", SandboxBoundaryResponse(request_id="r1", decision=decision))  # type: ignore[arg-type]
    await control.stop("user_stop", "immediate")
    with pytest.raises(Stopped):
        await waiting


async def test_an_answer_before_any_stop_is_the_answer() -> None:
    control = TurnControl(None)
    control.begin("s")
    waiter = control.expect_answer("r1")
    waiting = asyncio.create_task(control.answer("r1", waiter))
    await asyncio.sleep(0)
    control.resolve("r1", SandboxBoundaryResponse(request_id="r1", decision="deny"))
    answer = await waiting
    assert isinstance(answer, SandboxBoundaryResponse) and answer.decision == "deny"
    # An after_step stop does not interrupt a wait either.
    waiter = control.expect_answer("r2")
    waiting = asyncio.create_task(control.answer("r2", waiter))
    await asyncio.sleep(0)
    control.resolve("r2", SandboxBoundaryResponse(request_id="r2", decision="allow_once"))
    await control.stop("user_stop", "after_step")
    assert (await waiting).decision == "allow_once"

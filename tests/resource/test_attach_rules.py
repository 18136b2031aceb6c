"""The rules of an Attach stream, on the domain core with a real PTY: only a stream that
attached with a controller id may send controls, under the run's lease."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from maka_runtime.resource.core import (
    ConnectionContext,
    InvalidRequestError,
    OperationConflictError,
    PtyControl,
    ShellRunRecord,
)
from tests.resource.conftest import SESSION_ID, Host, bash_input, read_until

FIRST = ConnectionContext("attach-1")
SECOND = ConnectionContext("attach-2")


@pytest.fixture
async def cat_run(host: Host) -> AsyncIterator[ShellRunRecord]:
    run = await host.coordinator.run_background_bash(
        bash_input("stty -echo; echo READY; cat", "call.attach", pty=True)
    )
    await read_until(host.manager, run.ref, b"READY")
    yield run
    await host.coordinator.stop(SESSION_ID, run.ref)


def _never() -> PtyControl:
    raise AssertionError("the control was read before the stream was allowed to send one")


async def test_a_stream_without_a_controller_id_may_not_send_controls(
    host: Host, cat_run: ShellRunRecord
) -> None:
    session = await host.coordinator.open_attach("", cat_run.ref, FIRST)
    assert session.record.session_id == SESSION_ID  # the run's own session
    assert session.next_sequence == 0
    with pytest.raises(InvalidRequestError) as refused:
        await session.control(1, _never)
    assert refused.value.field == "controller_id"
    assert host.coordinator.controller_of(cat_run.ref) is None


async def test_a_stream_with_a_controller_id_holds_the_lease_and_controls_under_it(
    host: Host, cat_run: ShellRunRecord
) -> None:
    session = await host.coordinator.open_attach(
        SESSION_ID, cat_run.ref, FIRST, controller_id="attached"
    )
    assert session.next_sequence == 1
    assert host.coordinator.controller_of(cat_run.ref) == ("attach-1", "attached")

    applied = await session.control(1, lambda: PtyControl("input", input="hi\r"))
    again = await session.control(1, lambda: PtyControl("input", input="hi\r"))
    assert again == applied and applied.input_bytes == 3  # an exact retry: the same result

    with pytest.raises(OperationConflictError):  # the lease is the first stream's
        await host.coordinator.open_attach(SESSION_ID, cat_run.ref, SECOND, controller_id="other")

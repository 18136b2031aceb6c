"""Controller leases on a live PTY run (``cat``, which echoes input back until EOF)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from maka_runtime.resource.core import (
    ConnectionContext,
    ControllerIdentity,
    ControllerReleaseResult,
    ControlRequest,
    ControlResult,
    InvalidRequestError,
    OperationConflictError,
    PtyControl,
    ShellRunPtyControlClosedError,
    ShellRunRecord,
)
from tests.resource.conftest import SESSION_ID, Host, bash_input, read_until

FIRST = ConnectionContext("connection-1")
SECOND = ConnectionContext("connection-2")


@pytest.fixture
async def cat_run(host: Host) -> AsyncIterator[ShellRunRecord]:
    run = await host.coordinator.run_background_bash(
        bash_input(
            'stty -echo; echo READY; while IFS= read -r line; do echo "got:$line"; stty size; done',
            "call.cat",
            pty=True,
        )
    )
    await read_until(host.manager, run.ref, b"READY")
    yield run
    await host.coordinator.stop(SESSION_ID, run.ref)


def identity(run: ShellRunRecord, controller_id: str = "controller-1") -> ControllerIdentity:
    return ControllerIdentity(SESSION_ID, run.ref, controller_id)


def control(
    run: ShellRunRecord, sequence: int, control: PtyControl, controller_id: str = "controller-1"
) -> ControlRequest:
    return ControlRequest(SESSION_ID, run.ref, controller_id, sequence, control)


def typed(text: str) -> PtyControl:
    return PtyControl(kind="input", input=text)


async def test_a_second_holder_is_refused_and_the_same_holder_reacquires(
    host: Host, cat_run: ShellRunRecord
) -> None:
    coordinator = host.coordinator
    first = await coordinator.acquire_controller(identity(cat_run), FIRST)
    assert first.next_sequence == 1
    with pytest.raises(OperationConflictError):
        await coordinator.acquire_controller(identity(cat_run, "controller-2"), SECOND)
    with pytest.raises(OperationConflictError):
        await coordinator.acquire_controller(identity(cat_run, "controller-2"), FIRST)
    with pytest.raises(OperationConflictError):  # same controller id, another connection
        await coordinator.acquire_controller(identity(cat_run), SECOND)
    await coordinator.control_controller(control(cat_run, 1, typed("a\r")), FIRST)
    again = await coordinator.acquire_controller(identity(cat_run), FIRST)
    assert again.next_sequence == 2  # idempotent: the same lease, not a fresh one
    assert coordinator.controller_of(cat_run.ref) == ("connection-1", "controller-1")


async def test_sequences_must_be_exactly_next_and_retries_are_exact(
    host: Host, cat_run: ShellRunRecord
) -> None:
    coordinator = host.coordinator
    await coordinator.acquire_controller(identity(cat_run), FIRST)
    with pytest.raises(OperationConflictError, match="next sequence is 1"):
        await coordinator.control_controller(control(cat_run, 2, typed("skip\r")), FIRST)
    one = await coordinator.control_controller(control(cat_run, 1, typed("one\r")), FIRST)
    assert one == ControlResult("controller-1", 1, input_bytes=4, cols=80, rows=24)
    two = await coordinator.control_controller(control(cat_run, 2, typed("two\r")), FIRST)
    # Exact retries of either earlier control return the identical result and write nothing.
    assert await coordinator.control_controller(control(cat_run, 1, typed("one\r")), FIRST) == one
    assert await coordinator.control_controller(control(cat_run, 2, typed("two\r")), FIRST) == two
    with pytest.raises(OperationConflictError, match="different control"):
        await coordinator.control_controller(control(cat_run, 2, typed("TWO\r")), FIRST)
    with pytest.raises(OperationConflictError, match="out of order"):
        await coordinator.control_controller(control(cat_run, 4, typed("four\r")), FIRST)
    three = await coordinator.control_controller(
        control(cat_run, 3, PtyControl(kind="both", input="three\r", cols=120, rows=40)), FIRST
    )
    assert (three.cols, three.rows) == (120, 40)
    # Each line is answered with "got:<line>" and the size at that moment.
    seen = await read_until(host.manager, cat_run.ref, b"got:three\r\n40 120")
    assert seen.count(b"got:one") == 1 and seen.count(b"got:two") == 1
    assert b"got:TWO" not in seen and b"got:skip" not in seen and b"got:four" not in seen


async def test_control_without_the_lease_is_a_conflict(host: Host, cat_run: ShellRunRecord) -> None:
    coordinator = host.coordinator
    with pytest.raises(OperationConflictError, match="acquire it first"):
        await coordinator.control_controller(control(cat_run, 1, typed("x\r")), FIRST)
    await coordinator.acquire_controller(identity(cat_run), FIRST)
    with pytest.raises(OperationConflictError):
        await coordinator.control_controller(
            control(cat_run, 1, typed("x\r"), controller_id="controller-2"), SECOND
        )
    assert host.drain_requests == []


async def test_release_frees_the_lease_once(host: Host, cat_run: ShellRunRecord) -> None:
    coordinator = host.coordinator
    await coordinator.acquire_controller(identity(cat_run), FIRST)
    assert await coordinator.release_controller(identity(cat_run), FIRST) == (
        ControllerReleaseResult("controller-1", released=True)
    )
    assert await coordinator.release_controller(identity(cat_run), FIRST) == (
        ControllerReleaseResult("controller-1", released=False)
    )
    taken = await coordinator.acquire_controller(identity(cat_run, "controller-2"), SECOND)
    assert taken.next_sequence == 1


async def test_a_closed_connection_releases_its_leases(host: Host, cat_run: ShellRunRecord) -> None:
    coordinator = host.coordinator
    await coordinator.acquire_controller(identity(cat_run), FIRST)
    assert coordinator.connection_closed("connection-1") == 1
    assert coordinator.controller_of(cat_run.ref) is None
    await coordinator.acquire_controller(identity(cat_run, "controller-2"), SECOND)
    assert await coordinator.release_controller(identity(cat_run), FIRST) == (
        ControllerReleaseResult("controller-1", released=False)
    )
    assert coordinator.connection_closed("connection-1") == 0


async def test_the_lease_ends_with_the_run(host: Host, cat_run: ShellRunRecord) -> None:
    coordinator = host.coordinator
    await coordinator.acquire_controller(identity(cat_run), FIRST)
    stopped = await coordinator.stop(SESSION_ID, cat_run.ref)
    assert stopped.status == "cancelled"
    assert coordinator.controller_of(cat_run.ref) is None
    with pytest.raises(ShellRunPtyControlClosedError):
        await coordinator.control_controller(control(cat_run, 1, typed("late\r")), FIRST)
    with pytest.raises(ShellRunPtyControlClosedError):
        await coordinator.acquire_controller(identity(cat_run), FIRST)
    assert await coordinator.release_controller(identity(cat_run), FIRST) == (
        ControllerReleaseResult("controller-1", released=False)
    )
    assert host.drain_requests == []


async def test_draining_drops_every_controller(host: Host, cat_run: ShellRunRecord) -> None:
    coordinator = host.coordinator
    await coordinator.acquire_controller(identity(cat_run), FIRST)
    coordinator.begin_drain()
    assert coordinator.controller_of(cat_run.ref) is None
    assert await coordinator.release_controller(identity(cat_run), FIRST) == (
        ControllerReleaseResult("controller-1", released=False)
    )
    await coordinator.close()
    assert (await coordinator.get(SESSION_ID, cat_run.ref)).status == "cancelled"


async def test_pipes_runs_take_no_controller(host: Host) -> None:
    run = await host.coordinator.run_background_bash(bash_input("sleep 60", "call.pipes"))
    with pytest.raises(InvalidRequestError) as refused:
        await host.coordinator.acquire_controller(identity(run), FIRST)
    assert refused.value.field == "ref"
    with pytest.raises(InvalidRequestError):
        await host.manager.write_stdin(SESSION_ID, run.ref, "x")
    await host.coordinator.stop(SESSION_ID, run.ref)


@pytest.mark.parametrize(
    ("value", "field"),
    [
        (PtyControl(kind="input", input="x" * (32 * 1024 + 1)), "control.input"),
        (PtyControl(kind="input", input="é" * (16 * 1024 + 1)), "control.input"),
        (PtyControl(kind="input", input=""), "control.input"),
        (PtyControl(kind="resize", cols=1, rows=24), "control.cols"),
        (PtyControl(kind="resize", cols=241, rows=24), "control.cols"),
        (PtyControl(kind="resize", cols=80, rows=0), "control.rows"),
        (PtyControl(kind="resize", cols=80, rows=101), "control.rows"),
        (PtyControl(kind="resize", input="x", cols=80, rows=24), "control.input"),
        (PtyControl(kind="bogus"), "control.kind"),  # type: ignore[arg-type]
    ],
)
async def test_bad_controls_are_invalid_and_change_nothing(
    host: Host, cat_run: ShellRunRecord, value: PtyControl, field: str
) -> None:
    coordinator = host.coordinator
    await coordinator.acquire_controller(identity(cat_run), FIRST)
    with pytest.raises(InvalidRequestError) as refused:
        await coordinator.control_controller(control(cat_run, 1, value), FIRST)
    assert refused.value.field == field
    assert refused.value.code == "invalid_request"
    after = await coordinator.acquire_controller(identity(cat_run), FIRST)
    assert after.next_sequence == 1
    assert (after.screen.cols, after.screen.rows) == (80, 24)


@pytest.mark.parametrize("sequence", [0, -1])
async def test_zero_or_negative_sequences_are_invalid(
    host: Host, cat_run: ShellRunRecord, sequence: int
) -> None:
    await host.coordinator.acquire_controller(identity(cat_run), FIRST)
    with pytest.raises(InvalidRequestError) as refused:
        await host.coordinator.control_controller(control(cat_run, sequence, typed("x")), FIRST)
    assert refused.value.field == "sequence"


async def test_the_size_limits_themselves_are_accepted(host: Host, cat_run: ShellRunRecord) -> None:
    coordinator = host.coordinator
    await coordinator.acquire_controller(identity(cat_run), FIRST)
    for sequence, (cols, rows) in enumerate([(2, 1), (240, 100)], start=1):
        result = await coordinator.control_controller(
            control(cat_run, sequence, PtyControl(kind="resize", cols=cols, rows=rows)), FIRST
        )
        assert (result.cols, result.rows) == (cols, rows)
    largest = "y" * (32 * 1024 - 1) + "\r"
    result = await coordinator.control_controller(control(cat_run, 3, typed(largest)), FIRST)
    assert result.input_bytes == 32 * 1024

"""Stops over real gRPC with the real pair: the terminal state is last, a stop that could not
confirm its run's end fails and quarantines the session until the kernel confirms it."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from maka_runtime_client import errors
from maka_runtime_client.aio import KernelClient, ResourceClient
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb

from tests.integration.conftest import Pair, kinds, start_pair
from tests.integration.test_shell_pair import running_run

BYPASS = kpb.PERMISSION_MODE_BYPASS
CONFIRM_TIMEOUT = 1.5


def turn_entries(log: list[kpb.SessionEvent], turn_id: str) -> list[kpb.SessionEvent]:
    entries = []
    for event in log:
        kind = event.WhichOneof("event")
        inner = getattr(event, kind) if kind else None
        if getattr(inner, "turn_id", "") == turn_id or event.turn_id == turn_id:
            entries.append(event)
    return entries


def assert_terminal_last(log: list[kpb.SessionEvent], turn_id: str) -> None:
    entries = turn_entries(log, turn_id)
    terminal = [
        i
        for i, e in enumerate(entries)
        if e.WhichOneof("event") == "turn_state" and e.turn_state.status != kpb.TURN_STATUS_RUNNING
    ]
    assert terminal == [len(entries) - 1], kinds(entries)


async def test_a_shell_turn_stopped_mid_command_ends_with_its_terminal_state(
    kernel: KernelClient, resource: ResourceClient, workspace: Path
) -> None:
    session = await kernel.create_session(str(workspace), permission_mode=BYPASS)
    stream = kernel.start_turn(session.id, "echo started; sleep 30")
    reading = asyncio.ensure_future(_collect(stream))
    await running_run(resource, session.id)
    await kernel.stop_session(session.id)
    # Answered once the turn is on the record: read at once, nothing of it comes later.
    log = list(await kernel.read_messages(session.id))
    entries = turn_entries(log, stream.turn_id)
    assert kinds(entries)[-3:] == ["complete", "system_note", "turn_state"]
    assert entries[-1].turn_state.status == kpb.TURN_STATUS_ABORTED
    assert entries[-2].system_note.kind == kpb.SYSTEM_NOTE_KIND_ABORT
    [result] = [e.tool_result for e in entries if e.WhichOneof("event") == "tool_result"]
    assert result.is_error and "cut short by an immediate stop" in result.output
    assert_terminal_last(log, stream.turn_id)
    await reading
    await kernel.wait_until_settled(session.id, stream.turn_id, "echo started; sleep 30")
    assert list(await kernel.read_messages(session.id)) == log


@pytest.fixture
def slow_confirm_pair(tmp_path: Path) -> Iterator[Pair]:
    started = start_pair(tmp_path, "--stop-confirm-timeout", str(CONFIRM_TIMEOUT))
    try:
        yield started
    finally:
        started.resource.signal(signal.SIGCONT)
        started.stop()
        started.proxy.close()


@pytest.mark.slow
async def test_a_stop_the_frozen_resource_service_cannot_confirm_fails_and_quarantines(
    slow_confirm_pair: Pair, workspace: Path
) -> None:
    pair = slow_confirm_pair
    marker = workspace / "M"
    async with (
        KernelClient(pair.kernel.address) as kernel,
        ResourceClient(pair.resource.address) as resource,
    ):
        session = await kernel.create_session(str(workspace), permission_mode=BYPASS)
        command = f"sleep 4; touch {marker}"
        stream = kernel.start_turn(session.id, command)
        reading = asyncio.ensure_future(_collect(stream))
        run = await running_run(resource, session.id)
        pair.resource.signal(signal.SIGSTOP)
        try:
            began = time.monotonic()
            with pytest.raises(errors.MakaError) as stopped:
                await kernel.stop_session(session.id)
            took = time.monotonic() - began
            assert stopped.value.reason == "OWNER_CLEANUP_FAILED"
            assert stopped.value.code == grpc.StatusCode.UNAVAILABLE
            assert stopped.value.metadata["run_ref"] == run.ref
            assert stopped.value.metadata["session_id"] == session.id
            assert took < CONFIRM_TIMEOUT + 1.0, took
            with pytest.raises(errors.MakaError) as refused:
                await _collect(kernel.start_turn(session.id, "echo again"))
            assert refused.value.reason == "SESSION_QUARANTINED"
            assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION
            assert "quarantined" in refused.value.message
            assert refused.value.metadata["run_ref"] == run.ref
            log = list(await kernel.read_messages(session.id))
            watch = kernel.watch_session(session.id, after_seq=log[-1].seq)
        finally:
            pair.resource.signal(signal.SIGCONT)
        async with asyncio.timeout(60):
            async for event in watch:
                if (
                    event.WhichOneof("event") == "system_note"
                    and event.system_note.kind == kpb.SYSTEM_NOTE_KIND_RUN_CONFIRMED
                ):
                    assert event.system_note.source == run.ref
                    break
            await watch.aclose()
            await reading
            await kernel.wait_until_settled(session.id, stream.turn_id, command)
            again = kernel.start_turn(session.id, "echo again")
            events = await _collect(again)
        assert events[-1].turn_state.status == kpb.TURN_STATUS_COMPLETED
        log = list(await kernel.read_messages(session.id))
        assert_terminal_last(log, stream.turn_id)
        entries = turn_entries(log, stream.turn_id)
        notes = [e.system_note.kind for e in entries if e.WhichOneof("event") == "system_note"]
        assert kpb.SYSTEM_NOTE_KIND_RUN_UNCONFIRMED in notes


async def _collect(stream: object) -> list[kpb.SessionEvent]:
    return [event async for event in stream]  # type: ignore[attr-defined]

"""A frozen resource service (SIGSTOP) fails the kernel's turns within ``--resource-timeout``.

The kernel and the resource service run as two processes; the resource service is stopped with
SIGSTOP (and always continued in a ``finally``), so its TCP port still accepts connections but
nothing answers: no gRPC reply, no HTTP/2 ping acknowledgement. Every call and stream of the
kernel's link carries a deadline or a liveness check (keepalive pings with a timeout), so the
turn fails with an error naming the resource service and what timed out, and ends ``FAILED``
with its terminal state last.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from maka_runtime_client.aio import KernelClient, ResourceClient
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb

from tests.integration.conftest import Pair, kinds, start_pair
from tests.integration.test_shell_pair import running_run

BYPASS = kpb.PERMISSION_MODE_BYPASS
#: Slack on top of the resource timeout: the bound is the setting, plus scheduling on a busy
#: machine and the turn's own bookkeeping.
SLACK = 3.0


@contextlib.contextmanager
def frozen(pair: Pair) -> Iterator[None]:
    """The resource service stopped with SIGSTOP for the block (continued whatever happens)."""
    pair.resource.signal(signal.SIGSTOP)
    try:
        yield
    finally:
        pair.resource.signal(signal.SIGCONT)


@contextlib.contextmanager
def pair_with_timeout(tmp: Path, seconds: float) -> Iterator[Pair]:
    started = start_pair(tmp, "--resource-timeout", f"{seconds:g}")
    try:
        yield started
    finally:
        started.resource.signal(signal.SIGCONT)
        started.stop()
        started.proxy.close()


async def _rest(pair: Pair, stream: AsyncIterator[kpb.SessionEvent], bound: float) -> list[Any]:
    """The rest of *stream*, failing (with the kernel's log) if it takes far beyond *bound*."""
    try:
        async with asyncio.timeout(bound + 30):
            return [event async for event in stream]
    except TimeoutError:
        raise AssertionError(f"the turn hung; the kernel logged:\n{pair.kernel.stderr}") from None


async def _warm(kernel: KernelClient, workspace: Path) -> str:
    """A session whose first turn ran: registered with the resource service, channel up."""
    session = await kernel.create_session(str(workspace), permission_mode=BYPASS)
    events = [event async for event in kernel.start_turn(session.id, "true")]
    assert events[-1].turn_state.status == kpb.TURN_STATUS_COMPLETED, kinds(events)
    return session.id


def _failed_on_the_resource_service(events: list[kpb.SessionEvent]) -> str:
    """The turn failed, its terminal state last, with an error naming the resource service."""
    assert events[-1].WhichOneof("event") == "turn_state", kinds(events)
    assert events[-1].turn_state.status == kpb.TURN_STATUS_FAILED, kinds(events)
    errors = [event.error.message for event in events if event.HasField("error")]
    results = [event.tool_result for event in events if event.HasField("tool_result")]
    assert errors, kinds(events)
    assert results and results[-1].is_error
    text = " ".join(errors)
    assert "resource service" in text
    return text


async def _new_turn_while_frozen(tmp: Path, workspace: Path, seconds: float) -> float:
    with pair_with_timeout(tmp, seconds) as pair:
        async with KernelClient(pair.kernel.address) as kernel:
            session_id = await _warm(kernel, workspace)
            with frozen(pair):
                began = time.monotonic()
                events = await _rest(pair, kernel.start_turn(session_id, "echo hi"), seconds)
                took = time.monotonic() - began
            text = _failed_on_the_resource_service(events)
            print(f"new turn while frozen (timeout {seconds:g} s): failed after {took:.1f} s")
            assert took <= seconds + SLACK, (took, text)
            return took


async def _running_turn_when_frozen(tmp: Path, workspace: Path, seconds: float) -> float:
    with pair_with_timeout(tmp, seconds) as pair:
        async with (
            KernelClient(pair.kernel.address) as kernel,
            ResourceClient(pair.resource.address) as resource,
        ):
            session_id = await _warm(kernel, workspace)
            stream = kernel.start_turn(session_id, "sleep 600")
            events: list[kpb.SessionEvent] = []
            async for event in stream:
                events.append(event)
                if event.HasField("tool_call"):
                    break
            run = await running_run(resource, session_id)
            assert run.status == rpb.RUN_STATUS_RUNNING
            with frozen(pair):
                began = time.monotonic()
                events += await _rest(pair, stream, seconds)
                took = time.monotonic() - began
            text = _failed_on_the_resource_service(events)
            print(f"running turn when frozen (timeout {seconds:g} s): failed after {took:.1f} s")
            assert took <= seconds + SLACK, (took, text)
            return took


async def test_a_new_turn_fails_within_the_resource_timeout(
    tmp_path: Path, workspace: Path
) -> None:
    await _new_turn_while_frozen(tmp_path, workspace, 2)


async def test_a_running_turn_fails_within_the_resource_timeout(
    tmp_path: Path, workspace: Path
) -> None:
    await _running_turn_when_frozen(tmp_path, workspace, 2)


@pytest.mark.slow
async def test_with_the_default_timeout_a_new_turn_fails_within_it(
    tmp_path: Path, workspace: Path
) -> None:
    await _new_turn_while_frozen(tmp_path, workspace, 10)


@pytest.mark.slow
async def test_with_the_default_timeout_a_running_turn_fails_within_it(
    tmp_path: Path, workspace: Path
) -> None:
    await _running_turn_when_frozen(tmp_path, workspace, 10)

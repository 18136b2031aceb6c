"""A stop held at each point of a shell tool call, over the core with a fake tool host.

Two guarantees (see the README's "What the kernel guarantees"):

* the terminal ``turn_state`` is the turn's last record: whatever the turn records — the
  cut-short ``tool_result``, ``complete``, the ``abort`` note — comes before it, nothing after;
* an immediate stop succeeds only once the tool host confirmed the turn's run ended; otherwise
  it fails (``RunEndUnconfirmedError`` naming the run's ref) and the session is quarantined
  until the kernel has confirmed the end — in this process or, after a restart, in the next.

The fake host holds each step of a run on an event, so every interleaving is forced, not timed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest

from maka_runtime.kernel.backends.agent import SessionApprovals
from maka_runtime.kernel.backends.shell import KIND, shell_factory
from maka_runtime.kernel.core import (
    BackendRegistry,
    RunEndUnconfirmedError,
    RunUnconfirmedQuarantineError,
    SessionHeader,
    SessionStore,
)
from maka_runtime.kernel.core.log.events import (
    SandboxBoundaryRequest,
    StoredMessage,
    SystemNote,
    ToolResult,
    TurnState,
)
from maka_runtime.kernel.core.tools import (
    HostShutdownReport,
    RunEnded,
    RunEvent,
    RunInfo,
    RunOutput,
    RunSpec,
    RunStarted,
    ToolHostError,
)
from maka_runtime.kernel.core.validation import KernelLimits
from tests.kernel.harness import Harness, build_harness, kinds

REF = "maka://runtime/background-tasks/fake-1"


@dataclass
class HeldHost:
    """A tool host whose one foreground run advances only when the test says so."""

    #: Released: the session is known (the run may be launched).
    admitted: asyncio.Event = field(default_factory=asyncio.Event)
    #: Released: the launched run reports ``started``.
    launch: asyncio.Event = field(default_factory=asyncio.Event)
    #: Released: the run ends by itself (exit 0).
    finish: asyncio.Event = field(default_factory=asyncio.Event)
    #: Released: the run's end is reported (``RunEnded``) once it has ended.
    report_end: asyncio.Event = field(default_factory=asyncio.Event)
    #: Released: stop_run answers (a frozen host does not).
    answer_stops: asyncio.Event = field(default_factory=asyncio.Event)
    #: A run that ignores its stop (the backend then never ends its stream by itself).
    deaf: bool = False
    ensuring: asyncio.Event = field(default_factory=asyncio.Event)
    launching: asyncio.Event = field(default_factory=asyncio.Event)
    streaming: asyncio.Event = field(default_factory=asyncio.Event)
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    stops: list[str] = field(default_factory=list)
    status: str = "running"

    def __post_init__(self) -> None:
        for gate in (self.admitted, self.launch, self.report_end, self.answer_stops):
            gate.set()

    @property
    def address(self) -> str:
        return "held"

    async def ensure_session(self, header: SessionHeader, *, wait: bool = True) -> None:
        if wait:
            self.ensuring.set()
            await self.admitted.wait()

    async def archive_session(self, session_id: str, *, deleted: bool = False) -> list[RunInfo]:
        return []

    async def run_foreground(self, spec: RunSpec) -> AsyncIterator[RunEvent]:
        self.launching.set()
        await self.launch.wait()
        yield RunStarted(run=RunInfo(ref=REF, status="running", pid=1))
        yield RunOutput(data=b"partial\n")
        self.streaming.set()
        await self.finish.wait()
        if self.status == "running":
            self.status = "completed"
        self.ended.set()
        await self.report_end.wait()
        exit_code = 0 if self.status == "completed" else 130
        message = "" if self.status == "completed" else "Command cancelled"
        yield RunEnded(
            run=RunInfo(
                ref=REF,
                status=self.status,  # type: ignore[arg-type]
                exit_code=exit_code,
                message=message,
                output="partial\n",
            )
        )

    async def start_background(self, spec: RunSpec) -> RunInfo:
        raise AssertionError("no background run here")

    async def stop_run(self, session_id: str, ref: str) -> RunInfo:
        self.stops.append(ref)
        await self.answer_stops.wait()
        if not self.deaf and self.status == "running":
            self.status = "cancelled"
            self.finish.set()
        return RunInfo(ref=ref, status=self.status, exit_code=130)  # type: ignore[arg-type]

    async def shutdown(self) -> HostShutdownReport:
        return HostShutdownReport(reached=True)


def harness_on(
    store: SessionStore, host: HeldHost, *, confirm: float = 10.0, settle: float = 10.0
) -> Harness:
    backends = BackendRegistry()
    backends.register(KIND, shell_factory(host, SessionApprovals(), confirm))
    limits = KernelLimits(stop_confirm_timeout=confirm, stop_settle_timeout=settle)
    return build_harness(store, backends, tool_host=host, limits=limits)


@pytest.fixture
async def host() -> HeldHost:
    return HeldHost()


@pytest.fixture
async def harness(store: SessionStore, host: HeldHost) -> AsyncIterator[Harness]:
    h = harness_on(store, host)
    yield h
    host.finish.set()
    await h.close()


def turn_tail(log: list[StoredMessage], turn_id: str) -> list[str]:
    """The turn's records from its first one on (the session's notes without a turn id are
    left out: they are not the turn's)."""
    return kinds([e for e in log if getattr(e, "turn_id", "") == turn_id])


def assert_terminal_last(log: list[StoredMessage], turn_id: str, status: str) -> None:
    entries = [e for e in log if getattr(e, "turn_id", "") == turn_id]
    terminal = [e for e in entries if isinstance(e, TurnState) and e.status != "running"]
    assert [t.status for t in terminal] == [status], kinds(entries)
    assert entries[-1] is terminal[0], kinds(entries)


async def start(
    harness: Harness, command: str, mode: str = "bypass"
) -> tuple[str, asyncio.Future[list[object]]]:
    session = await harness.session(backend=KIND, permission_mode=mode, workspace_root="/tmp")
    stream = harness.kernel.start_turn(session.id, "t1", text=command)
    reading = asyncio.ensure_future(_collect(stream))
    return session.id, reading


async def _collect(stream: object) -> list[object]:
    return [event async for event in stream]  # type: ignore[attr-defined]


def results(log: list[StoredMessage]) -> list[ToolResult]:
    return [e for e in log if isinstance(e, ToolResult)]


# -- the terminal state is last, wherever the stop lands ----------------------------------------

CUT_SHORT_END = ["tool_result", "complete", "system_note:abort", "turn_state:aborted"]


async def test_a_stop_before_the_run_starts(harness: Harness, host: HeldHost) -> None:
    host.admitted.clear()
    session_id, reading = await start(harness, "echo hi")
    await host.ensuring.wait()
    await harness.kernel.stop_session(session_id)
    await reading
    log = await harness.kernel.read_messages(session_id)
    assert turn_tail(log, "t1")[-4:] == CUT_SHORT_END
    assert results(log)[0].output == "not run: the turn was stopped"
    assert host.stops == []
    assert_terminal_last(log, "t1", "aborted")


async def test_a_stop_while_the_run_is_launching(harness: Harness, host: HeldHost) -> None:
    host.launch.clear()
    session_id, reading = await start(harness, "echo hi")
    await host.launching.wait()
    stopping = harness.kernel.stop_session(session_id)
    await asyncio.sleep(0)
    assert not stopping.done()  # it waits for the launch to report the run
    host.launch.set()
    await stopping
    await reading
    log = await harness.kernel.read_messages(session_id)
    assert turn_tail(log, "t1")[-4:] == CUT_SHORT_END
    [result] = results(log)
    assert result.is_error and "cut short by an immediate stop" in result.output
    assert result.run_ref == REF and REF in host.stops
    assert_terminal_last(log, "t1", "aborted")


async def test_a_stop_while_output_streams(harness: Harness, host: HeldHost) -> None:
    session_id, reading = await start(harness, "echo hi")
    await host.streaming.wait()
    await harness.kernel.stop_session(session_id)
    # Answered only now: everything of the turn is on the record, the terminal state last.
    log = await harness.kernel.read_messages(session_id)
    assert turn_tail(log, "t1")[-5:] == ["tool_output", *CUT_SHORT_END]
    [result] = results(log)
    assert result.output.startswith("partial\n") and result.exit_code == 130
    assert_terminal_last(log, "t1", "aborted")
    await reading


async def test_a_stop_after_the_run_ended_before_its_result_is_recorded(
    harness: Harness, host: HeldHost
) -> None:
    host.report_end.clear()
    session_id, reading = await start(harness, "echo hi")
    await host.streaming.wait()
    host.finish.set()
    await host.ended.wait()  # the run has ended on the host; its end is not reported yet
    stopping = harness.kernel.stop_session(session_id)
    await asyncio.sleep(0)
    for _ in range(20):
        await asyncio.sleep(0)
    assert not stopping.done()  # the stop waits for the turn to record the run's end
    host.report_end.set()
    await stopping
    await reading
    log = await harness.kernel.read_messages(session_id)
    tail = turn_tail(log, "t1")
    assert tail[-3:] == CUT_SHORT_END[1:]
    assert tail.index("tool_result") < tail.index("complete")
    [result] = results(log)
    assert (result.is_error, result.exit_code) == (False, 0)  # it had completed
    assert_terminal_last(log, "t1", "aborted")


async def test_a_stop_during_the_approval_wait(harness: Harness, host: HeldHost) -> None:
    session_id, reading = await start(harness, "echo hi", mode="ask")
    await _pending_request(harness, session_id)
    await harness.kernel.stop_session(session_id)
    await reading
    log = await harness.kernel.read_messages(session_id)
    tail = turn_tail(log, "t1")
    # The backend stop and the request's durable close run concurrently (the spec's rule): the
    # closure may come before or after the backend's last events, but before the turn's end.
    assert tail[-2:] == CUT_SHORT_END[-2:]
    assert sorted(tail[-5:-2]) == sorted(["interaction_resolved:closed", *CUT_SHORT_END[:2]])
    assert results(log)[0].output == "not run: the turn was stopped"
    assert not host.launching.is_set()
    assert_terminal_last(log, "t1", "aborted")


async def test_an_after_step_stop_ends_the_turn_at_the_boundary(
    harness: Harness, host: HeldHost
) -> None:
    session_id, reading = await start(harness, "echo hi")
    await host.streaming.wait()
    await harness.kernel.send_message(session_id, "echo second")
    await harness.kernel.stop_session(session_id, mode="after_step")
    # Delivered, not ended: the step goes on and nothing terminal is on the record yet.
    log = await harness.kernel.read_messages(session_id)
    assert "turn_state:aborted" not in kinds(log) and "system_note:abort" not in kinds(log)
    host.finish.set()
    await reading
    await harness.kernel.wait_settled(session_id)
    log = await harness.kernel.read_messages(session_id)
    tail = turn_tail(log, "t1")
    assert tail[-3:] == ["system_note:message_rejected", "system_note:abort", "turn_state:aborted"]
    assert "complete" in tail and tail.index("complete") < tail.index("system_note:abort")
    [result] = results(log)
    assert (result.is_error, result.exit_code) == (False, 0)
    assert_terminal_last(log, "t1", "aborted")


async def test_a_backend_that_does_not_end_its_stream_holds_the_stop_only_so_long(
    store: SessionStore,
) -> None:
    host = HeldHost()
    host.report_end.clear()  # the run ends on its stop, the turn's stream does not say so
    harness = harness_on(store, host, settle=0.05)
    try:
        session_id, reading = await start(harness, "echo hi")
        await host.streaming.wait()
        await harness.kernel.stop_session(session_id)
        log = await harness.kernel.read_messages(session_id)
        assert_terminal_last(log, "t1", "aborted")
        assert results(log) == []
        host.report_end.set()  # now the turn reports the end: after its terminal state
        await reading
        await harness.kernel.wait_settled(session_id)
        log = await harness.kernel.read_messages(session_id)
        assert results(log) == []  # discarded, never appended
        assert_terminal_last(log, "t1", "aborted")
    finally:
        host.report_end.set()
        await harness.close()


# -- the terminal state is last for every other ending too ---------------------------------------


async def test_a_completed_turn_ends_with_its_terminal_state(
    harness: Harness, host: HeldHost
) -> None:
    session_id, reading = await start(harness, "echo hi")
    await host.streaming.wait()
    await harness.kernel.send_message(session_id, "echo queued")  # rejected when it ends
    host.finish.set()
    await reading
    await harness.kernel.wait_settled(session_id)
    log = await harness.kernel.read_messages(session_id)
    tail = turn_tail(log, "t1")
    assert "system_note:message_rejected" in tail or "user" in tail[2:]
    assert_terminal_last(log, "t1", "completed")


async def test_a_failed_turn_ends_with_its_terminal_state(store: SessionStore) -> None:
    host = HeldHost()
    harness = harness_on(store, host)
    host.run_foreground = _failing_run  # type: ignore[method-assign]
    try:
        session_id, reading = await start(harness, "echo hi")
        await reading
        await harness.kernel.wait_settled(session_id)
        log = await harness.kernel.read_messages(session_id)
        assert turn_tail(log, "t1")[-3:] == ["tool_result", "error", "turn_state:failed"]
        assert_terminal_last(log, "t1", "failed")
    finally:
        await harness.close()


async def test_a_denied_turn_ends_with_its_terminal_state(harness: Harness) -> None:
    session_id, reading = await start(harness, "echo hi", mode="ask")
    request_id = await _pending_request(harness, session_id)
    await harness.kernel.answer_sandbox_boundary(session_id, request_id, "deny")
    await reading
    await harness.kernel.wait_settled(session_id)
    log = await harness.kernel.read_messages(session_id)
    assert turn_tail(log, "t1")[-4:] == [
        "tool_result",
        "complete",
        "system_note:denied",
        "turn_state:completed",
    ]
    assert_terminal_last(log, "t1", "completed")


async def test_an_abandoned_turn_ends_with_its_terminal_state(
    harness: Harness, host: HeldHost
) -> None:
    session = await harness.session(backend=KIND, permission_mode="bypass", workspace_root="/tmp")
    stream = harness.kernel.start_turn(session.id, "t1", text="echo hi")
    async for event in stream:
        if event.type == "tool_output":
            break
    await stream.aclose()  # the client goes away mid-command
    await harness.kernel.wait_settled(session.id)
    log = await harness.kernel.read_messages(session.id)
    assert turn_tail(log, "t1")[-4:] == CUT_SHORT_END
    assert_terminal_last(log, "t1", "aborted")


async def test_a_drained_turn_ends_with_its_terminal_state(
    harness: Harness, host: HeldHost
) -> None:
    session_id, reading = await start(harness, "echo hi")
    await host.streaming.wait()
    report = await harness.kernel.drain(grace=0.0, escalation_grace=5.0)
    assert [t.outcome for t in report.turns] == ["stopped_immediately"]
    await reading
    log = await harness.kernel.read_messages(session_id)
    assert turn_tail(log, "t1")[-4:] == CUT_SHORT_END
    assert_terminal_last(log, "t1", "aborted")


async def _failing_run(spec: RunSpec) -> AsyncIterator[RunEvent]:
    raise ToolHostError("the resource service refused the run")
    yield  # an async generator


async def _pending_request(harness: Harness, session_id: str) -> str:
    """The id of the turn's sandbox-boundary request, once it is on the record."""
    watch = await harness.kernel.watch_session(session_id)
    async for entry in watch:
        if isinstance(entry, SandboxBoundaryRequest):
            return entry.request_id
    raise AssertionError("the watch ended before a sandbox-boundary request")


# -- a stop that cannot confirm the run's end fails, and quarantines the session ----------------


async def test_an_unconfirmed_stop_fails_and_quarantines_until_confirmed(
    store: SessionStore,
) -> None:
    host = HeldHost(deaf=True)
    harness = harness_on(store, host, confirm=0.05, settle=0.05)
    try:
        session_id, reading = await start(harness, "sleep 4; touch M")
        await host.streaming.wait()
        host.answer_stops.clear()  # the resource service is frozen
        with pytest.raises(RunEndUnconfirmedError) as stopped:
            await harness.kernel.stop_session(session_id)
        assert stopped.value.refs == (REF,)
        assert stopped.value.metadata() == {
            "session_id": session_id,
            "run_ref": REF,
            "run_refs": REF,
        }
        log = await harness.kernel.read_messages(session_id)
        assert turn_tail(log, "t1")[-4:] == [
            "system_note:run_unconfirmed",
            "system_note:error",
            "system_note:abort",
            "turn_state:aborted",
        ]
        assert (await harness.kernel.get_session(session_id)).status == "blocked"
        host.finish.set()  # the command completes meanwhile: reported after the end
        await reading
        await harness.kernel.wait_settled(session_id)
        with pytest.raises(RunUnconfirmedQuarantineError, match="quarantined") as refused:
            await _collect(harness.kernel.start_turn(session_id, "t2", text="echo again"))
        assert refused.value.metadata()["run_ref"] == REF
        watch = await harness.kernel.watch_session(session_id, after_seq=log[-1].seq)
        host.answer_stops.set()  # the resource service answers again
        confirmed = await _first_note(watch, "run_confirmed")
        assert confirmed.source == REF and confirmed.turn_id == ""
        log = await harness.kernel.read_messages(session_id)
        assert_terminal_last(log, "t1", "aborted")
        assert results(log) == []
        assert (await harness.kernel.get_session(session_id)).status == "aborted"
        host.finish.clear()
        host.status = "running"
        turn = asyncio.ensure_future(
            _collect(harness.kernel.start_turn(session_id, "t2", text="echo again"))
        )
        await host.streaming.wait()
        host.finish.set()
        await turn
        log = await harness.kernel.read_messages(session_id)
        assert_terminal_last(log, "t2", "completed")
    finally:
        host.answer_stops.set()
        host.finish.set()
        await harness.close()


async def test_a_restarted_kernel_keeps_the_quarantine_of_an_unconfirmed_run(
    store: SessionStore,
) -> None:
    host = HeldHost(deaf=True)
    first = harness_on(store, host, confirm=0.05, settle=0.05)
    try:
        session_id, reading = await start(first, "sleep 4; touch M")
        await host.streaming.wait()
        host.answer_stops.clear()
        with pytest.raises(RunEndUnconfirmedError):
            await first.kernel.stop_session(session_id)
        host.finish.set()
        await reading
    finally:
        await first.close()  # the process ends before it could confirm the run
    second = harness_on(store, host, confirm=0.05, settle=0.05)
    try:
        assert await second.kernel.resume_unconfirmed() == 1
        with pytest.raises(RunUnconfirmedQuarantineError, match="quarantined"):
            await _collect(second.kernel.start_turn(session_id, "t2", text="echo again"))
        log = await second.kernel.read_messages(session_id)
        watch = await second.kernel.watch_session(session_id, after_seq=log[-1].seq)
        host.answer_stops.set()
        confirmed = await _first_note(watch, "run_confirmed")
        assert confirmed.source == REF
        assert await second.kernel.resume_unconfirmed() == 0  # on the record: nothing left
    finally:
        host.answer_stops.set()
        await second.close()


async def _first_note(watch: object, kind: str) -> SystemNote:
    async for entry in watch:  # type: ignore[attr-defined]
        if isinstance(entry, SystemNote) and entry.kind == kind:
            return entry
    raise AssertionError(f"the watch ended before a {kind} note")


# -- what a failure of the tool host says ------------------------------------------------------

LINK_FAILED = "the link to the resource service failed: no keepalive answer within 5 s"


class LinkFailsAfterStart(HeldHost):
    """The run starts and prints, then the link to the resource service fails."""

    async def run_foreground(self, spec: RunSpec) -> AsyncIterator[RunEvent]:
        yield RunStarted(run=RunInfo(ref=REF, status="running", pid=1))
        yield RunOutput(data=b"partial\n")
        raise ToolHostError(LINK_FAILED)


class StopFailsEarly(HeldHost):
    """A stop that fails at once, long before the confirmation bound, with the host's error."""

    async def stop_run(self, session_id: str, ref: str) -> RunInfo:
        self.stops.append(ref)
        raise ToolHostError(LINK_FAILED)


async def test_a_result_after_the_link_failed_names_the_started_run(store: SessionStore) -> None:
    harness = harness_on(store, LinkFailsAfterStart())
    try:
        session_id, reading = await start(harness, "make")
        await reading
        [result] = results(await harness.kernel.read_messages(session_id))
    finally:
        await harness.close()
    assert result.is_error and result.output == f"the tool could not run: {LINK_FAILED}"
    assert result.run_ref == REF  # before: "", though the run had started


async def test_a_failed_stop_names_the_host_error_not_the_confirm_bound(
    store: SessionStore,
) -> None:
    host = StopFailsEarly(deaf=True)
    harness = harness_on(store, host, confirm=10.0, settle=0.05)
    try:
        session_id, reading = await start(harness, "sleep 4")
        await host.streaming.wait()
        with pytest.raises(RunEndUnconfirmedError) as stopped:
            await harness.kernel.stop_session(session_id)
    finally:
        host.finish.set()
        await reading
        await harness.close()
    message = str(stopped.value)
    assert "the tool host failed: " in message and LINK_FAILED in message, message
    assert "the confirmation bound is 10 s" in message, message
    assert "within 10 s" not in message  # before: "could not confirm within 10 s"

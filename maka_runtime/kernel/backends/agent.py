"""What the shell and LLM backends share: stop state, interaction waits and the ``bash`` tool.

:class:`TurnControl` holds one backend's stop state. An ``after_step`` stop is remembered and
honoured at the next step boundary (:meth:`TurnControl.boundary`); an ``immediate`` stop wakes
every wait at once and — before :meth:`TurnControl.stop` returns — stops the foreground runs the
turn has on the tool host and confirms they ended, so no process of the tool outlives a stop
that succeeded; a run the host does not confirm ended within the confirm timeout fails the stop
(:class:`~maka_runtime.kernel.core.errors.RunEndUnconfirmedError`, naming its ref).

:class:`BashTool` runs one command as a tool call, inside the session's execution boundary: in
permission mode ``ask`` it first raises a sandbox-boundary request unless the session already
allowed that exact command line and the boundary covers what the call declared it needs (see
:mod:`maka_runtime.kernel.backends.gate`), then runs the command on the tool host — in the
foreground over pipes, streaming its output as ``tool_output``, or as a background run (a PTY a
client can attach to) whose ref the result reports. A denial ends the turn (:class:`Denied`); a
run cut short by a stop is recorded as an error result that says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar

from maka_runtime.common.aio import Interrupted, unless
from maka_runtime.kernel.backends.approvals import (
    COMPOUND,
    SessionApprovals,
    approval_key,
    program_of,
)
from maka_runtime.kernel.backends.bash_call import BashCall, BashOutcome, Denied, Stopped
from maka_runtime.kernel.backends.factories import STOP_CONFIRM_TIMEOUT
from maka_runtime.kernel.backends.gate import BoundaryGate
from maka_runtime.kernel.backends.needs import detected, refused
from maka_runtime.kernel.core.backend import (
    BackendSendInput,
    SandboxBoundaryResponse,
    StopMode,
    StopReason,
    UserQuestionResponse,
)
from maka_runtime.kernel.core.boundary import Boundary, Expansion
from maka_runtime.kernel.core.errors import RunEndUnconfirmedError
from maka_runtime.kernel.core.log.events import (
    BackendEvent,
    ToolCall,
    ToolOutput,
    ToolResult,
)
from maka_runtime.kernel.core.tool_output import (
    DEFAULT_BUDGET_BYTES,
    Stream,
    ToolOutputRecord,
    Truncation,
    pumped,
    result_text,
)
from maka_runtime.kernel.core.tools import (
    RunEnded,
    RunInfo,
    RunSpec,
    RunStarted,
    ToolHost,
    ToolHostError,
)

log = logging.getLogger("maka_runtime.kernel.backends")

__all__ = [
    "COMPOUND",
    "BashCall",
    "BashOutcome",
    "BashTool",
    "ControlledBackend",
    "Denied",
    "SessionApprovals",
    "Stopped",
    "ToolHostMissingError",
    "TurnControl",
    "approval_key",
    "program_of",
]

T = TypeVar("T")
#: How long an immediate stop waits for a run that is being launched to report its ref.
LAUNCH_WAIT = 10.0


class ToolHostMissingError(RuntimeError):
    """The backend needs a tool host (the resource service) and the kernel has none."""

    error_code = "resource_unavailable"


_CONFIRMED: Any = object()


async def _confirm_stop(host: ToolHost, session_id: str, ref: str, within: float) -> Any:
    """Stop *ref*: :data:`_CONFIRMED` once the host answers with a terminal run, else what
    went wrong (``None``: no answer within *within* seconds)."""
    try:
        async with asyncio.timeout(max(within, 0.0)):
            run = await host.stop_run(session_id, ref)
    except TimeoutError:
        return None
    except ToolHostError as error:
        return error
    if run.active:
        return ToolHostError(f"run {ref} is still {run.status} after its stop")
    return _CONFIRMED


class TurnControl:
    """One backend's stop state, interaction waits and live foreground runs.

    ``confirm_timeout`` bounds how long an immediate stop waits for the tool host to confirm
    that the turn's runs ended (see :meth:`_stop_runs`).
    """

    def __init__(
        self, host: ToolHost | None, confirm_timeout: float = STOP_CONFIRM_TIMEOUT
    ) -> None:
        self.host = host
        self.confirm_timeout = confirm_timeout
        self.session_id = ""
        self.stop_reason: StopReason | None = None
        self.stop_mode: StopMode | None = None
        self._interrupt = asyncio.Event()
        self._answers: dict[str, asyncio.Future[Any]] = {}
        self._runs: dict[str, str] = {}  # ref -> session id
        self._launching: set[asyncio.Future[None]] = set()
        self.disposed = False
        #: An ``allow_once`` expansion granted ahead of the turn's next ``bash`` call
        #: (``request_sandbox_boundary``): that call consumes it, a new turn drops it.
        self.once: Expansion = ()

    def begin(self, session_id: str = "") -> None:
        """Reset for a new turn (of *session_id*)."""
        if self.disposed:
            raise RuntimeError("the backend was disposed")
        self.session_id = session_id
        self.stop_reason = None
        self.stop_mode = None
        self._interrupt = asyncio.Event()
        self._answers.clear()
        self.once = ()

    @property
    def interrupted(self) -> bool:
        return self._interrupt.is_set()

    def boundary(self) -> None:
        """A step boundary: raise :class:`Stopped` if any stop was asked for."""
        if self.stop_mode is not None:
            raise Stopped

    async def stop(self, reason: StopReason, mode: StopMode | None) -> None:
        self.stop_reason = reason
        if mode == "after_step" and self.stop_mode != "immediate":
            self.stop_mode = "after_step"
            return
        self.stop_mode = "immediate"
        self._interrupt.set()
        await self._stop_runs()

    async def dispose(self) -> None:
        self.disposed = True
        await self.stop(self.stop_reason or "user_stop", "immediate")

    async def _stop_runs(self) -> None:
        """Stop every tracked run and confirm each ended, all within :attr:`confirm_timeout`.

        A run the resource service does not confirm ended in time (no answer, an error, or a
        run still active) is no longer tracked here: it is reported in a
        :class:`RunEndUnconfirmedError` and the kernel takes over its confirmation.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.confirm_timeout
        launching = 0
        if self._launching:
            wait = min(LAUNCH_WAIT, self.confirm_timeout)
            _, pending = await asyncio.wait(set(self._launching), timeout=wait)
            launching = len(pending)
            self._launching -= pending  # reported once (below); the turn ends them itself
        host = self.host
        if host is None or not (self._runs or launching):
            return
        runs = list(self._runs.items())
        results = await asyncio.gather(
            *(_confirm_stop(host, sid, ref, deadline - loop.time()) for ref, sid in runs)
        )
        unconfirmed: list[str] = []
        cause: Exception | None = None
        for (ref, session_id), failure in zip(runs, results, strict=True):
            self._runs.pop(ref, None)
            if failure is not _CONFIRMED:
                log.warning("run %s of session %s unconfirmed: %s", ref, session_id, failure)
                unconfirmed.append(ref)
                cause = failure or cause
        if launching:
            # Its ref is not known yet: the turn ends it when it is announced (_foreground).
            cause = ToolHostError(f"{launching} run(s) still being launched after {wait:g} s")
        if unconfirmed or launching:
            raise RunEndUnconfirmedError(self.session_id, unconfirmed, self.confirm_timeout, cause)

    @contextlib.contextmanager
    def launching(self) -> Any:
        """Mark a foreground run as being launched until its ref is tracked (or it failed)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._launching.add(done)
        try:
            yield done
        finally:
            self._launching.discard(done)
            if not done.done():
                done.set_result(None)

    def track(self, session_id: str, ref: str) -> None:
        self._runs[ref] = session_id

    def untrack(self, ref: str) -> None:
        self._runs.pop(ref, None)

    # -- interactions --------------------------------------------------------------------------

    def expect_answer(self, request_id: str) -> asyncio.Future[Any]:
        """Register a waiter *before* the request is yielded (an answer may come at once)."""
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._answers[request_id] = waiter
        return waiter

    def resolve(
        self, request_id: str, response: SandboxBoundaryResponse | UserQuestionResponse
    ) -> None:
        waiter = self._answers.get(request_id)
        if waiter is not None and not waiter.done():
            waiter.set_result(response)

    async def answer(self, request_id: str, waiter: asyncio.Future[T]) -> T:
        """The answer to *request_id*; :class:`Stopped` if an immediate stop comes first.

        An answer and an immediate stop that both arrived before this wait resumed count as
        the stop: the stop's own closure of the request (a denial) is then never taken for
        the user's, nor an answer acted on after the turn was stopped."""
        try:
            answer = await self.interruptible(waiter)
        finally:
            self._answers.pop(request_id, None)
        if self.interrupted:
            raise Stopped
        return answer

    async def interruptible(self, awaitable: Awaitable[T]) -> T:
        """Await *awaitable* unless an immediate stop comes first (then :class:`Stopped`)."""
        try:
            return await unless(awaitable, self._interrupt)
        except Interrupted:
            raise Stopped from None


class ControlledBackend:
    """The :class:`~maka_runtime.kernel.core.backend.AgentBackend` methods of a backend whose turns
    run under a :class:`TurnControl` (the shell and LLM backends): stops, answers, disposal."""

    control: TurnControl

    async def stop(self, reason: StopReason, mode: StopMode | None = None) -> None:
        await self.control.stop(reason, mode)

    async def respond_to_sandbox_boundary(self, response: SandboxBoundaryResponse) -> None:
        self.control.resolve(response.request_id, response)

    async def respond_to_user_question(self, response: UserQuestionResponse) -> None:
        self.control.resolve(response.request_id, response)

    async def dispose(self) -> None:
        await self.control.dispose()


class BashTool(BoundaryGate):
    """Runs ``bash`` tool calls on the tool host under the session's permission mode."""

    def __init__(
        self,
        host: ToolHost | None,
        control: TurnControl,
        approvals: SessionApprovals,
        budget_bytes: int = DEFAULT_BUDGET_BYTES,
    ):
        self.host = host
        self.control = control
        self.approvals = approvals
        #: Per stream, the most bytes of a call's output kept (``--tool-output-budget-bytes``).
        self.budget_bytes = budget_bytes
        self.last: BashOutcome | None = None
        self._output: ToolOutputRecord | None = None
        #: The boundary the current call's run carries.
        self.boundary = Boundary()
        #: The ``allow_once`` expansion the current call's run carries beyond the session's
        #: boundary (recorded on its result as ``once_expansion``).
        self.carried: Expansion = ()

    async def run(self, input: BackendSendInput, call: BashCall) -> AsyncIterator[BackendEvent]:
        """The call's events: ``tool_call``, maybe an approval request, output, ``tool_result``.

        Raises :class:`Denied` after the result of a denied call and :class:`Stopped` after the
        result of a call an immediate stop cut short. :attr:`last` holds the outcome.
        """
        self.last = None
        self._output = None
        turn_id = input.turn_id
        yield ToolCall(turn_id=turn_id, tool_call_id=call.call_id, name="bash", input=call.command)
        async with contextlib.aclosing(self._gate(input, call)) as gate:
            async for event in gate:
                yield event
        if self.last is not None:
            return  # refused before it ran
        host = self.host
        if host is None:
            raise ToolHostMissingError("no resource service is configured for this kernel")
        spec = RunSpec(
            session_id=input.session_id,
            command=call.command,
            cwd=call.cwd,
            turn_id=turn_id,
            tool_call_id=call.call_id,
            timeout_ms=call.timeout_ms,
            pty=call.pty,
            boundary=self.boundary,
        )
        try:
            try:
                await self.control.interruptible(host.ensure_session(input.header))
            except Stopped:
                yield self._result(input, call, "not run: the turn was stopped", error=True)
                raise
            if call.background:
                # Not interruptible: a start cancelled half-way could leave an unknown run.
                run = await host.start_background(spec)
                kind = "PTY" if call.pty else "pipes"
                attach = f"; attach with: maka attach {run.ref}" if call.pty else ""
                text = f"started background {kind} run {run.ref} (pid {run.pid}, {run.status})"
                yield self._result(input, call, text + attach, run=run, error=not run.active)
                return
            async for event in self._foreground(host, input, call, spec):
                yield event
        except ToolHostError as error:
            text = f"the tool could not run: {error}"
            yield self._result(input, call, text, ref=error.run_ref, error=True)
            raise
        if self.last is not None and self.last.cut_short and self.control.interrupted:
            raise Stopped

    async def _foreground(
        self, host: ToolHost, input: BackendSendInput, call: BashCall, spec: RunSpec
    ) -> AsyncIterator[BackendEvent]:
        ref = ""
        events = host.run_foreground(spec)
        record = self._output = ToolOutputRecord(self.budget_bytes)
        try:
            with self.control.launching() as launched:
                async for event in pumped(events, record):
                    if event is None:
                        for piece in self._pieces(input, call, record.pieces()):
                            yield piece
                    elif isinstance(event, RunStarted):
                        ref = event.run.ref
                        self.control.track(input.session_id, ref)
                        if not launched.done():
                            launched.set_result(None)
                        if self.control.interrupted:
                            # The stop came while the run launched: end it now.
                            await host.stop_run(input.session_id, ref)
                    elif isinstance(event, RunEnded):
                        for piece in self._pieces(input, call, record.finish()[0]):
                            yield piece
                        yield self._ended(input, call, event.run)
        except ToolHostError as error:
            error.run_ref = error.run_ref or ref  # the run had started: its result names it
            # What was kept before the host failed is recorded before the result says so.
            for piece in self._pieces(input, call, record.finish(ref)[0]):
                yield piece
            raise
        finally:
            if ref:
                self.control.untrack(ref)
            with contextlib.suppress(Exception):
                await events.aclose()  # type: ignore[attr-defined]

    def _pieces(
        self, input: BackendSendInput, call: BashCall, pieces: list[tuple[Stream, str]]
    ) -> list[ToolOutput]:
        return [
            ToolOutput(turn_id=input.turn_id, tool_call_id=call.call_id, text=text, stream=stream)
            for stream, text in pieces
        ]

    def _truncation(self, run_ref: str) -> Truncation | None:
        """The current call's output figures, when something was left out of its record."""
        record = self._output
        truncation = None if record is None else record.truncation(run_ref)
        return truncation if truncation is not None and truncation.truncated else None

    def _ended(self, input: BackendSendInput, call: BashCall, run: RunInfo) -> ToolResult:
        output = result_text(run.output, self._truncation(run.ref))
        if run.status == "completed" and run.exit_code == 0:
            return self._result(input, call, output, run=run)
        if run.status == "cancelled" and self.control.interrupted:
            status = f"cut short by an immediate stop: {run.message or 'cancelled'}"
        elif run.status in ("completed", "failed") and run.exit_code is not None:
            status = f"exit code {run.exit_code}"
        else:
            status = f"{run.status}: {run.message}" if run.message else run.status
        separator = "" if not output or output.endswith("\n") else "\n"
        text = f"{output}{separator}[{status}]"
        result = self._result(input, call, text, run=run, error=True)
        if run.status in ("completed", "failed"):
            cwd, protected = call.cwd or input.header.cwd, self.approvals.protected
            need, detail = detected(run.output, self.boundary, cwd, protected)
            self.last = refused(self.last, need, detail) if detail else self.last
        return self.last.result if self.last is not None else result

    def _result(
        self,
        input: BackendSendInput,
        call: BashCall,
        output: str,
        *,
        run: RunInfo | None = None,
        error: bool = False,
        ref: str = "",
    ) -> ToolResult:
        run_ref = run.ref if run is not None else ref
        truncation = self._truncation(run_ref)
        result = ToolResult(
            turn_id=input.turn_id,
            tool_call_id=call.call_id,
            output=output,
            is_error=error,
            run_ref=run_ref,
            exit_code=run.exit_code if run is not None else None,
            truncation=truncation.as_tuple() if truncation is not None else (),
            profile=self.boundary.profile,
            boundary_revision=self.boundary.revision,
            once_expansion=self.carried if run_ref or run is not None else (),
        )
        self.last = BashOutcome(result=result, run=run)
        return result
